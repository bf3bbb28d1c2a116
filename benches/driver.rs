//! The driver's own cost per transaction, without a database: dealing the next card, making the
//! transaction's input, drawing its think time, and recording its sample (buffer, batch hand-over and
//! the collector's histogram). Issue #3's budget for all of it is 1 µs. For DS2, the same per whole
//! order: drawing it (login or registration, browses, purchase) and recording its operations' samples
//! and its own.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oltpgen_datagen::Rng;
use oltpgen_datagen::ds2::input::{OrderGen, OrderParams};
use oltpgen_datagen::ds2::size::DbSize;
use oltpgen_datagen::tpcc::input::{InputGen, Terminal};
use oltpgen_datagen::tpcc::mix::{Deck, Pacing};
use oltpgen_datagen::tpcc::random::CConstants;
use oltpgen_driver::run::collector::Collector;
use oltpgen_driver::run::sample::{Recorder, Sample, Status};
use oltpgen_report::model::{DS2_TRANSACTIONS, TPCC_TRANSACTIONS, Workload};

/// The `i`th transaction's sample, of type `kind`: committed, 1 to 6 ms.
fn sample(kind: u8, i: u64) -> Sample {
    Sample {
        kind,
        target: 0,
        retries: 0,
        status: Status::Committed,
        latency_us: 1000 + (i as u32 % 5000),
        late_us: 0,
        done_ms: i as u32,
    }
}

fn per_transaction(c: &mut Criterion) {
    const TXNS: u64 = 10_000;
    let mut group = c.benchmark_group("driver");
    group.throughput(Throughput::Elements(TXNS));
    let mut rng = Rng::new(1);
    let generator = InputGen::new(10, CConstants::for_load(&mut rng));
    let terminal = Terminal::for_user(10, 3);
    let pacing = Pacing::spec();
    let mut deck = Deck::new();
    group.bench_function("deck+input+think+record", |b| {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut recorder = Recorder::new(tx, 10_000);
        let mut collector =
            Collector::new(Workload::Tpcc, &TPCC_TRANSACTIONS, 0, 1, &[0..5_000, 5_000..u32::MAX]);
        b.iter(|| {
            for i in 0..TXNS {
                let kind = deck.next(&mut rng);
                let input = generator.next(kind, &mut rng, &terminal);
                let think = pacing.think(kind, &mut rng);
                std::hint::black_box((&input, think));
                recorder.record(sample(kind.index() as u8, i));
            }
            recorder.flush();
            while let Ok(batch) = rx.try_recv() {
                collector.absorb(&batch.samples);
            }
        });
    });
    group.finish();
}

fn per_ds2_order(c: &mut Criterion) {
    const ORDERS: u64 = 2_000;
    let mut group = c.benchmark_group("driver_ds2");
    group.throughput(Throughput::Elements(ORDERS));
    let mut rng = Rng::new(1);
    let size = DbSize::M;
    let orders = OrderGen::new(size.customers(), size.products(), OrderParams::default());
    group.bench_function("order+record", |b| {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut recorder = Recorder::new(tx, 10_000);
        let mut collector =
            Collector::new(Workload::Ds2, &DS2_TRANSACTIONS, 6, 1, std::slice::from_ref(&(0..u32::MAX)))
                .with_composite(Some(6));
        b.iter(|| {
            for i in 0..ORDERS {
                let order = orders.next(&mut rng);
                recorder.record(sample(0, i));
                for _ in &order.browses {
                    recorder.record(sample(2, i));
                }
                recorder.record(sample(5, i));
                recorder.record(sample(6, i));
                std::hint::black_box(&order);
            }
            recorder.flush();
            while let Ok(batch) = rx.try_recv() {
                collector.absorb(&batch.samples);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, per_transaction, per_ds2_order);
criterion_main!(benches);
