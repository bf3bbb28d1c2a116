//! A workload defined in the test at run time ([`oltpgen_datagen::defined`]: two tables, two
//! transactions) on a real PostgreSQL (the built-in one, a throwaway instance): its tables created and
//! loaded by the generic DDL and loader, its drawn transactions run by [`oltpgen_pg::defined`]'s
//! session, and every failure sorted, with no transaction left open and no statement committed alone.

use std::sync::Arc;
use std::time::Duration;

use oltpgen_datagen::Rng;
use oltpgen_datagen::defined::{
    Chars, ColumnSpec, DefinedData, Gen, Mix, ParamSpec, StatementSpec, TableSpec, TxnSpec, Value, Workload,
    WorkloadDef,
};
use oltpgen_datagen::schema::Dataset;
use oltpgen_local::{LocalPg, Placement};
use oltpgen_pg::defined::{Connector, Session};
use oltpgen_vocab::Target;
use oltpgen_vocab::error::Fault;
use oltpgen_vocab::outcome::TxnError;
use tokio_postgres::{Client, NoTls};

/// The test's own connection, named apart from the sessions under test (which are named oltpgen).
async fn connect(target: &Target) -> Client {
    let mut config = oltpgen_pg::target::config(target).expect("a PostgreSQL target").clone();
    let (client, conn) = config
        .application_name("defined_session_test")
        .connect(NoTls)
        .await
        .expect("the test server answers");
    tokio::spawn(conn);
    client
}

/// Accounts with balances, and the transfers made to them: a deposit of a fixed amount updates an
/// account (a numeric parameter) and records the transfer (an int4 and a smallint one); a lookup reads a
/// random account. Parameters are drawn per statement, so the amount is a constant for the two to agree.
fn bank() -> &'static Workload {
    let (account, amount) = (ParamSpec::rows_of(1, "accounts"), ParamSpec::Constant(Value::Int(DEPOSIT)));
    let deposit = vec![
        StatementSpec::new(
            "UPDATE accounts SET balance = balance + $2 WHERE id = $1",
            vec![account.clone(), amount.clone()],
        ),
        StatementSpec::new(
            "INSERT INTO transfers (id, account, amount) \
             VALUES ((SELECT coalesce(max(id), 0) + 1 FROM transfers), $1, $2)",
            vec![account.clone(), amount],
        ),
    ];
    let accounts = vec![
        ColumnSpec::new("id", "int", Gen::Sequence),
        ColumnSpec::new("balance", "numeric(14,2)", Gen::Uniform { min: 0, max: 1_000 }),
        ColumnSpec::new("owner", "char(10)", Gen::Text(Chars { len: 10, min_len: None })),
    ];
    let transfers = vec![
        ColumnSpec::new("id", "int", Gen::Sequence),
        ColumnSpec::new("account", "int", Gen::Constant(Value::Int(1))),
        ColumnSpec::new("amount", "smallint", Gen::Constant(Value::Int(0))),
    ];
    WorkloadDef {
        name: "bank".into(),
        tables: vec![
            TableSpec::new("accounts", 1_500, &["id"], accounts),
            TableSpec::new("transfers", 2, &["id"], transfers),
        ],
        transactions: vec![
            TxnSpec::new("deposit", 3, deposit),
            TxnSpec::new(
                "lookup",
                1,
                vec![StatementSpec::new("SELECT owner FROM accounts WHERE id = $1", vec![account])],
            ),
        ],
        checks: Vec::new(),
        headline: None,
    }
    .intern()
    .expect("a valid definition")
}

/// What every drawn deposit deposits.
const DEPOSIT: i64 = 70;

/// The total of every balance, and the transfers' count and total, in cents.
async fn totals(admin: &Client) -> (i64, i64, i64) {
    let row = admin
        .query_one(
            "SELECT (SELECT (sum(balance) * 100)::int8 FROM accounts), count(*), coalesce(sum(amount), 0)::int8 * 100 \
             FROM transfers",
            &[],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1), row.get(2))
}

/// Every oltpgen session's state as pg_stat_activity shows it (the test's own connections are not
/// named oltpgen).
async fn session_states(admin: &Client) -> Vec<String> {
    let rows = admin
        .query("SELECT state FROM pg_stat_activity WHERE application_name = 'oltpgen' ORDER BY pid", &[])
        .await
        .unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

/// Runs a deposit of `amount` into `account`, its two statements given explicitly.
async fn deposit(session: &Session, account: i64, amount: i64) -> Result<(), TxnError> {
    let values = ints(&[account, amount]);
    session.run(&[(0, &values), (1, &values)]).await.map(|_| ())
}

/// Integers as a call's values.
fn ints(values: &[i64]) -> Vec<Value> {
    values.iter().map(|&v| Value::Int(v)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_defined_workload_loads_runs_and_sorts_its_failures() {
    let said = oltpgen_vocab::console::ErrLines::new(|line| eprintln!("{line}"));
    let pg = LocalPg::start(&Placement::Temp, 20, &said).expect("a server");
    let target = pg.target("postgres");
    let admin = connect(&target).await;
    let workload = bank();

    // Loaded by the generic DDL and loader, at scale 2.
    let data = Arc::new(DefinedData::new(workload, 2, 42).unwrap());
    for table in workload.tables() {
        admin.batch_execute(&oltpgen_pg::schema::create_table(table)).await.unwrap();
    }
    let numbered = data.chunks().into_iter().enumerate().map(|(i, c)| (i as u32, c)).collect();
    oltpgen_pg::bulk::load_marked(&target, 2, data.clone(), numbered, None, |_| ()).await.unwrap();
    for table in workload.tables() {
        admin.batch_execute(&oltpgen_pg::schema::primary_key(table).unwrap()).await.unwrap();
        let count: i64 =
            admin.query_one(&format!("SELECT count(*) FROM {}", table.name), &[]).await.unwrap().get(0);
        assert_eq!(count as u64, data.rows_of(table.name), "{}", table.name);
    }
    let (balances, transfers, moved) = totals(&admin).await;
    assert_eq!((transfers, moved), (4, 0));

    let statements: Vec<String> = workload.statements().iter().map(|s| s.to_string()).collect();
    let connector = Connector::new(target.clone(), statements.clone());
    connector.ready().await.expect("every statement prepares and binds integers");
    let session = connector.open().await.unwrap();

    // One deposit: both statements committed together (the amount binds as numeric, then as smallint).
    let before: i64 = admin
        .query_one("SELECT (balance * 100)::int8 FROM accounts WHERE id = 3000", &[])
        .await
        .unwrap()
        .get(0);
    deposit(&session, 3_000, 250).await.unwrap();
    let after: i64 = admin
        .query_one("SELECT (balance * 100)::int8 FROM accounts WHERE id = 3000", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(after - before, 25_000);
    assert_eq!(totals(&admin).await, (balances + 25_000, 5, 25_000));

    // Drawn transactions: every one commits, and every deposit's money is in one account and one transfer.
    let mix = Mix::new(workload, 2, 0).unwrap();
    let mut rng = Rng::new(7);
    let mut deposits = 0;
    for _ in 0..200 {
        let draw = mix.next(&mut rng);
        session.run(&draw.calls()).await.unwrap();
        if draw.txn == 0 {
            deposits += 1;
        }
    }
    let (balances_now, transfers_now, moved_now) = totals(&admin).await;
    assert!((100..200).contains(&deposits), "{deposits} deposits of 200");
    assert_eq!(transfers_now, 5 + deposits);
    assert_eq!(moved_now, 25_000 + deposits * DEPOSIT * 100);
    assert_eq!(balances_now - balances, moved_now, "each deposit's two statements committed together");

    // A value its parameter cannot hold (the smallint amount): fatal, and nothing sent, so the numeric
    // update before it is not committed alone.
    let err = deposit(&session, 1, 40_000).await.unwrap_err();
    assert_eq!(err.fault, Fault::Fatal);
    assert_eq!(totals(&admin).await, (balances_now, transfers_now, moved_now));

    // A statement the server refuses at run time (a duplicate key: the transfer's id given): fatal, the
    // update before it rolled back, and the session idle, not in a transaction.
    let bad = Connector::new(
        target.clone(),
        vec![statements[0].clone(), "INSERT INTO transfers (id, account, amount) VALUES (1, $1, 0)".into()],
    );
    let bad_session = bad.open().await.unwrap();
    let err = bad_session.run(&[(0, &ints(&[1, 100])), (1, &ints(&[1]))]).await.unwrap_err();
    assert_eq!(err.fault, Fault::Fatal);
    assert_eq!(totals(&admin).await, (balances_now, transfers_now, moved_now), "rolled back");
    let states = session_states(&admin).await;
    assert!(states.len() >= 2 && states.iter().all(|s| s == "idle"), "no transaction left open: {states:?}");
    deposit(&session, 1, 1).await.expect("the connection is ready for the next transaction");
    drop(bad_session);

    // A statement that does not prepare: refused by ready in one line naming it, and fatal to open.
    let broken = Connector::new(target.clone(), vec!["UPDATE accounts SET nothing = $1".into()]);
    let line = broken.ready().await.unwrap_err().to_string();
    assert!(
        line.contains("statement 1 (UPDATE accounts SET nothing = $1)") && line.contains("nothing"),
        "{line}"
    );
    assert!(!line.contains('\n'), "{line}");
    assert_eq!(broken.open().await.err(), Some(TxnError { fault: Fault::Fatal }));
    // A parameter an integer cannot bind: ready says which, and the cast that fixes it.
    let text = Connector::new(target.clone(), vec!["SELECT count(*) FROM accounts WHERE owner = $1".into()]);
    let line = text.ready().await.unwrap_err().to_string();
    assert!(
        line.contains("$1 is bpchar, and its parameter draws integers: cast it in the SQL, as $1::int8"),
        "{line}"
    );

    // A deadlock: each of two transactions holds the account the other updates next; the server fails
    // one, which is retryable, and the other commits.
    let crossing = Connector::new(
        target.clone(),
        vec!["UPDATE accounts SET balance = balance + 1 WHERE id = $1".into(), "SELECT pg_sleep(0.3)".into()],
    );
    let (a, b) = (crossing.open().await.unwrap(), crossing.open().await.unwrap());
    let (ten, eleven) = (ints(&[10]), ints(&[11]));
    let forth: [(usize, &[Value]); 3] = [(0, &ten), (1, &[]), (0, &eleven)];
    let back: [(usize, &[Value]); 3] = [(0, &eleven), (1, &[]), (0, &ten)];
    let (ra, rb) = tokio::join!(a.run(&forth), b.run(&back));
    let faults: Vec<_> = [ra, rb].into_iter().filter_map(Result::err).map(|e| e.fault).collect();
    assert_eq!(faults, [Fault::Retryable], "one of the two is the deadlock's victim");

    // A terminated backend: the connection is lost.
    admin
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'oltpgen'",
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(deposit(&session, 1, 1).await.unwrap_err(), TxnError::LOST);
}
