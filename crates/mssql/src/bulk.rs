//! SQL Server's side of a load, shared by the workloads: chunks generated on threads and sent by TDS
//! bulk insert (tiberius `bulk_insert`) over several connections, then statements (keys, indexes,
//! `UPDATE STATISTICS`, procedures) run side by side.

use std::borrow::Cow;
use std::sync::Arc;

use oltpgen_datagen::encode::RowEncoder;
use oltpgen_datagen::schema::{Column, ColumnType, Dataset, TableDef};
use tiberius::numeric::Numeric;
use tiberius::time::{Date, DateTime2, Time};
use tiberius::{ColumnData, TokenRow};

use super::{ADMIN_TIMEOUT, failed, timed};
use oltpgen_vocab::chunks::{self, Queue};
use oltpgen_vocab::{Error, Target};

/// Days from 0001-01-01 (TDS dates count from there) to 1970-01-01.
const UNIX_EPOCH_DAYS: i64 = 719_162;
const US_PER_DAY: i64 = 86_400_000_000;

/// Rows generated for a bulk insert, one [`TokenRow`] each.
pub struct TdsRows {
    rows: Vec<TokenRow<'static>>,
    row: TokenRow<'static>,
    /// The table's columns: a NULL is sent typed as its column.
    columns: &'static [Column],
}

impl TdsRows {
    /// No rows yet, for `table`.
    pub fn new(table: &'static TableDef) -> Self {
        TdsRows { rows: Vec::new(), row: TokenRow::new(), columns: table.columns }
    }

    fn push(&mut self, v: ColumnData<'static>) {
        self.row.push(v);
    }

    /// The rows written.
    pub fn finish(self) -> Vec<TokenRow<'static>> {
        self.rows
    }
}

impl RowEncoder for TdsRows {
    fn begin_row(&mut self, columns: u16) {
        self.row = TokenRow::with_capacity(usize::from(columns));
    }

    fn int4(&mut self, v: i32) {
        self.push(ColumnData::I32(Some(v)));
    }

    fn int2(&mut self, v: i16) {
        self.push(ColumnData::I16(Some(v)));
    }

    fn int8(&mut self, v: i64) {
        self.push(ColumnData::I64(Some(v)));
    }

    /// The column's own scale: a bulk-inserted DECIMAL's scale must equal its column's.
    fn numeric(&mut self, unscaled: i64, scale: u8) {
        self.push(ColumnData::Numeric(Some(Numeric::new_with_scale(i128::from(unscaled), scale))));
    }

    fn float8(&mut self, v: f64) {
        self.push(ColumnData::F64(Some(v)));
    }

    fn bool(&mut self, v: bool) {
        self.push(ColumnData::Bit(Some(v)));
    }

    fn text(&mut self, v: &[u8]) {
        self.push(ColumnData::String(Some(Cow::Owned(String::from_utf8_lossy(v).into_owned()))));
    }

    /// A `DATETIME2(6)`: days since 0001-01-01 and microseconds into the day.
    fn timestamp_us(&mut self, unix_us: i64) {
        let (days, us) = (unix_us.div_euclid(US_PER_DAY), unix_us.rem_euclid(US_PER_DAY));
        let date = Date::new((days + UNIX_EPOCH_DAYS) as u32);
        self.push(ColumnData::DateTime2(Some(DateTime2::new(date, Time::new(us as u64, 6)))));
    }

    /// A `DATETIME2(0)` at midnight (see [`super::schema::create_table`]).
    fn date(&mut self, unix_days: i32) {
        let date = Date::new((i64::from(unix_days) + UNIX_EPOCH_DAYS) as u32);
        self.push(ColumnData::DateTime2(Some(DateTime2::new(date, Time::new(0, 0)))));
    }

    fn null(&mut self) {
        let null = match self.columns.get(self.row.len()).map(|c| c.ty) {
            Some(ColumnType::Int2) => ColumnData::I16(None),
            Some(ColumnType::Numeric { .. }) => ColumnData::Numeric(None),
            Some(ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text) => ColumnData::String(None),
            Some(ColumnType::Int8) => ColumnData::I64(None),
            Some(ColumnType::Float8) => ColumnData::F64(None),
            Some(ColumnType::Bool) => ColumnData::Bit(None),
            Some(ColumnType::Timestamp | ColumnType::Date) => ColumnData::DateTime2(None),
            Some(ColumnType::Int4) | None => ColumnData::I32(None),
        };
        self.push(null);
    }

    fn end_row(&mut self) {
        self.rows.push(std::mem::take(&mut self.row));
    }
}

/// Generates `chunks` of `data` (each with its number) on `workers` threads and bulk-inserts them over
/// `workers` connections (see [`chunks::send`]), calling `progress` with the rows of each chunk the
/// server accepted. With `workload`, each chunk's bulk insert runs inside a transaction
/// (`BEGIN TRANSACTION` on the connection, which TDS's bulk load joins) with its done-mark in
/// `oltpgen_chunks` ([`meta::MARK`](super::meta::MARK)), so that a load cut at any moment holds exactly
/// the rows of the chunks marked done. The transaction costs Babelfish about 6% of the copy (scale 1,
/// three alternated pairs: 7.5 s against 7.1 s, medians).
///
/// # Errors
/// The first error of any connection; the others stop at their next chunk.
pub async fn load_marked<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<(u32, D::Chunk)>,
    workload: Option<String>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    let generate = move |&(number, chunk): &(u32, D::Chunk)| {
        let mut out = TdsRows::new(data.table_of(chunk));
        data.write(chunk, &mut out);
        (number, data.table_of(chunk).name, out.finish())
    };
    let (progress, workload) = (Arc::new(progress), Arc::new(workload));
    chunks::send(workers, chunks, generate, |queue: Queue<(u32, &'static str, Vec<TokenRow<'static>>)>| {
        let (target, progress, workload) = (target.clone(), progress.clone(), workload.clone());
        async move {
            let mut client = super::connect(&target).await?;
            while let Some((number, table, rows)) = queue.next().await {
                let n = rows.len() as u64;
                let send = async {
                    if workload.is_some() {
                        client.simple_query("BEGIN TRANSACTION").await?.into_results().await?;
                    }
                    let mut req = client.bulk_insert(table).await?;
                    for row in rows {
                        req.send(row).await?;
                    }
                    req.finalize().await?;
                    if let Some(workload) = workload.as_deref() {
                        client.execute(super::meta::MARK, &[&workload, &(number as i32)]).await?;
                        client.simple_query("COMMIT").await?.into_results().await?;
                    }
                    Ok(())
                };
                timed(ADMIN_TIMEOUT, send)
                    .await
                    .map_err(|e| failed(&format!("bulk insert into {table}"), &target, &e))?;
                progress(n);
            }
            Ok(())
        }
    })
    .await
}
