//! The values of single flags, parsed as people write them (durations with units, DS2's minutes and
//! seconds, percentages, costs, pacing): the binary's flag parser calls these, so every value's rule
//! and message lives beside the requests it fills, and is tested without a command line.

use std::time::Duration;

use oltpgen_datagen::tpcc::mix::{KeyingTime, ThinkTime};
use oltpgen_datagen::tpcc::rows::MAX_WAREHOUSES;

use oltpgen_vocab::tpcc::Transactions;

/// A percentage for `--fail-if-slower` and `--resolution` (which allows less): a number from 0 to 100,
/// its `%` optional.
pub fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a percentage from 0 to 100")),
    }
}

/// Warehouses, from 1 to [`MAX_WAREHOUSES`] (what a client can list the chunks of; 125 TB of data).
pub fn parse_scale(s: &str) -> Result<u32, String> {
    let too_many = || format!("at most {MAX_WAREHOUSES} warehouses (about 125 TB) are generated, not {s}");
    match s.trim().parse::<u64>() {
        Ok(0) => Err("the scale is a number of warehouses, at least 1".into()),
        Ok(n) => u32::try_from(n).ok().filter(|&n| n <= MAX_WAREHOUSES).ok_or_else(too_many),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(too_many()),
        Err(_) => Err(format!("'{s}' is not a number of warehouses (write e.g. --scale 10)")),
    }
}

/// What a negative time `s` is told: a time is 0 or more.
fn negative(s: &str) -> String {
    format!("'{s}' is negative: a time is 0 or more (write e.g. 90s)")
}

/// A duration as people write them (`90s`, `3m`, `1h`; a bare `0` is none).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    if s.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    match s.trim().strip_prefix('-') {
        Some(rest) if rest.starts_with('-') => {
            return Err(format!(
                "'{s}' is a flag, not a duration: give the flag before it a duration (e.g. 90s)"
            ));
        }
        Some(_) => return Err(negative(s)),
        None => {}
    }
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 90s, 3m, 1h"))
}

/// A number in `unit_s` seconds (DS2 counts run and warmup times in minutes, think time in seconds), or
/// a duration with its unit.
pub fn parse_in_units(s: &str, unit_s: f64, unit: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        // Issue 36: `1e20` minutes panicked in Duration::from_secs_f64.
        Ok(n) if n.is_finite() && n >= 0.0 => Duration::try_from_secs_f64(n * unit_s)
            .map_err(|_| format!("'{s}' {unit} is longer than a duration can be")),
        Ok(n) if n < 0.0 => Err(negative(s)),
        Ok(_) => Err(format!("'{s}' is not a number of {unit}")),
        Err(_) => parse_duration(s),
    }
}

/// DS2's minutes (`30`), or a duration with its unit.
pub fn parse_minutes(s: &str) -> Result<Duration, String> {
    parse_in_units(s, 60.0, "minutes")
}

/// DS2's seconds (`0.5`), or a duration with its unit.
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    parse_in_units(s, 1.0, "seconds")
}

/// The shortest report interval: each one merges every user's histograms, samples the host's and each
/// database's counters (a query per database) and writes a time-series row and a live line, so a 1 ns
/// interval spun the collector and buried the run under its own bookkeeping; 100 ms is already ten rows
/// and ten counter samples a second.
const MIN_REPORT_INTERVAL: Duration = Duration::from_millis(100);

/// `d` as a report interval: at least [`MIN_REPORT_INTERVAL`].
fn report_interval(d: Duration) -> Result<Duration, String> {
    if d < MIN_REPORT_INTERVAL {
        return Err(format!(
            "must be at least {} (each interval merges the histograms and samples the counters)",
            humantime::format_duration(MIN_REPORT_INTERVAL)
        ));
    }
    Ok(d)
}

/// tpcc's `--report-interval`: a duration.
pub fn parse_report_interval(s: &str) -> Result<Duration, String> {
    report_interval(parse_duration(s)?)
}

/// ds2's `--report-rate`: seconds, as DS2 has it, or a duration.
pub fn parse_report_rate(s: &str) -> Result<Duration, String> {
    report_interval(parse_seconds(s)?)
}

/// A duration longer than zero.
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err("must be longer than 0".into()),
        d => Ok(d),
    }
}

/// `--window A..B`: a part of each step, from its start; it must end after it starts.
pub fn parse_window(s: &str) -> Result<(Duration, Duration), String> {
    let (a, b) =
        s.split_once("..").ok_or_else(|| format!("'{s}' is not a window: write it as 1000s..1200s"))?;
    let (a, b) = (parse_duration(a)?, parse_duration(b)?);
    if a >= b {
        return Err(format!("the window {s} ends before it starts"));
    }
    Ok((a, b))
}

/// `--system-cost`: a positive amount in USD (`$` and thousands separators allowed).
pub fn parse_cost(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').replace(',', "").parse::<f64>() {
        Ok(c) if c.is_finite() && c > 0.0 => Ok(c),
        _ => Err(format!("'{s}' is not a cost in USD (write e.g. 250000)")),
    }
}

/// The slowest rate a flag takes (a user or an I/O every 1000 s): the time between two starts, and a
/// million users' ramp, stay durations (issue 36: `--ramp-rate 1e-300` panicked converting them).
pub const MIN_RATE: f64 = 0.001;

/// A positive number of users (or I/Os) started per second, at least [`MIN_RATE`].
pub fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r >= MIN_RATE => Ok(r),
        _ => Err(format!("'{s}' is not a positive number of users per second (at least {MIN_RATE})")),
    }
}

/// A pacing value `s` that is neither `spec`, `off` nor a time: a word (`spc`) is told the words, a
/// time that does not read is told what [`parse_duration`] says.
fn pacing_duration(s: &str, time: &str) -> Result<Duration, String> {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!("'{s}' is not a pacing: write spec (the spec's), 0 (none) or {time} (e.g. 2s)"));
    }
    parse_duration(s)
}

/// `--think-time`: `spec`, `0`/`off`, or a mean.
pub fn parse_think(s: &str) -> Result<ThinkTime, String> {
    match s.trim() {
        "spec" => Ok(ThinkTime::Spec),
        "off" => Ok(ThinkTime::Off),
        other => pacing_duration(other, "a mean")
            .map(|d| if d.is_zero() { ThinkTime::Off } else { ThinkTime::Mean(d) }),
    }
}

/// `--transactions`: `server` or `client`.
pub fn parse_transactions(s: &str) -> Result<Transactions, String> {
    match s {
        "server" => Ok(Transactions::Server),
        "client" => Ok(Transactions::Client),
        _ => Err(format!("'{s}' is neither server nor client")),
    }
}

/// `--keying-time`: `spec`, `0`/`off`, or a fixed time.
pub fn parse_keying(s: &str) -> Result<KeyingTime, String> {
    match s.trim() {
        "spec" => Ok(KeyingTime::Spec),
        "off" => Ok(KeyingTime::Off),
        other => pacing_duration(other, "a fixed time")
            .map(|d| if d.is_zero() { KeyingTime::Off } else { KeyingTime::Fixed(d) }),
    }
}

/// `--metrics-listen`: an address and port to listen on.
pub fn parse_listen(s: &str) -> Result<std::net::SocketAddr, String> {
    s.trim().parse().map_err(|_| {
        format!("'{s}' is not an address and port: write e.g. 127.0.0.1:9187, 0.0.0.0:9187 or [::1]:9187")
    })
}

/// DS2's yes or no (`--detailed_view=Y`): `Y`, `N`, and the longer spellings, any case.
pub fn parse_yes_no(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "true" | "1" => Ok(true),
        "n" | "no" | "false" | "0" => Ok(false),
        _ => Err(format!("'{s}' is neither Y nor N")),
    }
}

/// `--power-log`: `LABEL=FILE` (one meter of several: `server=…`, `storage=…`), or a plain `FILE`, the
/// one meter labelled [`PLAIN_METER`](oltpgen_report::stats::power::PLAIN_METER). A label is letters,
/// digits, `_` and `-`; anything else before an `=` is part of a file's name.
pub fn parse_power_log(s: &str) -> Result<(String, std::path::PathBuf), String> {
    let labelled = s.split_once('=').filter(|(label, _)| {
        !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    });
    match labelled {
        Some((_, "")) => {
            Err(format!("'{s}' names a meter but no log: write LABEL=FILE, e.g. server=watts.csv"))
        }
        Some((label, file)) => Ok((label.to_string(), file.into())),
        None if s.is_empty() => Err("give the meter's log: FILE or LABEL=FILE".into()),
        None => Ok((oltpgen_report::stats::power::PLAIN_METER.to_string(), s.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_power_log_is_a_labelled_meter_or_the_one_plain_one() {
        assert_eq!(parse_power_log("server=/tmp/a.csv"), Ok(("server".into(), "/tmp/a.csv".into())));
        assert_eq!(parse_power_log("watts.csv"), Ok(("power".into(), "watts.csv".into())));
        assert_eq!(parse_power_log("./x=y.csv"), Ok(("power".into(), "./x=y.csv".into())), "not a label");
        assert!(parse_power_log("storage=").unwrap_err().contains("names a meter but no log"));
    }

    #[test]
    fn scale_must_be_a_positive_number() {
        assert!(parse_scale("0").unwrap_err().contains("at least 1"));
        assert!(parse_scale("ten").unwrap_err().contains("not a number"));
        assert_eq!(parse_scale("10"), Ok(10));
        assert_eq!(parse_scale("1000000"), Ok(MAX_WAREHOUSES));
        for huge in ["1000001", "2147483648", "100000000", "99999999999999999999999"] {
            assert!(parse_scale(huge).unwrap_err().contains("at most 1000000 warehouses"), "{huge}");
        }
    }

    #[test]
    fn pacing_and_durations_read_like_people_write_them() {
        assert_eq!(parse_think("0"), Ok(ThinkTime::Off));
        assert_eq!(parse_think("spec"), Ok(ThinkTime::Spec));
        assert_eq!(parse_think("2s"), Ok(ThinkTime::Mean(Duration::from_secs(2))));
        assert_eq!(parse_keying("0"), Ok(KeyingTime::Off));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("soon").unwrap_err().contains("not a duration"));
        assert!(parse_positive_duration("0").is_err());
        assert!(parse_rate("0").is_err());
        assert_eq!(parse_report_interval("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_report_rate("0.5"), Ok(Duration::from_millis(500)));
        for tiny in ["0", "1ns", "99ms"] {
            assert!(parse_report_interval(tiny).unwrap_err().contains("must be at least 100ms"), "{tiny}");
        }
        assert!(parse_report_rate("0.01").unwrap_err().contains("must be at least 100ms"));
        assert_eq!(parse_window("10s..1m"), Ok((Duration::from_secs(10), Duration::from_secs(60))));
        assert!(parse_window("1m..10s").unwrap_err().contains("ends before it starts"));
        assert_eq!(parse_listen("127.0.0.1:9187").unwrap().port(), 9187);
        assert!(parse_listen("localhost").unwrap_err().contains("e.g. 127.0.0.1:9187"));
    }

    #[test]
    fn a_mistyped_pacing_is_told_the_words_and_a_negative_time_is_refused_as_one() {
        // Issue 39: `--think-time spc` was told "expected number at 0", nothing about `spec`.
        for bad in [parse_think("spc").unwrap_err(), parse_keying("sepc").unwrap_err()] {
            assert!(bad.contains("is not a pacing: write spec (the spec's), 0 (none) or a"), "{bad}");
        }
        assert!(parse_think("2x").unwrap_err().contains("not a duration"));
        for (bad, said) in [
            (parse_duration("-5s"), "'-5s' is negative: a time is 0 or more"),
            (parse_positive_duration("-1m"), "'-1m' is negative"),
            (parse_minutes("-5"), "'-5' is negative"),
            (parse_seconds("-0.5"), "'-0.5' is negative"),
            (parse_window("-5s..10s").map(|w| w.0), "'-5s' is negative"),
        ] {
            assert!(bad.as_ref().unwrap_err().contains(said), "{bad:?}");
        }
        assert!(parse_think("-2s").unwrap_err().contains("is negative"));
        assert!(parse_duration("--replace").unwrap_err().contains("'--replace' is a flag, not a duration"));
    }
}
