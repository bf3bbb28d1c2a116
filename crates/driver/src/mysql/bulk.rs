//! MySQL's side of a load, shared by the workloads: chunks generated on threads as CSV and sent by
//! `LOAD DATA LOCAL INFILE` over several connections, the "file" being oltpgen's own buffer handed to
//! the driver (no file is written), with `unique_checks` off for the session (the generator's keys
//! are unique by construction; the primary key is still built as the rows arrive).

use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use oltpgen_datagen::encode::{Csv, RowEncoder};
use oltpgen_datagen::schema::{Dataset, TableDef};

use super::{ADMIN_TIMEOUT, failed, timed};
use crate::chunks::{self, Queue};
use crate::{Error, Target};

/// CSV as `LOAD DATA … FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY ''` reads it:
/// datagen's [`Csv`], but NULL written as the bare word `NULL` (which the server reads as NULL when
/// fields may be enclosed; an empty field would be an empty string, or 0 in a number column). A text
/// field holding exactly `NULL` would load as NULL: the generators never write one.
pub struct LoadDataCsv(Csv);

impl LoadDataCsv {
    /// An empty buffer.
    pub fn new() -> Self {
        LoadDataCsv(Csv::new(Vec::new()))
    }

    /// The rows written.
    pub fn rows(&self) -> u64 {
        self.0.rows()
    }

    /// The bytes written.
    pub fn into_inner(self) -> Vec<u8> {
        self.0.into_inner()
    }
}

impl Default for LoadDataCsv {
    fn default() -> Self {
        LoadDataCsv::new()
    }
}

impl RowEncoder for LoadDataCsv {
    fn begin_row(&mut self, columns: u16) {
        self.0.begin_row(columns);
    }

    fn int4(&mut self, v: i32) {
        self.0.int4(v);
    }

    fn numeric(&mut self, unscaled: i64, scale: u8) {
        self.0.numeric(unscaled, scale);
    }

    fn text(&mut self, v: &[u8]) {
        self.0.text(v);
    }

    fn timestamp_us(&mut self, unix_us: i64) {
        self.0.timestamp_us(unix_us);
    }

    fn date(&mut self, unix_days: i32) {
        self.0.date(unix_days);
    }

    fn null(&mut self) {
        self.0.text(b"NULL");
    }

    fn end_row(&mut self) {
        self.0.end_row();
    }
}

/// The `LOAD DATA` statement that reads [`LoadDataCsv`]'s rows into `table`.
pub fn load_statement(table: &TableDef) -> String {
    let columns: Vec<&str> = table.columns.iter().map(|c| c.name).collect();
    format!(
        "LOAD DATA LOCAL INFILE 'oltpgen-stream' INTO TABLE {} CHARACTER SET utf8mb4 \
         FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' LINES TERMINATED BY '\\n' ({})",
        table.name,
        columns.join(", ")
    )
}

/// Generates `chunks` of `data` on `workers` threads and loads them over `workers` connections (see
/// [`chunks::send`]), calling `progress` with the rows of each chunk the server accepted.
///
/// # Errors
/// The first error of any connection (a server that refuses `LOCAL INFILE` says how to allow it); the
/// others stop at their next chunk.
pub async fn load_chunks<D: Dataset>(
    target: &Target,
    workers: usize,
    data: Arc<D>,
    chunks: Vec<D::Chunk>,
    progress: impl Fn(u64) + Send + Sync + 'static,
) -> Result<(), Error> {
    let generate = move |&chunk: &D::Chunk| {
        let mut out = LoadDataCsv::new();
        data.write(chunk, &mut out);
        let rows = out.rows();
        (data.table_of(chunk), rows, Bytes::from(out.into_inner()))
    };
    let progress = Arc::new(progress);
    chunks::send(workers, chunks, generate, |queue: Queue<(&'static TableDef, u64, Bytes)>| {
        let (target, progress) = (target.clone(), progress.clone());
        async move {
            let mut conn = super::connect(&target).await?;
            let what = "preparing the load's session";
            timed(ADMIN_TIMEOUT, conn.query_drop("SET SESSION unique_checks = 0"))
                .await
                .map_err(|e| failed(what, &target, &e))?;
            while let Some((table, rows, csv)) = queue.next().await {
                conn.set_infile_handler(async move { Ok(futures_util::stream::iter([Ok(csv)]).boxed()) });
                timed(ADMIN_TIMEOUT, conn.query_drop(load_statement(table))).await.map_err(|e| match &e {
                    // 1148/3948/4166: LOCAL INFILE refused by the server's (or the build's) setting.
                    mysql_async::Error::Server(s) if [1148, 3948, 4166].contains(&s.code) => {
                        Error::environment(format!(
                            "{}: the server refuses LOAD DATA LOCAL INFILE ({}): allow it with SET GLOBAL \
                             local_infile = ON (or local_infile=1 in the server's configuration)",
                            target.label(),
                            s.message
                        ))
                    }
                    _ => failed(&format!("LOAD DATA into {}", table.name), &target, &e),
                })?;
                progress(rows);
            }
            Ok(())
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_is_the_bare_word_and_text_stays_csv() {
        let mut out = LoadDataCsv::new();
        out.begin_row(4);
        out.int4(7);
        out.null();
        out.text(b"a,\"b\"");
        out.numeric(1234, 2);
        out.end_row();
        assert_eq!(out.rows(), 1);
        assert_eq!(String::from_utf8(out.into_inner()).unwrap(), "7,NULL,\"a,\"\"b\"\"\",12.34\n");
    }
}
