//! The driver's own cost per transaction, without a database: dealing the next card, making the
//! transaction's input, drawing its think time, and recording its sample (into the shard's collector's
//! histograms, as a turn ends). Issue #3's budget for all of it is 1 µs. For DS2, the same per whole
//! order: drawing it (login or registration, browses, purchase) and recording its operations' samples
//! and its own.
//!
//! `driver_threads` runs the whole machinery ([`run::drive`]: users on their runtimes, the user loop,
//! recording, the collectors and their merge) against an in-memory engine that answers every
//! transaction at once, on 1 and 2 client threads: the transactions per second one process drives, and
//! how that scales with its threads.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oltpgen_datagen::Rng;
use oltpgen_datagen::ds2::input::{OrderGen, OrderParams};
use oltpgen_datagen::ds2::size::DbSize;
use oltpgen_datagen::tpcc::input::{InputGen, Terminal, TxnInput};
use oltpgen_datagen::tpcc::mix::{Deck, Pacing};
use oltpgen_datagen::tpcc::random::CConstants;
use std::sync::LazyLock;

use oltpgen_driver::run::collector::Collector;
use oltpgen_driver::run::sample::{Sample, Status};
use oltpgen_driver::run::{self, Agent, Next, Ops, Ramp, RunPlan, StepSpec, Timing};
use oltpgen_driver::workload::{Kinds, Profile};
use oltpgen_report::model::{DS2_TRANSACTIONS, TPCC_TRANSACTIONS};
use oltpgen_report::stats::cap::Cap;
use oltpgen_vocab::outcome::{Done, TxnError};

/// The `i`th transaction's sample, of type `kind`: committed, 1 to 6 ms.
fn sample(kind: u8, i: u64) -> Sample {
    Sample {
        kind,
        target: 0,
        retries: 0,
        status: Status::Committed,
        latency_us: 1000 + (i as u32 % 5000),
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
        let mut collector = Collector::new(Kinds::plain(&TPCC_TRANSACTIONS), 1, &[0..5_000, 5_000..u32::MAX]);
        b.iter(|| {
            for i in 0..TXNS {
                let kind = deck.next(&mut rng);
                let input = generator.next(kind, &mut rng, &terminal);
                let think = pacing.think(kind, &mut rng);
                std::hint::black_box((&input, think));
                collector.record(&sample(kind.index() as u8, i));
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
        let ds2_kinds = Kinds { per_minute: 6, composite: Some(6), ..Kinds::plain(&DS2_TRANSACTIONS) };
        let mut collector = Collector::new(ds2_kinds, 1, std::slice::from_ref(&(0..u32::MAX)));
        b.iter(|| {
            for i in 0..ORDERS {
                let order = orders.next(&mut rng);
                collector.record(&sample(0, i));
                for _ in &order.browses {
                    collector.record(&sample(2, i));
                }
                collector.record(&sample(5, i));
                collector.record(&sample(6, i));
                std::hint::black_box(&order);
            }
        });
    });
    group.finish();
}

/// TPC-C's users as the driver runs them (deck, inputs, no keying or think time) on an engine that
/// answers at once: the driver's own cost with nothing to wait for. Each answer still passes through
/// the runtime once (a yield), as a real answer arriving on a socket does.
struct Instant {
    targets: Vec<String>,
    generator: InputGen,
}

static PROFILE: LazyLock<Profile> = LazyLock::new(|| {
    Profile::new(oltpgen_report::model::Workload::Tpcc.descriptor().clone(), Kinds::plain(&TPCC_TRANSACTIONS))
});

impl run::Driven for Instant {
    type User = (Rng, Deck, Terminal);
    type Session = ();
    type Input = TxnInput;

    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn targets(&self) -> &[String] {
        &self.targets
    }

    fn user(&self, index: u32) -> Self::User {
        (Rng::derive(1, &[u64::from(index)]), Deck::new(), Terminal::for_user(10, index))
    }

    fn next(&self, (rng, deck, terminal): &mut Self::User) -> Next<TxnInput> {
        let kind = deck.next(rng);
        let input = self.generator.next(kind, rng, terminal);
        Next { kind: kind.index(), input, keying: Duration::ZERO, think: Duration::ZERO }
    }

    async fn connect(&self, _target: usize) -> Result<(), TxnError> {
        Ok(())
    }

    async fn execute<'a>(&'a self, _: &'a (), input: &'a TxnInput, _: &'a mut Ops) -> Result<Done, TxnError> {
        std::hint::black_box(input);
        tokio::task::yield_now().await;
        Ok(Done::default())
    }
}

/// Users per client thread: enough that a thread always has one ready.
const USERS_PER_THREAD: u32 = 8;

/// One short run on `threads` client threads.
fn drive_once(threads: u32) -> run::Measured {
    let workload = Arc::new(Instant {
        targets: vec!["in-memory".into()],
        generator: InputGen::new(10, CConstants::for_load(&mut Rng::new(1))),
    });
    let plan = RunPlan {
        steps: vec![StepSpec { users: USERS_PER_THREAD * threads, run: 1 }],
        connections: None,
        timing: Timing {
            ramp: Ramp::Rate(1e6),
            warmup: Duration::from_millis(200),
            duration: Duration::from_secs(1),
            window: None,
            arrivals: None,
        },
        report_interval: Duration::from_millis(500),
        cap: Cap::default(),
        stop_after_breach: None,
        client_threads: threads,
        agent: Agent::WHOLE,
        start_at: None,
        search: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(run::drive(workload, &plan, |_| {}))
}

/// Seconds per transaction, as one run measured them.
type SecondsPerTxn = fn(&run::Measured) -> f64;

/// The whole driver on 1 and 2 client threads. Each sample is one run (1 s measured). `driver_threads`:
/// criterion's time per element is the wall time per transaction the run's window measured (its
/// throughput, transactions/s). `driver_threads_cpu`: the process's CPU time per transaction over the
/// whole run (its throughput, transactions per CPU-second), which other work on the machine does not
/// change: equal at 1 and 2 threads means the threads add no cost, so on free cores the throughput
/// scales with them.
fn threads(c: &mut Criterion) {
    let per_txn: [(&str, SecondsPerTxn); 2] = [
        ("driver_threads", |m| 1.0 / m.steps[0].figures.tps),
        ("driver_threads_cpu", |m| m.client.client_cpu_us_per_txn.unwrap_or(0.0) / 1e6),
    ];
    for (name, seconds_per_txn) in per_txn {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
        for threads in [1, 2] {
            group.bench_function(format!("drive/{threads}"), |b| {
                b.iter_custom(|iters| {
                    Duration::from_secs_f64(iters as f64 * seconds_per_txn(&drive_once(threads)))
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, per_transaction, per_ds2_order, threads);
criterion_main!(benches);
