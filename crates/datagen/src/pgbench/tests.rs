//! The expression language against values PostgreSQL 15's pgbench printed (`debug()`), the scripts'
//! parsing and refusals, and the interpreter's steps.

use super::*;

fn eval(text: &str) -> Result<Value, EvalError> {
    let vars = |n: &str| match n {
        "scale" => Some(Value::Int(10)),
        "default_seed" => Some(Value::Int(-2_715_325_821_952_477_995)),
        _ => None,
    };
    Expr::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).eval(&vars, &mut Rng::new(5))
}

/// Each pair: an expression and what `pgbench -t 1` printed for `\set x debug(expression)`
/// (with `--random-seed=7`, whose `:default_seed` is the one above).
const PGBENCH_SAYS: [(&str, Value); 32] = [
    ("int(5.6)", Value::Int(6)),
    ("int(-5.5)", Value::Int(-6)),
    ("hash(10, 5432)", Value::Int(-5_817_877_081_768_721_676)),
    ("hash_fnv1a(10, 5432)", Value::Int(-7_793_829_335_365_542_153)),
    ("permute(5, 100, 42)", Value::Int(76)),
    ("permute(0, 3, 7)", Value::Int(0)),
    ("permute(7, 1000, 12345)", Value::Int(260)),
    ("permute(-3, 10, 1)", Value::Int(2)),
    ("hash(-1)", Value::Int(-4_831_786_678_021_569_606)),
    ("hash(5)", Value::Int(448_783_848_948_553_407)),
    ("7 / -2", Value::Int(-3)),
    ("-7 % 3", Value::Int(-1)),
    ("mod(-7, 3)", Value::Int(-1)),
    ("1 + 2.5", Value::Double(3.5)),
    ("5 > 3 AND NOT 2 = 3", Value::Bool(true)),
    ("null IS NULL", Value::Bool(true)),
    ("greatest(1, 2.5, 2)", Value::Double(2.5)),
    ("least(3, 1, 2)", Value::Int(1)),
    ("1 << 62", Value::Int(4_611_686_018_427_387_904)),
    ("~5", Value::Int(-6)),
    ("5 # 3", Value::Int(6)),
    ("case when 1 = 2 then 1 when null then 2 else 3 end", Value::Int(3)),
    ("pi()", Value::Double(std::f64::consts::PI)),
    ("10.0 / 4", Value::Double(2.5)),
    ("sqrt(2)", Value::Double(std::f64::consts::SQRT_2)),
    ("-9223372036854775808", Value::Int(i64::MIN)),
    ("null AND false", Value::Null),
    ("false AND null", Value::Bool(false)),
    ("true OR null", Value::Bool(true)),
    ("1 IS TRUE", Value::Bool(false)),
    ("5 / 0.0", Value::Double(f64::INFINITY)),
    ("2.5e3 + .5", Value::Double(2500.5)),
];

#[test]
fn values_are_pgbenchs() {
    for (text, want) in PGBENCH_SAYS {
        assert_eq!(eval(text).unwrap(), want, "{text}");
    }
}

#[test]
fn precedence_and_functions() {
    assert_eq!(eval("1 + 2 * 3").unwrap(), Value::Int(7));
    assert_eq!(eval("(1 + 2) * 3").unwrap(), Value::Int(9));
    assert_eq!(eval("1 | 2 + 4").unwrap(), Value::Int(7));
    assert_eq!(eval("NOT 1 = 2 OR false").unwrap(), Value::Bool(true));
    assert_eq!(eval("5 >= 5 and 4 <> 5 and 4 != 5 and 3 <= 4").unwrap(), Value::Bool(true));
    assert_eq!(eval("1 isnull").unwrap(), Value::Bool(false));
    assert_eq!(eval("1 notnull").unwrap(), Value::Bool(true));
    assert_eq!(eval("null is not null").unwrap(), Value::Bool(false));
    assert_eq!(eval("false is false").unwrap(), Value::Bool(true));
    assert_eq!(eval("abs(-3) + abs(-1.5)").unwrap(), Value::Double(4.5));
    assert_eq!(eval("double(3)").unwrap(), Value::Double(3.0));
    assert_eq!(eval("pow(2, 10)").unwrap(), Value::Double(1024.0));
    assert_eq!(eval("power(2, 0.5) = sqrt(2)").unwrap(), Value::Bool(true));
    assert_eq!(eval("ln(exp(2))").unwrap(), Value::Double(2.0));
    assert_eq!(eval("-8 >> 1").unwrap(), Value::Int(-4));
    assert_eq!(eval("6 & 3").unwrap(), Value::Int(2));
    assert_eq!(eval("abs(null)").unwrap(), Value::Null);
    assert_eq!(eval("case when false then 1 end").unwrap(), Value::Null);
    assert_eq!(eval("100000 * :scale").unwrap(), Value::Int(1_000_000));
    assert_eq!(eval("HASH(10, 5432)").unwrap(), eval("hash_murmur2(10, 5432)").unwrap());
}

#[test]
fn errors_are_pgbenchs() {
    for (text, msg) in [
        ("9223372036854775807 + 1", "bigint out of range"),
        ("1 / 0", "division by zero"),
        ("1 % 0", "division by zero"),
        ("true + 1", "cannot coerce boolean to int"),
        ("random(5, 1)", "empty range given to random"),
        ("random_exponential(1, 10, 0)", "exponential parameter must be greater than zero"),
        ("random_gaussian(1, 10, 1.5)", "gaussian parameter must be at least 2.0"),
        ("random_zipfian(1, 10, 1.0)", "zipfian parameter must be in range [1.001, 1000]"),
        ("int(1e300)", "double to int overflow"),
        (":nope + 1", "undefined variable \"nope\""),
        ("not null::int", ""),
    ] {
        if msg.is_empty() {
            assert!(Expr::parse(text).is_err(), "{text}");
            continue;
        }
        let e = eval(text).unwrap_err();
        assert!(e.0.contains(msg), "{text}: {e}");
    }
    for bad in ["", "1 +", "foo(1)", "random(1)", "(1", "1 2", "case 1 end", "9223372036854775808", "1 is 2"]
    {
        assert!(Expr::parse(bad).is_err(), "{bad:?} parsed");
    }
}

fn draws(text: &str, n: usize) -> Vec<i64> {
    let e = Expr::parse(text).unwrap();
    let mut rng = Rng::new(11);
    (0..n)
        .map(|_| match e.eval(&|_| None, &mut rng).unwrap() {
            Value::Int(i) => i,
            v => panic!("{v}"),
        })
        .collect()
}

#[test]
fn distributions_stay_in_range_and_have_their_shape() {
    let n = 20_000;
    let uniform = draws("random(1, 10)", n);
    assert!(uniform.iter().all(|v| (1..=10).contains(v)));
    assert!((1..=10).all(|k| uniform.contains(&k)));
    // Exponential with parameter p: P(value in first tenth) = (1 - e^{-p/10}) / (1 - e^{-p}).
    let exp = draws("random_exponential(1, 1000, 5)", n);
    assert!(exp.iter().all(|v| (1..=1000).contains(v)));
    let first_tenth = exp.iter().filter(|&&v| v <= 100).count() as f64 / n as f64;
    let want = (1.0 - (-0.5f64).exp()) / (1.0 - (-5f64).exp());
    assert!((first_tenth - want).abs() < 0.02, "{first_tenth} vs {want}");
    // Gaussian with parameter 2.5: about 68% within the middle 0.4 of the range (one stdev each side).
    let gauss = draws("random_gaussian(1, 1000, 2.5)", n);
    assert!(gauss.iter().all(|v| (1..=1000).contains(v)));
    let middle = gauss.iter().filter(|&&v| (301..=700).contains(&v)).count() as f64 / n as f64;
    assert!((middle - 0.6827 / 0.9876).abs() < 0.02, "{middle}");
    // Zipfian with s = 2: P(1) = 1 / zeta_10(2).
    let zipf = draws("random_zipfian(1, 10, 2)", n);
    assert!(zipf.iter().all(|v| (1..=10).contains(v)));
    let zeta: f64 = (1..=10).map(|k| 1.0 / (k * k) as f64).sum();
    let ones = zipf.iter().filter(|&&v| v == 1).count() as f64 / n as f64;
    assert!((ones - 1.0 / zeta).abs() < 0.02, "{ones} vs {}", 1.0 / zeta);
}

#[test]
fn permute_is_a_permutation() {
    for size in [1, 2, 3, 10, 1000] {
        let mut seen: Vec<i64> = (0..size).map(|i| random::permute(i, size, 99).unwrap()).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..size).collect::<Vec<_>>());
    }
}

#[test]
fn builtins_parse_and_their_sql_is_prepared() {
    for (name, text) in BUILTINS {
        let s = Script::parse(name, text).unwrap();
        assert!(s.sql.iter().all(|q| !q.text.contains(':')), "{name}");
    }
    let tpcb = Script::parse("tpcb-like", builtin("tpcb").unwrap().1).unwrap();
    assert_eq!(tpcb.sql.len(), 7);
    assert_eq!(tpcb.sql[1].text, "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2");
    assert_eq!(tpcb.sql[1].params, ["delta", "aid"]);
    assert_eq!(tpcb.sql[1].line, 6);
    assert!(builtin("s").is_none(), "select-only and simple-update both start with s");
    assert_eq!(builtin("select").unwrap().0, "select-only");
    assert_eq!(split_weight("a.sql@3"), Some(("a.sql", 3)));
    assert_eq!(split_weight("a.sql"), Some(("a.sql", 1)));
    assert_eq!(split_weight("a.sql@x"), None);
}

#[test]
fn casts_and_quotes_are_not_variables() {
    let (text, params) = parameters("SELECT :a::int, 'x' || :b, ':'");
    assert_eq!(text, "SELECT $1::int, 'x' || $2, ':'");
    assert_eq!(params, ["a", "b"]);
}

fn run(script: &Script, vars: &mut Vars) -> Vec<String> {
    let mut pc = 0;
    let mut rng = Rng::new(1);
    let mut out = Vec::new();
    loop {
        match vars.step(script, &mut pc, &mut rng).unwrap() {
            Step::Sql(_, q, params) => {
                out.push(format!("{} {:?}", q.text, params));
                if let Some(store) = &q.store {
                    vars.store(store, &["one".into(), "two".into()], &[vec![Some("41".into()), None]])
                        .unwrap();
                }
            }
            Step::Sleep(us) => out.push(format!("sleep {us}")),
            Step::End => return out,
        }
    }
}

#[test]
fn if_elif_else_and_gset_run_as_pgbench() {
    let text = "\\set x 2
SELECT 1 AS one, null AS two \\gset p_
\\if :x = 1
SELECT 'one';
\\elif :p_one = 41
SELECT :p_one + 1, :p_two;
\\sleep 3 ms
\\else
SELECT 'else';
\\endif
\\if false
\\else
SELECT 'inner';
\\endif
";
    let s = Script::parse("t.sql", text).unwrap();
    let mut vars = Vars::default();
    let out = run(&s, &mut vars);
    assert_eq!(
        out,
        [
            "SELECT 1 AS one, null AS two []",
            "SELECT $1 + 1, $2 [Some(\"41\"), None]",
            "sleep 3000",
            "SELECT 'inner' []",
        ]
    );
    assert_eq!(vars.value("p_two"), Some(Value::Null));
    assert!(
        vars.store(&Store::Gset(String::new()), &["a".into()], &[])
            .unwrap_err()
            .0
            .contains("expected one row")
    );
}

fn refused(text: &str) -> ScriptError {
    Script::parse("my.sql", text).unwrap_err()
}

fn assert_refused(text: &str, line: usize, needle: &str) {
    let e = refused(text);
    assert_eq!((e.file.as_str(), e.line), ("my.sql", line), "{e}");
    assert!(e.to_string().contains(needle), "{e}");
}

#[test]
fn shell_is_refused() {
    assert_refused("SELECT 1;\n\\shell echo hi\n", 2, "\\shell is not supported");
}

#[test]
fn setshell_is_refused() {
    assert_refused("\\setshell v echo 1\n", 1, "\\setshell is not supported");
}

#[test]
fn startpipeline_is_refused() {
    assert_refused("\n\n\\startpipeline\nSELECT 1;\n\\endpipeline\n", 3, "\\startpipeline is not supported");
}

#[test]
fn endpipeline_is_refused() {
    assert_refused("SELECT 1;\n\\endpipeline\n", 2, "\\endpipeline is not supported");
}

#[test]
fn syncpipeline_is_refused() {
    assert_refused("\\syncpipeline\n", 1, "\\syncpipeline is not supported");
}

#[test]
fn unknown_meta_command_is_refused() {
    assert_refused("SELECT 1;\n-- c\n\\frobnicate 1\n", 3, "invalid command \\frobnicate");
}

#[test]
fn compound_statement_is_refused() {
    assert_refused("SELECT 1 \\; SELECT 2;\n", 1, "compound commands");
}

#[test]
fn malformed_scripts_are_refused_with_their_line() {
    assert_refused("\\gset\n", 1, "must follow an SQL command");
    assert_refused("SELECT 1 \\gset\n\\aset\n", 2, "must follow an SQL command");
    assert_refused("\\if true\nSELECT 1;\n", 1, "without matching \\endif");
    assert_refused("\\endif\n", 1, "without matching \\if");
    assert_refused("\\if 1\n\\else\n\\elif 2\n\\endif\n", 3, "\\elif after \\else");
    assert_refused("\\set x 1 +\n", 1, "expression error");
    assert_refused("\\sleep 1 min\n", 1, "unrecognized time unit");
    assert_refused("\\set 1-x 2\n", 1, "invalid variable name");
    assert_refused("-- nothing\n", 1, "empty script");
}

#[test]
fn variables_from_text_read_as_pgbench() {
    assert_eq!(Value::from_text("42"), Some(Value::Int(42)));
    assert_eq!(Value::from_text("4.5"), Some(Value::Double(4.5)));
    assert_eq!(Value::from_text("NULL"), Some(Value::Null));
    assert_eq!(Value::from_text("t"), Some(Value::Bool(true)));
    assert_eq!(Value::from_text("off"), Some(Value::Bool(false)));
    assert_eq!(Value::from_text("abc"), None);
    assert_eq!(Value::Double(0.1 + 0.2).to_text().unwrap(), "0.3");
}

#[test]
fn an_ack_directive_names_the_next_statement_and_its_lookup() {
    let text = "\\set aid random(1, 10)\nBEGIN;\n-- oltpgen: ack\nINSERT INTO t (aid) VALUES (:aid)\n  RETURNING id, aid;\n\
                --oltpgen: ack-check SELECT id, aid::int FROM t;\nEND;\n";
    let s = Script::parse("mine.sql", text).unwrap();
    let ack = s.ack.unwrap();
    assert_eq!((ack.sql, ack.from, ack.check.as_str()), (1, AckFrom::Row, "SELECT id, aid::int FROM t"));
    assert!(s.sql[1].text.starts_with("INSERT INTO t"), "{:?}", s.sql);
    // pgbench's plain comments stay comments; no directive, no acknowledgement.
    assert_eq!(Script::parse("p.sql", "-- ack\nSELECT 1;\n").unwrap().ack, None);
}

#[test]
fn a_bad_ack_directive_is_refused_with_its_line() {
    assert_refused("SELECT 1;\n-- oltpgen: acknowledge\n", 2, "unknown directive `-- oltpgen: acknowledge`");
    assert_refused("-- oltpgen: ack\nSELECT 1;\n", 1, "`-- oltpgen: ack` needs its lookup");
    assert_refused("SELECT 1;\n-- oltpgen: ack-check SELECT 1\n", 2, "without `-- oltpgen: ack`");
    assert_refused("SELECT 1;\n-- oltpgen: ack\n", 2, "names no statement");
    assert_refused(
        "-- oltpgen: ack\nSELECT 1;\n-- oltpgen: ack\nSELECT 2;\n",
        3,
        "a second `-- oltpgen: ack`",
    );
    assert_refused("-- oltpgen: ack\nSELECT 1;\n-- oltpgen: ack-check SELECT :x\n", 3, "takes no :variables");
    assert_refused("-- oltpgen: ack-check\n", 1, "needs its query");
}
