//! Data generation throughput: rows per second on one core, per TPC-C table, encoded as PostgreSQL
//! binary COPY (what `oltpgen tpcc load` sends).
//!
//! One chunk per table, as the loader generates them: the figures say how many cores a load needs to
//! keep a server busy, and catch a slow generator before a long load does.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use oltpgen_datagen::encode::PgBinaryCopy;
use oltpgen_datagen::schema::Dataset;
use oltpgen_datagen::tpcc::rows::{Chunk, TpccData, TpccParams};
use oltpgen_datagen::tpcc::schema::Table;

fn generation(c: &mut Criterion) {
    let data = TpccData::new(TpccParams::new(1, 42));
    let mut group = c.benchmark_group("tpcc_rows");
    for table in Table::ALL {
        // The table's first chunk: a district, a part of 10,000 items, or a whole (small) table.
        let chunk =
            data.chunks().into_iter().find(|c: &Chunk| c.table == table).expect("every table has a chunk");
        let rows = data.rows_in(chunk);
        group.throughput(Throughput::Elements(rows));
        // Sized once, so that growing the buffer is not measured.
        let capacity = {
            let mut out = PgBinaryCopy::with_capacity(0);
            data.write(chunk, &mut out);
            out.finish().len()
        };
        group.bench_with_input(BenchmarkId::from_parameter(table.name()), &chunk, |b, &chunk| {
            b.iter(|| {
                let mut out = PgBinaryCopy::with_capacity(capacity);
                data.write(chunk, &mut out);
                out.finish()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, generation);
criterion_main!(benches);
