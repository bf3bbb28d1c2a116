//! Data generation throughput: rows per second on one core, per table of each workload, encoded as
//! PostgreSQL binary COPY (what `oltpgen tpcc load` and `oltpgen ds2 load` send).
//!
//! One chunk per table, as the loader generates them: the figures say how many cores a load needs to
//! keep a server busy, and catch a slow generator before a long load does.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use oltpgen_datagen::ds2::rows::{Ds2Data, Ds2Params};
use oltpgen_datagen::ds2::size::DbSize;
use oltpgen_datagen::encode::PgBinaryCopy;
use oltpgen_datagen::schema::Dataset;
use oltpgen_datagen::tpcc::rows::{TpccData, TpccParams};

/// Benchmarks the first chunk of each of `data`'s tables (a district, a part of 10,000 items, a block of
/// orders, or a whole small table) as group `name`.
fn first_chunks<D: Dataset>(c: &mut Criterion, name: &str, data: &D) {
    let mut group = c.benchmark_group(name);
    for table in data.tables() {
        // Tables empty at load (DS2's reorder) have no chunk.
        let Some(chunk) = data.chunks().into_iter().find(|&c| data.table_of(c).name == table.name) else {
            continue;
        };
        group.throughput(Throughput::Elements(data.rows_in(chunk)));
        // Sized once, so that growing the buffer is not measured (nor DS2's one-off inventory sales).
        let capacity = {
            let mut out = PgBinaryCopy::with_capacity(0);
            data.write(chunk, &mut out);
            out.finish().len()
        };
        group.bench_with_input(BenchmarkId::from_parameter(table.name), &chunk, |b, &chunk| {
            b.iter(|| {
                let mut out = PgBinaryCopy::with_capacity(capacity);
                data.write(chunk, &mut out);
                out.finish()
            });
        });
    }
    group.finish();
}

fn generation(c: &mut Criterion) {
    first_chunks(c, "tpcc_rows", &TpccData::new(TpccParams::new(1, 42)));
    // 1GB: full-size chunks (50,000 customers, 20,000 orders, 100,000 products).
    first_chunks(c, "ds2_rows", &Ds2Data::new(Ds2Params { size: DbSize::M, seed: 42 }));
}

criterion_group!(benches, generation);
criterion_main!(benches);
