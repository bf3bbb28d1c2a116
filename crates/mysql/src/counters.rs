//! MySQL's and MariaDB's own counters, read each interval over the sampler's own connection from
//! `SHOW GLOBAL STATUS` (server-wide: InnoDB keeps no per-database figures): commits and rollbacks,
//! buffer pool reads and read requests (and so the hit %), rows read and written, row lock waits and
//! the time spent in them, InnoDB data and redo log bytes written, data and log fsyncs, deadlocks where
//! the server counts them, and the threads running now.
//!
//! A plain login may run `SHOW GLOBAL STATUS`; a variable one server lacks (MySQL has no
//! `Innodb_deadlocks`, MariaDB 10.8 and later no `Innodb_os_log_fsyncs`) costs only its counter, said
//! once.

use std::collections::BTreeMap;
use std::time::Duration;

use mysql_async::prelude::Queryable;

use super::{Conn, timed};
use oltpgen_vocab::counters::{DbState, DbTotals};
use oltpgen_vocab::error::Fault;

/// How long one reading may take: the sampler must not stall behind a server that stopped answering.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The group's name in [`DbState::given_up`].
const GROUP: &str = "SHOW GLOBAL STATUS";
/// In [`DbState::given_up`] once the variables this server lacks were said.
const MISSING_SAID: &str = "SHOW GLOBAL STATUS, variables missing";

/// Each total: its name (it becomes `<name>_per_s`) and the status variables summed into it (a `-`
/// before one subtracts it), in the server's first spelling that it has (MySQL's `Innodb_rows_*`,
/// MariaDB's `Rows_read` and `Handler_*`).
const TOTALS: &[(&str, &[&[&str]])] = &[
    ("commits", &[&["Com_commit"]]),
    ("rollbacks", &[&["Com_rollback"]]),
    ("blocks_read", &[&["Innodb_buffer_pool_reads"]]),
    ("blocks_hit", &[&["Innodb_buffer_pool_read_requests", "-Innodb_buffer_pool_reads"]]),
    ("tuples_returned", &[&["Innodb_rows_read"], &["Rows_read"]]),
    (
        "tuples_written",
        &[
            &["Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted"],
            &["Handler_write", "Handler_update", "Handler_delete"],
        ],
    ),
    ("row_lock_waits", &[&["Innodb_row_lock_waits"]]),
    ("row_lock_time_ms", &[&["Innodb_row_lock_time"]]),
    ("data_bytes_written", &[&["Innodb_data_written"]]),
    ("log_bytes_written", &[&["Innodb_os_log_written"]]),
    ("data_fsyncs", &[&["Innodb_data_fsyncs"]]),
    ("log_fsyncs", &[&["Innodb_os_log_fsyncs"]]),
    ("deadlocks", &[&["Innodb_deadlocks"]]),
];

/// The sum of `parts` (a `-` before one subtracts it), `None` when the server lacks one of them.
fn sum(status: &BTreeMap<String, f64>, parts: &[&str]) -> Option<f64> {
    parts.iter().try_fold(0.0, |total, part| {
        let (sign, var) = part.strip_prefix('-').map_or((1.0, *part), |v| (-1.0, v));
        status.get(var).map(|v| total + sign * v)
    })
}

/// Each gauge: its name and the status variable it is.
const GAUGES: &[(&str, &str)] = &[("threads_running", "Threads_running")];

/// Reads the counters over `conn`; see `oltpgen_driver::engine::Conn::counters`.
pub async fn read(conn: &Conn, state: &mut DbState) -> DbTotals {
    let mut out = DbTotals::default();
    if state.given_up.contains(GROUP) {
        return out;
    }
    let mut c = conn.conn.lock().await;
    if state.server.is_none() {
        let name = "SELECT CONCAT(@@hostname, ':', @@port)";
        state.server = timed(READ_TIMEOUT, c.query_first::<String, _>(name)).await.ok().flatten();
    }
    let rows: Result<Vec<(String, String)>, _> = timed(READ_TIMEOUT, c.query("SHOW GLOBAL STATUS")).await;
    let status: BTreeMap<String, f64> = match rows {
        Ok(rows) => rows.into_iter().filter_map(|(k, v)| Some((k, v.parse().ok()?))).collect(),
        Err(e) if super::error::fault(&e) == Fault::ConnectionLost => {
            out.connection_lost = true;
            return out;
        }
        Err(e) => {
            state.given_up.insert(GROUP);
            out.unavailable.push(format!("{GROUP}: {e}"));
            return out;
        }
    };
    let mut missing = Vec::new();
    for (name, spellings) in TOTALS {
        match spellings.iter().find_map(|parts| sum(&status, parts)) {
            Some(v) => {
                out.totals.insert(name, v);
            }
            None => missing.push(spellings[0].join(" ")),
        }
    }
    for (name, var) in GAUGES {
        match status.get(*var) {
            Some(v) => {
                out.gauges.insert(name, *v);
            }
            None => missing.push(var.to_string()),
        }
    }
    if !missing.is_empty() && state.given_up.insert(MISSING_SAID) {
        out.unavailable.push(format!("{GROUP}: this server has no {}", missing.join(", ")));
    }
    out
}
