//! PostgreSQL's own counters, read each interval over the sampler's own connection: commits and
//! rollbacks, blocks hit and read, tuples, deadlocks and temp bytes (`pg_stat_database`, for the
//! target's database), WAL bytes and syncs (`pg_stat_wal`, and `pg_stat_io` from 18), checkpoints and
//! buffers written, those by checkpoints among them (`pg_stat_bgwriter`, or `pg_stat_checkpointer` from 17), and the backends active
//! and waiting on locks now (`pg_stat_activity`).
//!
//! Every view is read by a plain login on a stock server; a managed one may revoke some. Each group is
//! its own query, so a view the login may not read costs only its own counters: it is reported
//! unavailable once and not asked again.

use tokio_postgres::{Client, SimpleQueryMessage};

use oltpgen_vocab::counters::{DbState, DbTotals};

/// One group of counters: the view it is named after, its query for the server's version, and the
/// names of its columns (every column a number). Totals become `<name>_per_s`; gauges are kept as read.
struct Group {
    view: &'static str,
    sql: fn(i32) -> Option<&'static str>,
    totals: &'static [&'static str],
    gauges: &'static [&'static str],
}

const GROUPS: &[Group] = &[
    Group {
        view: "pg_stat_database",
        sql: |_| {
            Some(
                "SELECT xact_commit::float8, xact_rollback::float8, blks_read::float8, blks_hit::float8, \
                 tup_returned::float8, (tup_inserted + tup_updated + tup_deleted)::float8, deadlocks::float8, \
                 temp_bytes::float8 FROM pg_stat_database WHERE datname = current_database()",
            )
        },
        totals: &[
            "commits",
            "rollbacks",
            "blocks_read",
            "blocks_hit",
            "tuples_returned",
            "tuples_written",
            "deadlocks",
            "temp_bytes",
        ],
        gauges: &[],
    },
    Group {
        view: "pg_stat_wal",
        sql: |version| match version {
            ..140000 => None,
            140000..180000 => Some("SELECT wal_bytes::float8, wal_sync::float8 FROM pg_stat_wal"),
            // 18 moved WAL's syncs into pg_stat_io.
            _ => Some(
                "SELECT (SELECT wal_bytes FROM pg_stat_wal)::float8, \
                 (SELECT sum(fsyncs) FROM pg_stat_io WHERE object = 'wal')::float8",
            ),
        },
        totals: &["wal_bytes", "wal_syncs"],
        gauges: &[],
    },
    Group {
        view: "pg_stat_bgwriter",
        sql: |version| match version {
            ..170000 => Some(
                "SELECT (checkpoints_timed + checkpoints_req)::float8, \
                 (buffers_checkpoint + buffers_clean + buffers_backend)::float8, buffers_checkpoint::float8 \
                 FROM pg_stat_bgwriter",
            ),
            // 17 moved checkpoints into pg_stat_checkpointer.
            _ => Some(
                "SELECT (c.num_timed + c.num_requested)::float8, (c.buffers_written + b.buffers_clean)::float8, \
                 c.buffers_written::float8 FROM pg_stat_checkpointer c, pg_stat_bgwriter b",
            ),
        },
        // The buffers checkpoints wrote: SQL Server's `Checkpoint pages/sec`, under the same name.
        totals: &["checkpoints", "buffers_written", "checkpoint_pages"],
        gauges: &[],
    },
    Group {
        view: "pg_stat_activity",
        sql: |_| {
            Some(
                "SELECT count(*) FILTER (WHERE state = 'active' AND backend_type = 'client backend')::float8, \
                 count(*) FILTER (WHERE wait_event_type = 'Lock')::float8 \
                 FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
            )
        },
        totals: &[],
        gauges: &["active_backends", "lock_waits"],
    },
];

/// Reads every group `state` has not given up on. The first read also learns the server's version and
/// whether the login sees other logins' sessions.
pub async fn read(client: &Client, state: &mut DbState) -> DbTotals {
    let mut out = DbTotals::default();
    if state.version == 0 {
        first_read(client, state, &mut out).await;
    }
    let mut asked = Vec::new();
    for group in GROUPS {
        if state.given_up.contains(group.view) {
            continue;
        }
        match (group.sql)(state.version) {
            Some(sql) => asked.push((group, sql)),
            None => {
                state.given_up.insert(group.view);
                out.unavailable.push(format!("{}: not in PostgreSQL {}", group.view, state.version / 10000));
            }
        }
    }
    // Every group at once, pipelined on the one connection, each in the simple protocol: one round
    // trip in all, and no statement to prepare (the sampler's own cost stays small beside the users').
    let answers = futures_util::future::join_all(asked.iter().map(|(_, sql)| client.simple_query(sql))).await;
    for ((group, _), answer) in asked.into_iter().zip(answers) {
        match answer {
            Ok(messages) => {
                let Some(row) = messages.iter().find_map(|m| match m {
                    SimpleQueryMessage::Row(row) => Some(row),
                    _ => None,
                }) else {
                    continue;
                };
                let names =
                    group.totals.iter().map(|n| (n, true)).chain(group.gauges.iter().map(|n| (n, false)));
                for (i, (name, total)) in names.enumerate() {
                    let Some(v) = row.get(i).and_then(|v| v.parse::<f64>().ok()) else { continue };
                    let into = if total { &mut out.totals } else { &mut out.gauges };
                    into.insert(name, v);
                }
            }
            Err(e) if e.is_closed() => out.connection_lost = true,
            Err(e) => {
                let why = e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string());
                state.given_up.insert(group.view);
                out.unavailable.push(format!("{}: {why}", group.view));
            }
        }
    }
    out
}

/// Names the connection for what it is (`application_name`, so that a DBA, and a count of the run's
/// connections, tells it from the users'), learns the server's version, and notes when the login sees
/// only its own sessions' state in `pg_stat_activity` (neither a superuser nor a member of
/// `pg_read_all_stats`).
async fn first_read(client: &Client, state: &mut DbState, out: &mut DbTotals) {
    let _ = client.batch_execute("SET application_name = 'oltpgen counters'").await;
    let row = client
        .query_one(
            "SELECT current_setting('server_version_num')::int4, \
             (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \
             OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER')",
            &[],
        )
        .await;
    match row {
        Ok(row) => {
            state.version = row.get(0);
            if !row.get::<_, Option<bool>>(1).unwrap_or(false) {
                out.unavailable.push(
                    "pg_stat_activity: other logins' sessions (the login is not a member of pg_read_all_stats): \
                     active_backends and lock_waits count only its own"
                        .into(),
                );
            }
        }
        // An old server without pg_read_all_stats reads as the oldest version.
        Err(_) => state.version = 1,
    }
    // NULL over a Unix socket: the socket's host is the one the URL named.
    let server = client
        .query_one("SELECT host(inet_server_addr()) || ':' || inet_server_port()", &[])
        .await
        .ok()
        .and_then(|row| row.get::<_, Option<String>>(0));
    state.server = Some(server.unwrap_or_else(|| "a local socket".into()));
}
