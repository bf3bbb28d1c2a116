//! SQL Server's own counters, read each interval over the sampler's own connection: the perfmon
//! counters the studies publish, from the server itself — Batch Requests/sec, Transactions/sec (this
//! database), Lock Waits/sec, deadlocks, buffer cache hit ratio and page life expectancy
//! (`sys.dm_os_performance_counters`), reads, writes and their stall per database file kind
//! (`sys.dm_io_virtual_file_stats`: the average ms per read and write), and time waited on locks
//! (`sys.dm_os_wait_stats`), and the user sessions open and running now (`sys.dm_exec_sessions`).
//!
//! These views need `VIEW SERVER STATE` (on SQL Server 2022, `VIEW SERVER PERFORMANCE STATE`); a login
//! without it, or a server that lacks a view, costs only that group's counters: reported unavailable
//! once and not asked again. The views a server lacks are said together in one line naming them and the
//! counters lost, and whether the server is Babelfish (which has only the sessions view): never the
//! server's raw `relation "…" does not exist`.

use std::time::Duration;

use super::{Conn, timed};
use oltpgen_vocab::counters::{DbState, DbTotals};

/// How long one reading may take: the sampler must not stall behind a server that stopped answering.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// One group of counters: the view it is named after, the counters it gives as a user knows them, its
/// query (one row, every column a `float`), and the names of its columns. Totals become `<name>_per_s`
/// (a `<name>_stall_ms` the average ms per operation of `<name>`); gauges are kept as read.
struct Group {
    view: &'static str,
    counters: &'static str,
    sql: &'static str,
    totals: &'static [&'static str],
    gauges: &'static [&'static str],
}

/// The `/sec` counters of `sys.dm_os_performance_counters` are running totals (perfmon takes their
/// difference); the ratio and page life expectancy are values now.
const GROUPS: &[Group] = &[
    Group {
        view: "sys.dm_os_performance_counters",
        counters: "batch requests, transactions, lock waits, deadlocks, checkpoint pages, buffer cache hit ratio \
                   and page life expectancy",
        sql: "SELECT \
             CAST(SUM(CASE WHEN counter_name = 'Batch Requests/sec' THEN cntr_value END) AS float), \
             CAST(SUM(CASE WHEN counter_name = 'Transactions/sec' AND object_name LIKE '%:Databases%' \
                  AND instance_name = DB_NAME() THEN cntr_value END) AS float), \
             CAST(SUM(CASE WHEN counter_name = 'Lock Waits/sec' AND instance_name = '_Total' \
                  THEN cntr_value END) AS float), \
             CAST(SUM(CASE WHEN counter_name = 'Number of Deadlocks/sec' AND instance_name = '_Total' \
                  THEN cntr_value END) AS float), \
             CAST(SUM(CASE WHEN counter_name = 'Checkpoint pages/sec' AND object_name LIKE '%Buffer Manager%' \
                  THEN cntr_value END) AS float), \
             CAST(100.0 * SUM(CASE WHEN counter_name = 'Buffer cache hit ratio' THEN cntr_value END) \
                  / NULLIF(SUM(CASE WHEN counter_name = 'Buffer cache hit ratio base' THEN cntr_value END), 0) \
                  AS float), \
             CAST(SUM(CASE WHEN counter_name = 'Page life expectancy' AND object_name LIKE '%Buffer Manager%' \
                  THEN cntr_value END) AS float) \
             FROM sys.dm_os_performance_counters",
        totals: &["batch_requests", "transactions", "lock_waits", "deadlocks", "checkpoint_pages"],
        gauges: &["buffer_hit_pct", "page_life_expectancy_s"],
    },
    Group {
        view: "sys.dm_io_virtual_file_stats",
        counters: "data and log file reads, writes and their stalls",
        sql: "SELECT \
             CAST(SUM(CASE WHEN f.type = 0 THEN s.num_of_reads END) AS float), \
             CAST(SUM(CASE WHEN f.type = 0 THEN s.io_stall_read_ms END) AS float), \
             CAST(SUM(CASE WHEN f.type = 0 THEN s.num_of_writes END) AS float), \
             CAST(SUM(CASE WHEN f.type = 0 THEN s.io_stall_write_ms END) AS float), \
             CAST(SUM(CASE WHEN f.type = 1 THEN s.num_of_writes END) AS float), \
             CAST(SUM(CASE WHEN f.type = 1 THEN s.io_stall_write_ms END) AS float) \
             FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) s \
             JOIN sys.database_files f ON f.file_id = s.file_id",
        totals: &[
            "data_file_reads",
            "data_file_reads_stall_ms",
            "data_file_writes",
            "data_file_writes_stall_ms",
            "log_file_writes",
            "log_file_writes_stall_ms",
        ],
        gauges: &[],
    },
    Group {
        view: "sys.dm_os_wait_stats",
        counters: "time waited on locks",
        sql: "SELECT CAST(SUM(wait_time_ms) AS float) FROM sys.dm_os_wait_stats WHERE wait_type LIKE 'LCK[_]%'",
        totals: &["lock_wait_ms"],
        gauges: &[],
    },
    Group {
        view: "sys.dm_exec_sessions",
        counters: "user sessions open and running",
        sql: "SELECT CAST(COUNT(*) AS float), CAST(SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS float) \
             FROM sys.dm_exec_sessions WHERE is_user_process = 1 AND session_id <> @@SPID",
        totals: &[],
        gauges: &["user_sessions", "active_backends"],
    },
];

/// Reads every group `state` has not given up on, one query each (an error in one must not cost the
/// others), each under a time limit of its own. The groups whose view the server lacks are given up
/// together, in one line naming them and the counters lost.
pub async fn read(conn: &Conn, state: &mut DbState) -> DbTotals {
    let mut out = DbTotals::default();
    let mut missing = Vec::new();
    let mut client = conn.client.lock().await;
    if state.server.is_none() {
        let name = "SELECT CAST(@@SERVERNAME AS nvarchar(128))";
        let answer = timed(READ_TIMEOUT, async { client.simple_query(name).await?.into_row().await }).await;
        if let Ok(Some(row)) = answer {
            state.server = row.try_get::<&str, _>(0).ok().flatten().map(str::to_owned);
        }
    }
    for group in GROUPS {
        if state.given_up.contains(group.view) {
            continue;
        }
        let answer =
            timed(READ_TIMEOUT, async { client.simple_query(group.sql).await?.into_row().await }).await;
        match answer {
            Ok(Some(row)) => {
                let names =
                    group.totals.iter().map(|n| (n, true)).chain(group.gauges.iter().map(|n| (n, false)));
                for (i, (name, total)) in names.enumerate() {
                    let Some(v) = row.try_get::<f64, _>(i).ok().flatten() else { continue };
                    let into = if total { &mut out.totals } else { &mut out.gauges };
                    into.insert(name, v);
                }
            }
            Ok(None) => {}
            Err(tiberius::error::Error::Io { .. }) => {
                out.connection_lost = true;
                break;
            }
            Err(e) => {
                state.given_up.insert(group.view);
                match &e {
                    e if lacks_view(e) => missing.push(group),
                    tiberius::error::Error::Server(t) => {
                        out.unavailable.push(format!("{}: {}", group.view, t.message()))
                    }
                    other => out.unavailable.push(format!("{}: {other}", group.view)),
                }
            }
        }
    }
    if !missing.is_empty() {
        let answer = timed(READ_TIMEOUT, async {
            client.simple_query("SELECT CAST(SERVERPROPERTY('Babelfish') AS int)").await?.into_row().await
        })
        .await;
        let babelfish = matches!(answer, Ok(Some(row)) if row.get::<i32, _>(0) == Some(1));
        out.unavailable.push(missing_line(&missing, babelfish));
    }
    out
}

/// Whether `e` says the server has no such view or function: SQL Server's 208 (invalid object name),
/// 2812 and 4121 (no such procedure or function), Babelfish's PostgreSQL `… does not exist`.
fn lacks_view(e: &tiberius::error::Error) -> bool {
    matches!(e, tiberius::error::Error::Server(t)
        if matches!(t.code(), 208 | 2812 | 4121) || t.message().contains("does not exist"))
}

/// The one line on the views the server lacks: which they are, on what server, and which counters
/// are therefore not sampled.
fn missing_line(missing: &[&Group], babelfish: bool) -> String {
    let views: Vec<&str> = missing.iter().map(|g| g.view).collect();
    let views = match views.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    let counters: Vec<&str> = missing.iter().map(|g| g.counters).collect();
    format!(
        "the server{} has no {views}, so these SQL Server counters are not sampled: {}",
        if babelfish { " (Babelfish)" } else { "" },
        counters.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_views_a_server_lacks_are_one_line_naming_them_and_their_counters() {
        let line = missing_line(&[&GROUPS[0], &GROUPS[1], &GROUPS[2]], true);
        assert_eq!(
            line,
            "the server (Babelfish) has no sys.dm_os_performance_counters, sys.dm_io_virtual_file_stats or \
             sys.dm_os_wait_stats, so these SQL Server counters are not sampled: batch requests, transactions, \
             lock waits, deadlocks, checkpoint pages, buffer cache hit ratio and page life expectancy; data and log file reads, \
             writes and their stalls; time waited on locks"
        );
        assert_eq!(
            missing_line(&[&GROUPS[2]], false),
            "the server has no sys.dm_os_wait_stats, so these SQL Server counters are not sampled: time waited \
             on locks"
        );
    }
}
