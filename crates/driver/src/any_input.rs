//! No panic on any input (issue 36): property tests of every value parser this crate has (the flags'
//! values, the URLs of all three engines and ADO.NET strings and the one URL reader under them, io's sizes, percentages and access
//! specs) and of the pages it reads back (node_exporter's and windows_exporter's, `/proc`'s files).
//! Each takes any text and text shaped like what it reads, 10,000 cases a property; the property is a
//! value or a clear error, never a panic (`--start-at`, `--agent` and `acks.bin` are tested beside
//! their readers).

use proptest::prelude::*;

use crate::Error;
use crate::command::values::*;
use crate::counters::{exposition, host, node_exporter, windows_exporter};
#[cfg(feature = "io")]
use crate::io::spec::{AccessSpec, Picker, parse_bytes, parse_pct, parse_rating};
use oltpgen_vocab::url;

/// Text shaped like a flag's value (digits, units, signs, separators, a multi-byte character) or
/// anything at all.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ +-]?[0-9]{0,25}(\\.[0-9]{0,12})?(e[+-]?[0-9]{1,4})?[ ]?(ns|us|µs|ms|s|m|min|h|d|k|kb|KiB|M|g|G|T|TB|PB|%|€)?",
        "[0-9a-z.:€ %$,-]{0,16}(\\.\\.)?[0-9a-z.:€ %-]{0,16}",
        "(inf|-inf|NaN|nan|1e309|-0|0x10|spec|off|server|client|Y|n|yes)",
    ]
}

/// Text shaped like a URL of any engine, an ADO.NET string, or anything at all.
fn url() -> impl Strategy<Value = String> {
    let scheme = "(postgres|postgresql|sqlserver|mssql|mysql|mariadb|oracle|)(://)?";
    let userinfo = "([a-z€%0-9]{0,6}(:S3cr3t[a-z@%0-9/?€]{0,8})?@){0,2}";
    let hosts = "([a-z0-9.€\\[\\]:]{0,10}(:[0-9a-z]{0,6})?,?){0,3}";
    let rest = "(/[a-z0-9€%@]{0,8})?(\\?([a-z_-]{0,16}=[a-z0-9@%/._-]{0,10}&?){0,3})?";
    let ado = "((Server|Data Source|Database|User Id|Password|Encrypt|TrustServerCertificate|\
               TrustServerCertificateCA|Application Name|Authentication|Initial Catalog)=[a-z0-9:,.@€%/ ]{0,10};?){0,6}";
    prop_oneof![
        any::<String>(),
        (scheme, userinfo, hosts, rest).prop_map(|(s, u, h, r)| format!("{s}{u}{h}{r}")),
        ado.prop_map(|s| s.to_string()),
    ]
}

/// SQL Server's way with an '@' in the password, as the reader takes it.
const RULES_AT_IN_PASSWORD: url::UrlRules = url::UrlRules {
    engine: "SQL Server",
    default_port: 1433,
    password_may_hold_at: true,
    stray_at: "stray '@'",
};
/// MySQL's way: one '@' at most.
const RULES_ONE_AT: url::UrlRules =
    url::UrlRules { engine: "MySQL", default_port: 3306, password_may_hold_at: false, stray_at: "stray '@'" };

/// A line of an exporter's page: the names oltpgen reads, labels, values, or anything at all.
fn exporter_page() -> impl Strategy<Value = String> {
    let name = "(node_cpu_seconds_total|node_memory_MemTotal_bytes|node_memory_MemAvailable_bytes|\
                node_network_receive_bytes_total|node_network_transmit_bytes_total|node_disk_[a-z_]{0,30}|\
                windows_cpu_time_total|windows_cs_physical_memory_bytes|windows_os_physical_memory_free_bytes|\
                windows_net_bytes_[a-z_]{0,20}|windows_logical_disk_[a-z_]{0,30}|[a-z_€]{0,12})";
    let labels = "(\\{([a-z]{0,8}=\"[a-z0-9:\\\\\"€ ]{0,8}\",?){0,3}\\}?)?";
    let sample = "( [+-]?([0-9]{0,20}(\\.[0-9]{0,6})?(e[+-]?[0-9]{1,3})?|NaN|\\+Inf|-Inf)( [0-9]{0,14})?)?";
    let line = (name, labels, sample).prop_map(|(n, l, s)| format!("{n}{l}{s}"));
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop_oneof![line, "# [A-Z]{4} .{0,20}", any::<String>()], 0..8)
            .prop_map(|lines| lines.join("\n")),
    ]
}

/// A `/proc` file's lines: words and numbers as those files have them, or anything at all.
fn proc_text() -> impl Strategy<Value = String> {
    let line = "(cpu |cpu0 |MemTotal:|MemAvailable:| *[a-z0-9€]{0,6}:| *[0-9]{1,3} +[0-9]{1,3} [a-z0-9€]{0,6})\
                ( +[+-]?[0-9]{0,22}(\\.[0-9])?){0,12}";
    prop_oneof![any::<String>(), prop::collection::vec(line, 0..6).prop_map(|l| l.join("\n"))]
}

/// A usage error, said as the flag's value or URL error is: one line (a flag's parser returns its
/// message to clap, which prints it on the flag's line).
fn one_line(message: &str) -> bool {
    !message.is_empty() && !message.contains('\n')
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Every value parser of the flags: a value, or one line saying what to write.
    #[test]
    fn every_flag_value_is_a_value_or_one_line(s in value()) {
        type Parser = fn(&str) -> Result<(), String>;
        let parsers: &[(&str, Parser)] = &[
            ("percent", |s| parse_percent(s).map(drop)),
            ("scale", |s| parse_scale(s).map(drop)),
            ("duration", |s| parse_duration(s).map(drop)),
            ("minutes", |s| parse_minutes(s).map(drop)),
            ("seconds", |s| parse_seconds(s).map(drop)),
            ("report interval", |s| parse_report_interval(s).map(drop)),
            ("report rate", |s| parse_report_rate(s).map(drop)),
            ("positive duration", |s| parse_positive_duration(s).map(drop)),
            ("window", |s| parse_window(s).map(drop)),
            ("cost", |s| parse_cost(s).map(drop)),
            ("rate", |s| parse_rate(s).map(drop)),
            ("think", |s| parse_think(s).map(drop)),
            ("transactions", |s| parse_transactions(s).map(drop)),
            ("keying", |s| parse_keying(s).map(drop)),
            ("listen", |s| parse_listen(s).map(drop)),
            ("yes/no", |s| parse_yes_no(s).map(drop)),
            ("power log", |s| parse_power_log(s).map(drop)),
            #[cfg(feature = "io")]
            ("io size", |s| parse_bytes(s).map(drop)),
            #[cfg(feature = "io")]
            ("io rating", |s| parse_rating(s).map(drop)),
            #[cfg(feature = "io")]
            ("io percent", |s| parse_pct(s).map(drop)),
        ];
        for (name, parse) in parsers {
            if let Err(e) = parse(&s) {
                prop_assert!(one_line(&e), "{}: {:?}", name, e);
            }
        }
    }

    /// Every URL and ADO.NET string: a target, or one usage line that never repeats the password.
    #[test]
    fn every_url_is_a_target_or_one_line_without_the_password(s in url()) {
        match crate::engine::parse_url(&s) {
            Ok(t) => {
                let shown = format!("{} {t} {t:?} {} {}", t.label(), t.key(), crate::engine::with_dbname(&t, "other").label());
                prop_assert!(!shown.contains("S3cr3t"), "{:?}", shown);
            }
            Err(Error::Usage(e)) => {
                prop_assert!(one_line(&e), "{:?}", e);
                prop_assert!(!e.contains("S3cr3t"), "the password in {:?}", e);
            }
            Err(other) => prop_assert!(false, "not a usage error: {}", other),
        }
    }

    /// The one URL reader, by either engine's rules, and its ADO.NET reader: parts, or one usage line
    /// without the password; no `Debug` shows it; `--target`'s and `--database_name`'s edits never panic.
    #[test]
    fn the_url_reader_reads_or_refuses_in_one_line_without_the_password(s in url(), host in "[a-z0-9.:]{0,12}") {
        for rules in [&RULES_AT_IN_PASSWORD, &RULES_ONE_AT] {
            match url::read(&s, rules) {
                Ok(parts) => prop_assert!(!format!("{parts:?}").contains("S3cr3t"), "{:?}", parts),
                Err(Error::Usage(e)) => {
                    prop_assert!(one_line(&e), "{:?}", e);
                    prop_assert!(!e.contains("S3cr3t"), "the password in {:?}", e);
                }
                Err(other) => prop_assert!(false, "not a usage error: {}", other),
            }
        }
        let ado = url::AdoString::read(&s);
        prop_assert!(!format!("{ado:?}").contains("S3cr3t"), "{:?}", ado);
        if let Some(seams) = url::Seams::of(&s) {
            let _ = (seams.with_host(&host), seams.with_database(&host));
        }
    }

    #[cfg(feature = "io")]
    /// io's access specification from any sizes and percentages: refused in one line, or a region whose
    /// every transfer falls inside it, on a block boundary.
    #[test]
    fn any_io_spec_is_refused_or_keeps_its_transfers_inside_the_region(
        size in prop_oneof![any::<u64>(), 0..1u64 << 24],
        block in prop_oneof![any::<u64>(), (0..64u64).prop_map(|s| s * 512), 0..70_000u64],
        read in prop_oneof![any::<u32>(), 0..=101u32],
        random in prop_oneof![any::<u32>(), 0..=101u32],
        seed in any::<u64>(),
    ) {
        match AccessSpec::new(size, block, read, random) {
            Err(e) => prop_assert!(one_line(&e), "{:?}", e),
            Ok(spec) => {
                let _ = spec.describe();
                let mut picker = Picker::new(&spec, seed, 0);
                for _ in 0..4 {
                    let t = picker.next(&spec);
                    prop_assert!(t.offset < spec.size_bytes && t.offset.is_multiple_of(spec.block_bytes));
                }
            }
        }
    }

    /// Any exporter's page: node_exporter's and windows_exporter's totals, never a panic.
    #[test]
    fn any_exporter_page_reads_without_a_panic(page in exporter_page()) {
        let _ = exposition::parse(&page);
        let _ = node_exporter::totals(&page);
        let _ = windows_exporter::totals(&page);
    }

    /// Any `/proc` file the host's counters read, never a panic.
    #[test]
    fn any_proc_file_reads_without_a_panic(text in proc_text()) {
        let _ = host::parse_proc_stat(&text);
        let _ = host::parse_meminfo(&text);
        let _ = host::parse_net_dev(&text);
        let _ = host::parse_diskstats(&text);
    }
}
