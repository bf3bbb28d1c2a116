//! The defined workload's tests: its file shape, its checks, its data and its mix.

use std::collections::BTreeSet;

use super::check::placeholders;
use super::rows::CHUNK_ROWS;
use super::*;
use crate::Rng;
use crate::encode::Csv;
use crate::schema::Dataset;
use crate::testing::{Capture, Checker, V};

/// Two tables, two transactions: every generator and every parameter kind.
fn bank() -> WorkloadDef {
    let text = |s: &str| Gen::Constant(Value::Text(s.into()));
    WorkloadDef {
        name: "bank".into(),
        tables: vec![
            TableSpec::new(
                "branches",
                3,
                &["id"],
                vec![
                    ColumnSpec::new("id", "smallint", Gen::Sequence),
                    ColumnSpec::new("city", "varchar(20)", Gen::Text(Chars { len: 12, min_len: None })),
                ],
            ),
            TableSpec::new(
                "accounts",
                25_000,
                &["branch", "id"],
                vec![
                    ColumnSpec::new("branch", "int", Gen::Uniform { min: 1, max: 3 }),
                    ColumnSpec::new("id", "integer", Gen::Sequence),
                    ColumnSpec::new("balance", "numeric(12,2)", Gen::Uniform { min: 0, max: 1000 }),
                    ColumnSpec::new("owner", "char(8)", Gen::Text(Chars { len: 8, min_len: None })),
                    ColumnSpec::new("note", "varchar(10)", text("new")),
                    ColumnSpec::new("opened", "date", Gen::Uniform { min: 0, max: 20_000 }),
                    ColumnSpec::new("seen", "timestamp", Gen::Constant(Value::Int(1_700_000_000))),
                ],
            ),
        ],
        transactions: vec![
            TxnSpec::new(
                "deposit",
                3,
                vec![
                    StatementSpec::new(
                        "UPDATE accounts SET balance = balance + $2 WHERE id = $1",
                        vec![ParamSpec::rows_of(1, "accounts"), ParamSpec::uniform(1, 100)],
                    ),
                    StatementSpec::new(
                        "SELECT city FROM branches WHERE id = $1",
                        vec![ParamSpec::rows_of(1, "branches")],
                    ),
                ],
            ),
            TxnSpec::new(
                "audit",
                1,
                vec![StatementSpec::new(
                    "SELECT count(*) FROM accounts WHERE balance > $1 AND note = 'x$2'",
                    vec![ParamSpec::Constant(Value::Int(500))],
                )],
            ),
        ],
        checks: Vec::new(),
        headline: None,
    }
}

#[test]
fn a_definition_reads_from_its_file_shape_and_writes_back() {
    let json = r#"{
        "name": "bank",
        "tables": [
            { "name": "branches", "rows": 3, "primary_key": ["id"], "columns": [
                { "name": "id", "ty": "smallint", "gen": "sequence" },
                { "name": "city", "ty": "varchar(20)", "gen": { "text": { "len": 12 } } } ] },
            { "name": "accounts", "rows": 25000, "primary_key": ["branch", "id"], "columns": [
                { "name": "branch", "ty": "int", "gen": { "uniform": { "min": 1, "max": 3 } } },
                { "name": "id", "ty": "integer", "gen": "sequence" },
                { "name": "balance", "ty": "Numeric(12, 2)", "gen": { "uniform": { "min": 0, "max": 1000 } } },
                { "name": "owner", "ty": "char(8)", "gen": { "text": { "len": 8 } } },
                { "name": "note", "ty": "varchar(10)", "gen": { "constant": "new" } },
                { "name": "opened", "ty": "date", "gen": { "uniform": { "min": 0, "max": 20000 } } },
                { "name": "seen", "ty": "timestamp", "gen": { "constant": 1700000000 } } ] }
        ],
        "transactions": [
            { "name": "deposit", "weight": 3, "statements": [
                { "sql": "UPDATE accounts SET balance = balance + $2 WHERE id = $1",
                  "params": [{ "uniform": { "min": 1, "rows_of": "accounts" } }, { "uniform": { "min": 1, "max": 100 } }] },
                { "sql": "SELECT city FROM branches WHERE id = $1",
                  "params": [{ "uniform": { "min": 1, "rows_of": "branches" } }] } ] },
            { "name": "audit", "weight": 1, "statements": [
                { "sql": "SELECT count(*) FROM accounts WHERE balance > $1 AND note = 'x$2'", "params": [{ "constant": 500 }] } ] }
        ]
    }"#;
    let def: WorkloadDef = serde_json::from_str(json).unwrap();
    assert_eq!(def, bank());
    let written = serde_json::to_string(&def).unwrap();
    assert!(written.contains(r#""ty":"numeric(12,2)""#), "{written}");
    assert_eq!(serde_json::from_str::<WorkloadDef>(&written).unwrap(), def);
    // A misspelt field or type is refused by name, not ignored.
    let typo = json.replacen("\"rows\": 3", "\"row\": 3", 1);
    assert!(serde_json::from_str::<WorkloadDef>(&typo).unwrap_err().to_string().contains("row"));
    let money = json.replacen("\"smallint\"", "\"money\"", 1);
    let err = serde_json::from_str::<WorkloadDef>(&money).unwrap_err().to_string();
    assert!(err.contains(r#"type "money" is not one oltpgen generates"#), "{err}");
}

#[test]
fn types_read_as_sql_spells_them() {
    for (spelled, canonical) in [
        ("INT", "int"),
        ("int4", "int"),
        ("int2", "smallint"),
        ("decimal(5)", "numeric(5,0)"),
        ("numeric( 12 , 2 )", "numeric(12,2)"),
        ("character(3)", "char(3)"),
        ("varchar(7)", "varchar(7)"),
        ("timestamp", "timestamp"),
        ("date", "date"),
        ("BIGINT", "bigint"),
        ("int8", "bigint"),
        ("double precision", "float"),
        ("boolean", "bool"),
        ("text", "text"),
    ] {
        assert_eq!(spelled.parse::<SqlType>().unwrap().to_string(), canonical, "{spelled}");
    }
    for bad in
        ["money", "numeric(3,4)", "numeric(39,0)", "char(0)", "varchar", "int(4)", "text(5)", "varchar(7"]
    {
        assert!(bad.parse::<SqlType>().is_err(), "{bad}");
    }
}

#[test]
fn bad_definitions_are_refused_with_one_line_naming_the_part() {
    type Edit = fn(&mut WorkloadDef);
    let cases: &[(Edit, &str)] = &[
        (|d| d.name = "Bank".into(), r#"workload name "Bank" is not an SQL identifier"#),
        (|d| d.tables.clear(), "workload bank: no tables"),
        (|d| d.transactions.clear(), "workload bank: no transactions"),
        (|d| d.tables[1].name = "branches".into(), r#"table "branches" is defined twice"#),
        (|d| d.tables[0].name = "order".into(), r#"table name "order" is a reserved SQL word"#),
        (|d| d.transactions[1].name = "deposit".into(), r#"transaction "deposit" is defined twice"#),
        (|d| d.transactions[0].name = "1st".into(), r#"transaction name "1st" is not an SQL identifier"#),
        (|d| d.transactions[1].weight = 0, "transaction audit: weight 0"),
        (
            |d| d.transactions[1].name = "rt_tot".into(),
            "transaction rt_tot: rt_tot names DS2's composite entry",
        ),
        (|d| d.checks = vec![CheckSpec::new(" ", "SELECT 1")], "check 1: give it a name"),
        (|d| d.transactions[1].statements.clear(), "transaction audit: no statements"),
        (|d| d.tables[0].columns[1].name = "id".into(), r#"table branches: column "id" is defined twice"#),
        (|d| d.tables[0].primary_key = vec!["key".into()], r#"table branches: primary key names "key""#),
        (
            |d| d.tables[1].primary_key = vec!["branch".into()],
            "table accounts: no primary-key column is generated",
        ),
        (|d| d.tables[0].rows = 40_000.into(), "table branches, column id: 40000 rows overflow smallint"),
        (
            |d| d.tables[0].columns[1].generator = Gen::Sequence,
            "column city: an integer generator cannot fill varchar(20)",
        ),
        (
            |d| d.tables[1].columns[3].generator = Gen::Text(Chars { len: 7, min_len: None }),
            "column owner: text of 7 characters for char(8): make it 8",
        ),
        (
            |d| d.tables[0].columns[1].generator = Gen::Text(Chars { len: 21, min_len: None }),
            "column city: text of 21 characters for varchar(20): give 1 to 20",
        ),
        (
            |d| d.tables[1].columns[0].generator = Gen::Text(Chars { len: 2, min_len: None }),
            "column branch: a text generator cannot fill int",
        ),
        (
            |d| d.tables[1].columns[0].generator = Gen::Uniform { min: 2, max: 1 },
            "column branch: min 2 is above max 1",
        ),
        (
            |d| d.tables[1].columns[2].generator = Gen::Uniform { min: 0, max: 10_000_000_000 },
            "column balance: [0, 10000000000] does not fit numeric(12,2)",
        ),
        (
            |d| d.tables[1].columns[5].generator = Gen::Constant(Value::Int(3_000_000)),
            "column opened: 3000000 does not fit date",
        ),
        (
            |d| d.tables[1].columns[4].generator = Gen::Constant(Value::Text("much too long".into())),
            r#"column note: the constant "much too long" does not fit varchar(10)"#,
        ),
        (
            |d| d.transactions[0].statements[0].params.truncate(1),
            "transaction deposit, statement 1: uses $2 but gives 1 params",
        ),
        (
            |d| d.transactions[1].statements[0].params.push(ParamSpec::Constant(Value::Int(1))),
            "transaction audit, statement 1: gives 2 params but never uses $2",
        ),
        (
            |d| d.transactions[0].statements[1].params[0] = ParamSpec::rows_of(1, "branch"),
            r#"transaction deposit, statement 2, $1: rows_of names "branch", which is not one of the tables"#,
        ),
        (
            |d| d.transactions[0].statements[1].params[0] = ParamSpec::rows_of(4, "branches"),
            "transaction deposit, statement 2, $1: min 4 is above the 3 rows of branches at scale 1",
        ),
        (
            |d| {
                d.transactions[0].statements[1].params[0] =
                    ParamSpec::Uniform { min: 1, max: None, rows_of: None }
            },
            "statement 2, $1: give either max or rows_of",
        ),
        (
            |d| d.transactions[0].statements[1].sql = " ".into(),
            "transaction deposit, statement 2: the SQL is empty",
        ),
    ];
    assert_eq!(bank().check(), Ok(()));
    for (edit, expected) in cases {
        let mut def = bank();
        edit(&mut def);
        let err = def.clone().intern().expect_err(expected);
        assert!(err.contains(expected), "{err}\n  expected: {expected}");
        assert!(!err.contains('\n'), "{err}");
    }
}

#[test]
fn placeholders_are_read_as_postgresql_reads_them() {
    let used = |sql: &str| placeholders(sql).into_iter().collect::<Vec<_>>();
    assert_eq!(used("SELECT $1, $2 + $10 FROM t WHERE a = $1"), [1, 2, 10]);
    assert_eq!(used("SELECT '$1', \"$2\", $3 -- $4\n, /* $5 */ $6"), [3, 6]);
    assert_eq!(used("SELECT 'it''s $1', $2"), [2]);
    assert_eq!(used("SELECT $$ $1 $$, $tag$ $2 $tag$, $3"), [3]);
    assert_eq!(used("SELECT a$1 FROM t WHERE b = $0"), [0]);
}

/// The CSV of every chunk of `data`, in `chunks`' order.
fn csv_of(data: &DefinedData, chunks: &[Chunk]) -> Vec<Vec<u8>> {
    chunks
        .iter()
        .map(|&c| {
            let mut out = Csv::new(Vec::new());
            data.write(c, &mut out);
            assert_eq!(out.rows(), data.rows_in(c), "{c:?}");
            out.into_inner()
        })
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_bytes_in_any_order() {
    let workload = bank().intern().unwrap();
    let data = DefinedData::new(workload, 2, 7).unwrap();
    let chunks = data.chunks();
    let forward = csv_of(&data, &chunks);
    let mut reversed: Vec<Chunk> = chunks.clone();
    reversed.reverse();
    let mut backward = csv_of(&DefinedData::new(workload, 2, 7).unwrap(), &reversed);
    backward.reverse();
    assert!(forward == backward, "a chunk depends on what was generated before it");
    let other_seed = csv_of(&DefinedData::new(workload, 2, 8).unwrap(), &chunks);
    assert!(forward.iter().zip(&other_seed).all(|(a, b)| a != b), "the seed reaches every table");
    // A bigger scale adds chunks; the ones both have are the same.
    let bigger = DefinedData::new(workload, 5, 7).unwrap();
    assert_eq!(csv_of(&bigger, &chunks[..1]), forward[..1]);
}

#[test]
fn rows_are_counted_exactly_and_scale_multiplies_them() {
    let workload = bank().intern().unwrap();
    for scale in [1, 3] {
        let data = DefinedData::new(workload, scale, 1).unwrap();
        let rows = data.rows_by_table();
        assert_eq!(rows.get("accounts"), Some(&(25_000 * scale)));
        assert_eq!(rows.get("branches"), Some(&(3 * scale)));
        let chunks = data.chunks();
        assert_eq!(chunks.len() as u64, (25_000 * scale).div_ceil(CHUNK_ROWS) + 1);
        assert_eq!(chunks[0], Chunk { table: 1, part: 0 }, "the biggest table first");
        assert!(chunks.iter().all(|&c| data.rows_in(c) <= CHUNK_ROWS));
        let mut written = 0;
        for &c in &chunks {
            let mut checker = Checker::new(data.table_of(c));
            data.write(c, &mut checker);
            assert_eq!(checker.rows, data.rows_in(c), "{c:?}");
            written += checker.rows;
        }
        assert_eq!(written, data.total_rows());
        assert!(data.indexes().is_empty());
    }
    // A table the transactions fill: no chunks, 0 rows.
    let mut empty = bank();
    empty.tables[0].rows = 0.into();
    empty.transactions[0].statements[1].params[0] = ParamSpec::uniform(1, 3);
    let empty = DefinedData::new(empty.intern().unwrap(), 4, 1).unwrap();
    assert!(empty.chunks().iter().all(|c| c.table == 1));
    assert_eq!(empty.rows_of("branches"), 0);
}

#[test]
fn values_follow_their_generators() {
    let workload = bank().intern().unwrap();
    let data = DefinedData::new(workload, 3, 1).unwrap();
    let last = Chunk { table: 1, part: 7 };
    let mut capture = Capture::default();
    data.write(last, &mut capture);
    let rows = crate::testing::Rows { table: data.table_of(last), rows: capture.rows };
    assert_eq!(
        rows.ints("id"),
        (70_001..=75_000).collect::<Vec<_>>(),
        "the sequence numbers rows at the scale"
    );
    let branches = rows.ints("branch");
    assert!(branches.iter().all(|b| (1..=3).contains(b)) && (1..=3).all(|b| branches.contains(&b)));
    assert!(rows.get("balance").all(|v| v.num() % 100 == 0 && (0..=100_000).contains(&v.num())));
    assert!(rows.get("owner").all(|v| v.text().len() == 8 && v.text().iter().all(u8::is_ascii_alphanumeric)));
    assert!(rows.get("note").all(|v| v.text() == b"new"));
    assert!(rows.get("opened").all(|v| matches!(v, V::Date(d) if (0..=20_000).contains(d))));
    assert!(rows.get("seen").all(|v| *v == V::Ts(1_700_000_000_000_000)));
    let table = workload.tables()[1];
    assert_eq!(table.name, "accounts");
    assert_eq!(table.primary_key, ["branch", "id"]);
    assert_eq!(table.column_names(), ["branch", "id", "balance", "owner", "note", "opened", "seen"]);
}

#[test]
fn a_scale_too_big_for_a_sequence_is_refused() {
    let workload = bank().intern().unwrap();
    let err = DefinedData::new(workload, 20_000, 1).unwrap_err();
    assert_eq!(
        err,
        "scale 20000: table branches would hold 60000 rows, more than column id (smallint) numbers: use a \
         smaller scale or a wider type"
    );
    assert!(Mix::new(workload, 0, 0).unwrap_err().contains("scale 0 holds no rows"));
    assert!(DefinedData::new(workload, u64::MAX, 1).unwrap_err().contains("too many rows"));
}

#[test]
fn the_mix_honours_the_weights_and_keeps_keys_in_the_loaded_rows() {
    let workload = bank().intern().unwrap();
    assert_eq!(workload.txn_names(), ["deposit", "audit"]);
    assert_eq!(workload.statements().len(), 3);
    let mix = Mix::new(workload, 4, 0).unwrap();
    let mut rng = Rng::new(5);
    let (mut counts, mut top_account) = ([0u32; 2], 0);
    let draws = 100_000;
    for _ in 0..draws {
        let draw = mix.next(&mut rng);
        counts[draw.txn] += 1;
        let calls = draw.calls();
        match draw.txn {
            0 => {
                assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), [0, 1]);
                let int = |v: &Value| v.int().unwrap();
                let (account, amount, branch) =
                    (int(&calls[0].1[0]), int(&calls[0].1[1]), int(&calls[1].1[0]));
                assert!((1..=100_000).contains(&account), "{account}");
                assert!((1..=100).contains(&amount) && (1..=12).contains(&branch));
                top_account = top_account.max(account);
            }
            _ => assert_eq!(calls, [(2, &[Value::Int(500)][..])]),
        }
    }
    // 3 : 1; the deposits' share has a standard error of 0.14%.
    let share = f64::from(counts[0]) / f64::from(draws);
    assert!((0.745..0.755).contains(&share), "{counts:?}");
    assert!(top_account > 99_000, "rows_of reaches the rows at scale 4: {top_account}");
    // The same generator, the same draws.
    let again = |seed| (0..50).map(|_| mix.next(&mut Rng::new(seed)).values).collect::<Vec<_>>();
    assert_eq!(again(9), again(9));
}

#[test]
fn each_dialect_runs_its_own_sql_else_the_common_one() {
    let mut def: WorkloadDef = serde_json::from_value(serde_json::json!({
        "name": "w",
        "tables": [{ "name": "t", "rows": 10, "primary_key": ["id"],
                     "columns": [{ "name": "id", "ty": "int", "gen": "sequence" }] }],
        "transactions": [{ "name": "r", "weight": 1, "statements": [
            { "sql": "SELECT id FROM t WHERE id = $1", "sql_mssql": "SELECT TOP 1 id FROM t WHERE id = $1",
              "params": [{ "constant": 1 }] } ] }],
    }))
    .unwrap();
    let workload = def.clone().intern().unwrap();
    assert_eq!(workload.statements_in(Dialect::Mysql), ["SELECT id FROM t WHERE id = $1"]);
    assert_eq!(workload.statements_in(Dialect::Mssql), ["SELECT TOP 1 id FROM t WHERE id = $1"]);
    // Each dialect's SQL uses every parameter, as the common one must.
    def.transactions[0].statements[0].sql_mysql = Some("SELECT id FROM t".into());
    let refused = def.check().unwrap_err();
    assert!(refused.contains("statement 1, sql_mysql: gives 1 params but never uses $1"), "{refused}");
}

#[test]
fn a_named_parameter_is_drawn_once_per_transaction_and_numbered_per_statement() {
    let def: WorkloadDef = serde_json::from_value(serde_json::json!({
        "name": "w",
        "tables": [{ "name": "t", "rows": 1000, "primary_key": ["id"],
                     "columns": [{ "name": "id", "ty": "int", "gen": "sequence" }] }],
        "transactions": [{ "name": "move", "weight": 1,
            "params": { "id": { "uniform": { "min": 1, "rows_of": "t" } }, "n": { "uniform": { "min": 1, "max": 9 } } },
            "statements": [
                { "sql": "UPDATE t SET id = id WHERE id = :id AND :n > 0 AND id::int = :id" },
                { "sql": "SELECT :n, ':id'", "sql_mysql": "SELECT :n" } ] }],
    }))
    .unwrap();
    let workload = def.clone().intern().unwrap();
    assert_eq!(
        workload.statements_in(Dialect::Postgres),
        ["UPDATE t SET id = id WHERE id = $1 AND $2 > 0 AND id::int = $1", "SELECT $1, ':id'"]
    );
    assert_eq!(workload.statements_in(Dialect::Mysql)[1], "SELECT $1");
    let mix = Mix::new(workload, 1, 0).unwrap();
    let mut rng = Rng::new(7);
    for _ in 0..100 {
        let draw = mix.next(&mut rng);
        let calls = draw.calls();
        // :id once, :n in both statements: the same values.
        assert_eq!(calls[0].1[1], calls[1].1[0]);
        assert!((1..=1000).contains(&calls[0].1[0].int().unwrap()));
    }

    let mut undefined = def.clone();
    undefined.transactions[0].statements[1].sql = "SELECT :m".into();
    let refused = undefined.intern().unwrap_err();
    assert!(refused.contains("statement 2: parameter :m is used but not defined: define it"), "{refused}");
    let mut unused = def;
    unused.transactions[0].params.insert("z".into(), ParamSpec::Constant(Value::Int(1)));
    let refused = unused.intern().unwrap_err();
    assert!(refused.contains("parameter z is defined but no statement uses :z"), "{refused}");
}

#[test]
fn every_column_and_parameter_generator_stays_in_its_range() {
    let def: WorkloadDef = serde_json::from_value(serde_json::json!({
        "name": "w",
        "tables": [
            { "name": "items", "rows": 50, "primary_key": ["id"],
              "columns": [{ "name": "id", "ty": "int", "gen": "sequence" }] },
            { "name": "t", "rows": 2000, "primary_key": ["id"], "columns": [
                { "name": "id", "ty": "int", "gen": "sequence" },
                { "name": "n", "ty": "int", "gen": { "nurand": { "a": 255, "min": 0, "max": 999 } } },
                { "name": "z", "ty": "int", "gen": { "zipfian": { "min": 1, "max": 100, "theta": 0.99 } } },
                { "name": "e", "ty": "int", "gen": { "exponential": { "min": 1, "max": 100, "parameter": 5.0 } } },
                { "name": "g", "ty": "int", "gen": { "gaussian": { "min": 1, "max": 100, "parameter": 2.5 } } },
                { "name": "k", "ty": "int", "gen": { "key_of": "items" } },
                { "name": "c", "ty": "varchar(4)", "gen": { "choice": ["new", "paid"] } },
                { "name": "s", "ty": "varchar(20)", "gen": { "text": { "len": 20, "min_len": 5 } } },
                { "name": "d", "ty": "char(16)", "gen": { "digits": { "len": 16 } } } ] } ],
        "transactions": [{ "name": "r", "weight": 1, "statements": [
            { "sql": "SELECT $1, $2, $3, $4, $5, $6", "params": [
                { "nurand": { "a": 1023, "min": 1, "rows_of": "t" } },
                { "zipfian": { "min": 1, "rows_of": "items", "theta": 0.5 } },
                { "exponential": { "min": 1, "max": 10, "parameter": 1.0 } },
                { "gaussian": { "min": 1, "max": 10, "parameter": 3.0 } },
                { "choice": [3, 5, 7] },
                { "uniform": { "min": 1, "max": 2 } } ] } ] }],
    }))
    .unwrap();
    let workload = def.intern().unwrap();
    let data = DefinedData::new(workload, 2, 9).unwrap();
    let chunk = Chunk { table: 1, part: 0 };
    let mut capture = Capture::default();
    data.write(chunk, &mut capture);
    let rows = crate::testing::Rows { table: data.table_of(chunk), rows: capture.rows };
    assert!(rows.ints("n").iter().all(|v| (0..=999).contains(v)));
    let z = rows.ints("z");
    assert!(z.iter().all(|v| (1..=100).contains(v)));
    assert!(
        z.iter().filter(|&&v| v == 1).count() > z.iter().filter(|&&v| v == 50).count() * 5,
        "1 is the most popular"
    );
    let e = rows.ints("e");
    assert!(e.iter().all(|v| (1..=100).contains(v)) && e.iter().filter(|&&v| v <= 20).count() > e.len() / 2);
    let g = rows.ints("g");
    assert!(
        g.iter().all(|v| (1..=100).contains(v))
            && g.iter().filter(|&&v| (26..=75).contains(&v)).count() > g.len() / 2
    );
    // key_of reaches every row of the other table at the load's scale (50 × 2).
    let k = rows.ints("k");
    assert!(k.iter().all(|v| (1..=100).contains(v)) && k.iter().any(|&v| v > 50));
    assert!(rows.get("c").all(|v| v.text() == b"new" || v.text() == b"paid"));
    assert!(rows.get("s").all(|v| (5..=20).contains(&v.text().len())));
    assert!(rows.get("s").any(|v| v.text().len() < 20));
    assert!(rows.get("d").all(|v| v.text().len() == 16 && v.text().iter().all(u8::is_ascii_digit)));

    let mix = Mix::new(workload, 2, 0).unwrap();
    let mut rng = Rng::new(5);
    for _ in 0..500 {
        let draw = mix.next(&mut rng);
        let v: Vec<i64> = draw.values.iter().map(|v| v.int().unwrap()).collect();
        assert!((1..=4000).contains(&v[0]) && (1..=100).contains(&v[1]), "{v:?}");
        assert!((1..=10).contains(&v[2]) && (1..=10).contains(&v[3]) && [3, 5, 7].contains(&v[4]), "{v:?}");
    }
}

#[test]
fn a_generator_s_bad_parameter_is_refused_in_one_line() {
    let column = |generator: serde_json::Value| {
        serde_json::from_value::<WorkloadDef>(serde_json::json!({
            "name": "w",
            "tables": [{ "name": "t", "rows": 10, "primary_key": ["id"], "columns": [
                { "name": "id", "ty": "int", "gen": "sequence" }, { "name": "v", "ty": "int", "gen": generator } ] }],
            "transactions": [{ "name": "r", "weight": 1, "statements": [{ "sql": "SELECT 1" }] }],
        }))
        .unwrap()
        .check()
        .unwrap_err()
    };
    let refused = column(serde_json::json!({ "zipfian": { "min": 1, "max": 9, "theta": 1.5 } }));
    assert!(refused.contains("zipfian theta 1.5: give one above 0 and below 1"), "{refused}");
    let refused = column(serde_json::json!({ "gaussian": { "min": 1, "max": 9, "parameter": 1.0 } }));
    assert!(refused.contains("gaussian parameter 1: give one of at least 2"), "{refused}");
    let refused = column(serde_json::json!({ "key_of": "nowhere" }));
    assert!(refused.contains("key_of names \"nowhere\""), "{refused}");
    let refused = column(serde_json::json!({ "choice": ["a"] }));
    assert!(refused.contains("the choice \"a\" does not fit int"), "{refused}");
}

/// A YCSB-shaped table of 100 records and two transactions: a zipfian read and an insert.
fn ycsb_like() -> WorkloadDef {
    let key = |request| ParamSpec::Ycsb { request, rows_of: "usertable".into() };
    WorkloadDef {
        name: "y".into(),
        tables: vec![TableSpec::new(
            "usertable",
            100,
            &["ycsb_key"],
            vec![ColumnSpec::new("ycsb_key", "varchar(24)", Gen::YcsbKey)],
        )],
        transactions: vec![
            TxnSpec::new(
                "read",
                1,
                vec![StatementSpec::new(
                    "SELECT 1 FROM usertable WHERE ycsb_key = 'user' || $1",
                    vec![key(YcsbRequest::Latest)],
                )],
            ),
            TxnSpec::new(
                "insert",
                1,
                vec![StatementSpec::new(
                    "INSERT INTO usertable VALUES ('user' || $1)",
                    vec![key(YcsbRequest::Insert)],
                )],
            ),
        ],
        checks: Vec::new(),
        headline: None,
    }
}

#[test]
fn ycsb_keys_are_user_and_the_hash_and_inserts_take_ranges_of_their_own() {
    let workload = ycsb_like().intern().unwrap();
    let data = DefinedData::new(workload, 1, 1).unwrap();
    let mut csv = Csv::new(Vec::new());
    data.write(Chunk { table: 0, part: 0 }, &mut csv);
    let text = String::from_utf8(csv.into_inner()).unwrap();
    let keys: Vec<&str> = text.lines().collect();
    assert_eq!(keys[0], format!("user{}", crate::ycsb::fnv_hash64(0)));
    assert_eq!(keys[99], format!("user{}", crate::ycsb::fnv_hash64(99)));

    let loaded: std::collections::HashSet<i64> =
        (0..100).map(|n| crate::ycsb::fnv_hash64(n) as i64).collect();
    let inserted = |slot: u64| {
        let mix = Mix::new(workload, 1, slot).unwrap();
        let mut rng = Rng::new(slot);
        let (mut inserts, mut reads) = (Vec::new(), Vec::new());
        for _ in 0..2000 {
            let draw = mix.next(&mut rng);
            let key = draw.values[0].int().unwrap();
            if draw.txn == 1 { inserts.push(key) } else { reads.push(key) }
        }
        // The latest records are read most: the inserted ones among them, and nothing never made.
        let fresh = reads.iter().filter(|r| !loaded.contains(r)).count();
        assert!(fresh > reads.len() / 2, "latest reads favour the new records: {fresh} of {}", reads.len());
        assert!(reads.iter().all(|r| loaded.contains(r) || inserts.contains(r)));
        inserts
    };
    let (a, b) = (inserted(0), inserted(1));
    let a_set: std::collections::HashSet<_> = a.iter().collect();
    assert_eq!(a_set.len(), a.len(), "no record is inserted twice");
    assert!(a.iter().chain(&b).all(|k| !loaded.contains(k)), "inserts are past the loaded records");
    assert!(b.iter().all(|k| !a_set.contains(k)), "two slots (agents, runs) insert different records");
}

#[test]
fn a_ycsb_key_needs_a_varchar_of_24() {
    let mut def = ycsb_like();
    def.tables[0].columns[0].ty = "varchar(10)".parse().unwrap();
    let e = def.check().unwrap_err();
    assert!(
        e.contains("column ycsb_key: ycsb_key makes keys of up to 24 characters: use varchar(24)"),
        "{e}"
    );
}

#[test]
fn timestamps_parse_as_seconds_from_1970_and_bad_ones_are_refused() {
    assert_eq!(parse_timestamp("1970-01-01"), Some(0));
    assert_eq!(parse_timestamp("2000-03-01 00:00:01"), Some(951_868_801));
    assert_eq!(parse_timestamp("2024-02-29 23:59:59"), Some(1_709_251_199));
    for bad in ["2023-02-29", "2024-13-01", "2024-01-01 24:00:00", "yesterday", "2024-1-1x"] {
        assert_eq!(parse_timestamp(bad), None, "{bad}");
    }
    let mut def = bank();
    def.tables[0].columns.push(ColumnSpec::new(
        "opened",
        "timestamp",
        Gen::Timestamp { from: "2024-01-01".into(), to: "last week".into() },
    ));
    assert!(
        def.check().unwrap_err().contains(
            "column opened: timestamp from \"2024-01-01\" to \"last week\": write each as YYYY-MM-DD"
        )
    );
    def.tables[0].columns.pop();
    def.tables[0].indexes = vec![vec!["town".into()]];
    assert!(
        def.check()
            .unwrap_err()
            .contains("table branches, index 1: names \"town\", which is not one of the table's columns")
    );
}

#[test]
fn rows_may_be_pgbench_expressions_of_the_scale() {
    let mut def = bank();
    def.tables[0].rows = Rows::Expr("2 + :scale".into());
    def.tables[1].rows = serde_json::from_str(r#""1000 * :scale""#).unwrap();
    let workload = def.intern().unwrap();
    let data = DefinedData::new(workload, 3, 1).unwrap();
    assert_eq!((data.rows_of("branches"), data.rows_of("accounts")), (5, 3000));
    assert_eq!(
        serde_json::from_str::<Rows>("7").unwrap(),
        Rows::PerScale(7),
        "numbers still count per scale"
    );

    for (rows, says) in [
        ("1000 *", "table branches: rows \"1000 *\": "),
        (":scale - 2", "table branches: rows \":scale - 2\" at scale 1 is int -1, not a count"),
        (":warehouses", "table branches: rows \":warehouses\" at scale 1: "),
    ] {
        let mut def = bank();
        def.tables[0].rows = Rows::Expr(rows.into());
        let e = def.check().unwrap_err();
        assert!(e.contains(says), "{rows}: {e}");
    }
}

#[test]
fn a_bad_ack_is_refused_with_one_line_naming_its_transaction() {
    let ack = |statement, check: &str| AckSpec {
        statement,
        row: false,
        check: check.into(),
        check_mysql: None,
        check_mssql: None,
    };
    let cases: &[(AckSpec, &str)] = &[
        (
            ack(3, "SELECT 1"),
            "transaction deposit, ack: statement = 3: the transaction has statements 1 to 2",
        ),
        (
            ack(0, "SELECT 1"),
            "transaction deposit, ack: statement = 0: the transaction has statements 1 to 2",
        ),
        (ack(2, " "), "transaction deposit, ack: check is empty"),
        (AckSpec { check_mssql: Some("".into()), ..ack(2, "SELECT 1") }, "ack: check_mssql is empty"),
    ];
    for (spec, expected) in cases {
        let mut def = bank();
        def.transactions[0].ack = Some(spec.clone());
        let err = def.intern().expect_err(expected);
        assert!(err.contains(expected), "{err}\n  expected: {expected}");
        assert!(!err.contains('\n'), "{err}");
    }
    let mut def = bank();
    def.transactions[0].ack = Some(ack(2, "SELECT CONCAT_WS(',', account, amount) AS k FROM t"));
    assert!(def.intern().is_ok());
    // More parameters than a key keeps.
    let mut def = bank();
    let sql = "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)";
    def.transactions[0].statements[1] = StatementSpec::new(sql, vec![ParamSpec::Constant(Value::Int(1)); 6]);
    def.transactions[0].ack = Some(ack(2, "SELECT 1"));
    let err = def.clone().intern().unwrap_err();
    assert!(err.contains("statement 2 has 6 parameters; a key keeps at most 5"), "{err}");
    // Keyed by the row it returns, its parameters are no key: only the server can count its columns.
    def.transactions[0].ack = Some(AckSpec { row: true, ..ack(2, "SELECT 1") });
    let workload = def.intern().unwrap();
    let returning: Vec<usize> = (workload.returning().into_iter().enumerate())
        .filter_map(|(i, returns)| returns.then_some(i))
        .collect();
    assert_eq!(returning, [workload.slots(0)[1].statement]);
}

#[test]
fn text_parameters_draw_their_alphabet_and_length_from_the_seed() {
    let mut def = bank();
    let params = BTreeMap::from([
        ("name".to_string(), ParamSpec::Text(Chars { len: 12, min_len: Some(3) })),
        ("zip".to_string(), ParamSpec::Digits(Chars { len: 9, min_len: None })),
        ("state".to_string(), ParamSpec::Choice(vec!["new".into(), "paid".into()])),
        (
            "at".to_string(),
            ParamSpec::Timestamp { from: "2024-02-28".into(), to: "2024-03-01 23:59:59".into() },
        ),
    ]);
    let sql = "INSERT INTO branches VALUES (:name, :zip, :state, :at)";
    def.transactions[1].statements = vec![StatementSpec::new(sql, Vec::new())];
    def.transactions[1].params = params;
    let workload = def.intern().unwrap();
    let kinds = workload.param_kinds();
    use ParamKind::*;
    assert_eq!(kinds[2], [Text, Text, Text, Timestamp]);
    assert_eq!(kinds[0], [Int, Int]);
    let draws = |seed| {
        let mix = Mix::new(workload, 1, 0).unwrap();
        let mut rng = Rng::new(seed);
        (0..2000).map(|_| mix.next(&mut rng)).filter(|d| d.txn == 1).map(|d| d.values).collect::<Vec<_>>()
    };
    let texts = draws(9);
    assert_eq!(texts, draws(9), "the same seed draws the same texts");
    assert_ne!(texts, draws(10));
    let mut lengths = BTreeSet::new();
    for values in &texts {
        let [Value::Text(name), Value::Text(zip), Value::Text(state), Value::Text(at)] = &values[..] else {
            panic!("{values:?}")
        };
        lengths.insert(name.len());
        assert!(name.bytes().all(|b| b.is_ascii_alphanumeric()), "{name}");
        assert!(zip.len() == 9 && zip.bytes().all(|b| b.is_ascii_digit()), "{zip}");
        assert!(["new", "paid"].contains(&state.as_str()));
        let secs = parse_timestamp(at).unwrap_or_else(|| panic!("{at} parses back"));
        assert_eq!(&format_timestamp(secs), at);
        assert!(at.as_str() >= "2024-02-28 00:00:00" && at.as_str() <= "2024-03-01 23:59:59", "{at}");
    }
    assert_eq!(lengths, (3..=12).collect(), "every length of 3 to 12");
}

#[test]
fn bad_text_parameters_are_refused_in_one_line() {
    for (param, says) in [
        (ParamSpec::Text(Chars { len: 0, min_len: None }), "give len of 1 or more"),
        (ParamSpec::Digits(Chars { len: 4, min_len: Some(5) }), "min_len no more than len"),
        (ParamSpec::Choice(vec![1.into(), "a".into()]), "integers only or texts only"),
        (ParamSpec::Timestamp { from: "2024-13-01".into(), to: "2024-12-01".into() }, "does not parse"),
        (ParamSpec::Timestamp { from: "2024-12-02".into(), to: "2024-12-01".into() }, "swap them"),
    ] {
        let mut def = bank();
        def.transactions[1].statements = vec![StatementSpec::new("SELECT $1", vec![param])];
        let e = def.check().unwrap_err();
        assert!(e.contains("transaction audit, statement 1, $1") && e.contains(says), "{e}");
    }
}

#[test]
fn a_pick_runs_one_statement_of_its_texts_uniformly_in_every_dialect() {
    let mut def = bank();
    let mut update =
        StatementSpec::new("UPDATE branches SET {col} = $1 WHERE id = 1", vec![ParamSpec::uniform(1, 9)]);
    update.sql_mssql = Some("UPDATE TOP (1) branches SET {col} = $1".into());
    update.pick = BTreeMap::from([("col".to_string(), vec!["a".into(), "b".into(), "c".into()])]);
    update.rows = Some(1);
    def.transactions[1].statements.push(update);
    let workload = def.intern().unwrap();
    // deposit's two, audit's one, then the pick's three.
    assert_eq!(workload.statements().len(), 6);
    assert_eq!(
        workload.statements()[3..],
        [
            "UPDATE branches SET a = $1 WHERE id = 1",
            "UPDATE branches SET b = $1 WHERE id = 1",
            "UPDATE branches SET c = $1 WHERE id = 1"
        ]
    );
    assert_eq!(workload.statements_in(Dialect::Mssql)[5], "UPDATE TOP (1) branches SET c = $1");
    assert_eq!(workload.statements_in(Dialect::Mysql)[4], "UPDATE branches SET b = $1 WHERE id = 1");
    assert_eq!(workload.expected_rows()[3..], [Some(1); 3]);
    assert_eq!(workload.param_kinds()[5], [ParamKind::Int]);
    assert_eq!(workload.statement_label(4).as_deref(), Some("transaction audit, statement 2"));
    let mix = Mix::new(workload, 1, 0).unwrap();
    let mut rng = Rng::new(3);
    let mut picked = [0u32; 3];
    for _ in 0..30_000 {
        let draw = mix.next(&mut rng);
        if draw.txn == 1 {
            let calls = draw.calls();
            assert_eq!(calls[0].0, 2);
            picked[calls[1].0 - 3] += 1;
        }
    }
    let total: u32 = picked.iter().sum();
    assert!(picked.iter().all(|&n| (f64::from(n) / f64::from(total) - 1.0 / 3.0).abs() < 0.02), "{picked:?}");
}

#[test]
fn a_bad_pick_is_refused_in_one_line() {
    let with = |sql: &str, pick: Vec<(&str, Vec<&str>)>| {
        let mut def = bank();
        let mut s = StatementSpec::new(sql, Vec::new());
        s.pick = pick
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect();
        def.transactions[1].statements = vec![s];
        def.check().unwrap_err()
    };
    let e = with("UPDATE branches SET city = 'x'", vec![("col", vec!["city"])]);
    assert!(e.contains("transaction audit, statement 1: sql does not write {col}"), "{e}");
    let e = with("UPDATE branches SET {col} = 'x'", vec![("col", vec!["city; DROP"])]);
    assert!(e.contains("pick col: list 1 to 64 texts of letters, digits and _"), "{e}");
    let e = with("UPDATE branches SET {col} = 'x'", vec![("col", vec![])]);
    assert!(e.contains("pick col: list 1 to 64"), "{e}");
    let e = with("UPDATE branches SET {a} = {b}", vec![("a", vec!["x"]), ("b", vec!["y"])]);
    assert!(e.contains("pick names 2 parts: pick one"), "{e}");
}
