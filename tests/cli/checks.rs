//! Every consistency check seen to fail: each workload is loaded once, each corruption of
//! [`corruptions`](crate::corruptions) is made on a copy of it (`CREATE DATABASE … TEMPLATE`), and
//! `check` must exit 1 naming that check alone and the keys it broke, with every other check passing.

use oltpgen_driver::local::{LocalPg, Placement};

use crate::common::{oltpgen, sql};
use crate::corruptions::{self, Corruption};

/// Each check's number and verdict from `check`'s output, in order.
fn verdicts<'a>(stdout: &'a str, prefix: &str) -> Vec<(&'a str, &'a str)> {
    stdout
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| {
            let mut f = l.split_whitespace();
            (f.next().unwrap_or(""), f.next().unwrap_or(""))
        })
        .collect()
}

/// Loads `workload` once into database `source` of a throwaway server, checks that the load is clean,
/// then for each corruption checks a corrupted copy of it.
async fn each_corruption_fails_its_check_alone(
    workload: &str,
    load: &[&str],
    prefix: &str,
    table: &[Corruption],
) {
    let pg = LocalPg::start(&Placement::Temp, 20, &crate::common::test_stderr()).expect("a server");
    let admin = sql(&pg.target("postgres")).await;
    admin.batch_execute(&format!("CREATE DATABASE {workload}")).await.unwrap();
    let url = pg.url(workload);
    let out = oltpgen(&[&[workload, "load", "--url", &url, "-q"][..], load].concat());
    assert_eq!(out.code, 0, "{}", out.all());
    let out = oltpgen(&[workload, "check", "--url", &url]);
    assert_eq!(out.code, 0, "the fresh load is consistent:\n{}", out.all());
    assert_eq!(verdicts(&out.stdout, prefix).len(), table.len(), "{}", out.stdout);

    for c in table {
        let copy = format!("corrupt_{}", c.check.replace('.', "_"));
        admin.batch_execute(&format!("CREATE DATABASE {copy} TEMPLATE {workload}")).await.unwrap();
        let client = sql(&pg.target(&copy)).await;
        for statement in c.sql {
            let changed =
                client.execute(*statement, &[]).await.unwrap_or_else(|e| panic!("{statement}: {e}"));
            assert!(changed > 0, "{}: the corruption changed nothing: {statement}", c.check);
        }
        drop(client);
        let out = oltpgen(&[workload, "check", "--url", &pg.url(&copy)]);
        assert_eq!(out.code, 1, "{}: exit 1 on a failed check:\n{}", c.check, out.all());
        let lines = verdicts(&out.stdout, prefix);
        assert_eq!(lines.len(), table.len(), "{}", out.stdout);
        let failed: Vec<&str> = lines.iter().filter(|(_, v)| *v == "FAIL").map(|(n, _)| *n).collect();
        assert_eq!(failed, [c.check], "{}: only its own check fails:\n{}", c.check, out.stdout);
        assert!(
            lines.iter().all(|(n, v)| *n == c.check || *v == "pass"),
            "{}: every other check passes:\n{}",
            c.check,
            out.stdout
        );
        let line = out.stdout.lines().find(|l| l.starts_with(&format!("{} ", c.check))).unwrap();
        for key in c.keys {
            assert!(line.contains(key), "{}: the offending key '{key}' is named: {line}", c.check);
        }
        assert!(
            out.stderr.contains(&format!("1 of {} consistency conditions fail: {} (", table.len(), c.check)),
            "{}: {}",
            c.check,
            out.stderr
        );
        admin.batch_execute(&format!("DROP DATABASE {copy}")).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tpcc_condition_fails_on_its_own_corruption() {
    each_corruption_fails_its_check_alone("tpcc", &["--scale", "1"], "3.3.2.", &corruptions::TPCC).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_ds2_check_fails_on_its_own_corruption() {
    each_corruption_fails_its_check_alone("ds2", &["--db-size", "10mb"], "ds2.", &corruptions::DS2).await;
}
