//! `tpcc load`, `check` and `drop` against the built-in PostgreSQL, through the binary.

use crate::common::{
    PG_OWN_FUNCTION, SECRET, assert_no_secret, assert_refused, data_dir, oltpgen, pg_objects, sql,
    start_server,
};

fn check_lines(stdout: &str) -> Vec<(&str, &str)> {
    stdout
        .lines()
        .filter(|l| l.starts_with("3.3.2."))
        .map(|l| {
            let mut f = l.split_whitespace();
            (f.next().unwrap_or(""), f.next().unwrap_or(""))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn load_check_corrupt_refuse_replace_and_drop() {
    let (_keep, root) = data_dir();
    let dd = ["--data-dir", root.as_str()];
    let run = |args: &[&str]| oltpgen(&[args, &dd[..]].concat());

    let out = run(&["tpcc", "load", "--scale", "1", "--quiet"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded tpcc scale 1"), "{}", out.stdout);

    let out = run(&["tpcc", "check"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let lines = check_lines(&out.stdout);
    assert_eq!(lines.len(), 12, "{}", out.stdout);
    assert!(lines.iter().all(|(_, s)| *s == "pass"), "{}", out.stdout);

    // The server stopped with the command, and the data stayed.
    let out = run(&["local", "status"]);
    assert!(
        out.stdout.contains("initialised: yes") && out.stdout.contains("running:     no"),
        "{}",
        out.stdout
    );

    let out = run(&["tpcc", "load", "--scale", "1"]);
    assert_refused(&out, "already holds a tpcc database (scale 1): pass --replace");

    // One wrong d_ytd breaks W_YTD = sum(D_YTD) and D_YTD = sum(H_AMOUNT), and nothing else.
    {
        let pg = start_server(&root);
        let client = sql(&pg.target("tpcc")).await;
        client
            .batch_execute("UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 7")
            .await
            .unwrap();
    }
    let out = run(&["tpcc", "check"]);
    assert_eq!(out.code, 1, "{}", out.all());
    let failed: Vec<&str> =
        check_lines(&out.stdout).into_iter().filter(|(_, s)| *s == "FAIL").map(|(n, _)| n).collect();
    assert_eq!(failed, ["3.3.2.1", "3.3.2.9"], "{}", out.stdout);
    assert!(out.stdout.contains("w_id=1 d_id=7"), "the offending district is named: {}", out.stdout);
    assert!(out.stderr.contains("2 of 12 consistency conditions fail: 3.3.2.1, 3.3.2.9"), "{}", out.stderr);

    // A load that died half-way is recognised by every command.
    {
        let pg = start_server(&root);
        let client = sql(&pg.target("tpcc")).await;
        client.batch_execute("UPDATE oltpgen_meta SET state = 'loading'").await.unwrap();
    }
    assert_refused(&run(&["tpcc", "check"]), "started and did not finish: reload it");
    assert_refused(&run(&["tpcc", "load", "--scale", "1"]), "did not finish: pass --replace");

    let out = run(&["tpcc", "load", "--scale", "1", "--replace", "--quiet"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = run(&["tpcc", "check"]);
    assert_eq!(out.code, 0, "{}", out.all());

    {
        let pg = start_server(&root);
        let client = sql(&pg.target("tpcc")).await;
        let made = pg_objects(&client).await;
        assert!(made.len() >= 6 && made.iter().all(|o| o.starts_with("oltpgen_tpcc_")), "{made:?}");
        client.batch_execute(PG_OWN_FUNCTION).await.unwrap();
    }
    let out = run(&["tpcc", "drop"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("dropped the tpcc tables"), "{}", out.stdout);
    {
        let pg = start_server(&root);
        let client = sql(&pg.target("tpcc")).await;
        assert_eq!(
            pg_objects(&client).await,
            ["users_own"],
            "drop leaves the user's function alone, and only it"
        );
    }
    assert_refused(&run(&["tpcc", "check"]), "holds no tpcc database: load it first");
    assert_no_secret(&run(&["local", "rm"]));
}

/// The CSV files hold exactly the rows the binary COPY loads, PostgreSQL's `COPY … (FORMAT csv)` reads
/// them, and the same seed writes the same bytes.
#[tokio::test(flavor = "multi_thread")]
async fn csv_files_hold_the_rows_the_loader_loads() {
    let (keep, root) = data_dir();
    let csv = keep.path().join("csv");
    let csv_again = keep.path().join("csv-again");
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--seed", "7", "--data-dir", &root, "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    for dir in [&csv, &csv_again] {
        let out =
            oltpgen(&["tpcc", "load", "--scale", "1", "--seed", "7", "--csv", dir.to_str().unwrap(), "-q"]);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--csv", csv.to_str().unwrap()]);
    assert_refused(&out, "pass --replace to overwrite them");

    let pg = start_server(&root);
    let client = sql(&pg.target("tpcc")).await;
    client.batch_execute("CREATE SCHEMA from_csv").await.unwrap();
    for table in oltpgen_datagen::tpcc::schema::Table::ALL {
        let name = table.name();
        let bytes = std::fs::read(csv.join(format!("{name}.csv"))).unwrap();
        assert_eq!(
            bytes,
            std::fs::read(csv_again.join(format!("{name}.csv"))).unwrap(),
            "{name} is deterministic"
        );
        let ddl = oltpgen_driver::pg::schema::create_table(table.def()).replacen(
            name,
            &format!("from_csv.{name}"),
            1,
        );
        client.batch_execute(&ddl).await.unwrap();
        let sink = client
            .copy_in::<_, bytes::Bytes>(&format!("COPY from_csv.{name} FROM STDIN (FORMAT csv)"))
            .await
            .unwrap();
        use futures_util::SinkExt;
        futures_util::pin_mut!(sink);
        sink.send(bytes::Bytes::from(bytes)).await.unwrap();
        sink.finish().await.unwrap();
        let digest = |schema: &str| {
            format!(
                "SELECT count(*)::text || ':' || coalesce(md5(string_agg(h, '' ORDER BY h)), '') \
                 FROM (SELECT md5(t::text) h FROM {schema}.{name} t) s"
            )
        };
        let loaded: String = client.query_one(&digest("public"), &[]).await.unwrap().get(0);
        let from_csv: String = client.query_one(&digest("from_csv"), &[]).await.unwrap().get(0);
        assert_eq!(loaded, from_csv, "{name}: the CSV rows differ from the loaded rows");
        assert!(!loaded.starts_with("0:"), "{name} is empty");
    }
}

/// `oltpgen local`: start it, print a URL other tools can use, stop it, remove it.
#[tokio::test(flavor = "multi_thread")]
async fn the_built_in_server_can_be_started_reached_stopped_and_removed() {
    let (_keep, root) = data_dir();
    let run = |args: &[&str]| oltpgen(&[args, &["--data-dir", root.as_str()][..]].concat());
    let out = run(&["local", "start"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let out = run(&["local", "url"]);
    let url = out.stdout.trim().to_string();
    assert!(url.starts_with("postgres://oltpgen@127.0.0.1:") && url.contains("/tpcc?passfile=/"), "{url}");
    let client = sql(&oltpgen_driver::engine::parse_url(&url).unwrap()).await;
    let one: i32 = client.query_one("SELECT 1", &[]).await.unwrap().get(0);
    assert_eq!(one, 1);
    drop(client);
    assert!(run(&["local", "status"]).stdout.contains("running:     yes"));
    assert!(run(&["local", "stop"]).stdout.contains("stopped"));
    assert!(run(&["local", "status"]).stdout.contains("running:     no"));
    assert!(run(&["local", "rm"]).stdout.contains("removed"));
    assert!(!std::path::Path::new(&root).exists());
}

/// `load --create-database` on a server named by --url: without the flag a missing database is refused
/// in one line naming the flag, and nothing is created; with it `tpcc load` creates the database (from
/// the server's `postgres` database), says so in its line, and loads it, and `tpcc check` passes; `ds2
/// load` takes the flag too, and on a database that exists it creates nothing and says nothing of it.
/// Refused in one line each: a name that does not quote safely, a login without CREATEDB, and the
/// built-in server, which makes its own databases.
#[tokio::test(flavor = "multi_thread")]
async fn load_creates_a_missing_database_only_when_told() {
    let (_keep, root) = data_dir();
    let pg = start_server(&root);
    let admin = sql(&pg.target("postgres")).await;
    let exists = async |name: &str| {
        admin.query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name]).await.unwrap().is_some()
    };
    let created = "(a database --create-database created): ";

    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--quiet", "--url", &pg.url("fresh_tpcc")]);
    assert_refused(
        &out,
        "\"fresh_tpcc\" does not exist; create it first (load with --create-database, or createdb)",
    );
    assert!(!exists("fresh_tpcc").await, "a load without --create-database created it");

    let url = pg.url("fresh_tpcc");
    let out = oltpgen(&["tpcc", "load", "--scale", "1", "--quiet", "--create-database", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let line = format!("loaded tpcc scale 1 into {} {created}", pg.target("fresh_tpcc"));
    assert!(out.stdout.contains(&line), "expected '{line}' in: {}", out.stdout);
    assert!(exists("fresh_tpcc").await);
    let out = oltpgen(&["tpcc", "check", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let lines = check_lines(&out.stdout);
    assert_eq!(lines.len(), 12, "{}", out.stdout);
    assert!(lines.iter().all(|(_, s)| *s == "pass"), "{}", out.stdout);

    let url = pg.url("fresh_ds2");
    let out = oltpgen(&["ds2", "load", "--quiet", "--create-database", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    let line = format!("loaded ds2 --db-size 10MB into {} {created}", pg.target("fresh_ds2"));
    assert!(out.stdout.contains(&line), "expected '{line}' in: {}", out.stdout);
    let out = oltpgen(&["ds2", "load", "--quiet", "--create-database", "--replace", "--url", &url]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("loaded ds2 --db-size 10MB into"), "{}", out.stdout);
    assert!(!out.stdout.contains(created), "an existing database is not created again: {}", out.stdout);

    let out = oltpgen(&["tpcc", "load", "--create-database", "--url", &pg.url("bad.name")]);
    assert_refused(&out, "letters, digits, '_' and '-', not \"bad.name\": create it yourself");
    assert!(!exists("bad.name").await);
    admin.batch_execute(&format!("CREATE ROLE bench LOGIN PASSWORD '{SECRET}'")).await.unwrap();
    let bench = format!("postgres://bench:{SECRET}@127.0.0.1:{}/benchdb", pg.port());
    let out = oltpgen(&["tpcc", "load", "--create-database", "--url", &bench]);
    assert_refused(&out, "permission denied to create database: log in as a role with CREATEDB");
    assert!(!exists("benchdb").await);

    assert_refused(
        &oltpgen(&["tpcc", "load", "--create-database"]),
        "--create-database is for a server named by --url",
    );
    assert_refused(&oltpgen(&["ds2", "load", "--create-database", "--temp-db"]), "cannot be used with");
}

#[test]
fn an_interrupted_throwaway_load_does_not_advise_replace() {
    // A --temp-db load stopped by Ctrl-C: its database went with its server, nothing is left to replace.
    let load = crate::common::spawn(&["tpcc", "load", "--scale", "3", "--temp-db", "-q"]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let pid = load.id().to_string();
    assert!(std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let out = crate::common::finish(load);
    assert_eq!(out.code, 130, "{}", out.all());
    assert!(out.stderr.contains("did not finish; the throwaway database went with it"), "{}", out.stderr);
    assert!(!out.stderr.contains("--replace"), "{}", out.stderr);
}
