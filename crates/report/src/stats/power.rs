//! Power from an external meter's log (`--power-log FILE`): a CSV of `timestamp,watts`, one reading per
//! line, timestamps in Unix seconds (fractions allowed) or RFC 3339. Averaged over a window of the run.

/// One meter reading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// Unix seconds.
    pub at_s: f64,
    /// Watts.
    pub watts: f64,
}

/// A line of the log that is neither a reading nor a header.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: '{text}' is not 'timestamp,watts' (Unix seconds or RFC 3339, then watts)")]
pub struct PowerLogError {
    /// 1-based line number.
    pub line: usize,
    /// The line.
    pub text: String,
}

/// Parses the log; blank lines, `#` comments and a first line that is a header are skipped.
///
/// # Errors
/// The first line that cannot be read.
pub fn parse(text: &str) -> Result<Vec<Reading>, PowerLogError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || PowerLogError { line: i + 1, text: line.to_string() };
        let (at, watts) = line.split_once(',').ok_or_else(bad)?;
        let watts = watts.trim().parse::<f64>().ok().filter(|w| w.is_finite() && *w >= 0.0);
        let at_s = at.trim().parse::<f64>().ok().or_else(|| {
            let t = humantime::parse_rfc3339_weak(at.trim()).ok()?;
            Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
        });
        match (at_s, watts) {
            (Some(at_s), Some(watts)) => out.push(Reading { at_s, watts }),
            (None, _) if out.is_empty() => {} // a header
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// The mean of the readings taken within `[from_s, to_s]`, or `None` when there are none.
pub fn mean_watts(readings: &[Reading], from_s: f64, to_s: f64) -> Option<f64> {
    let inside: Vec<f64> =
        readings.iter().filter(|r| (from_s..=to_s).contains(&r.at_s)).map(|r| r.watts).collect();
    (!inside.is_empty()).then(|| inside.iter().sum::<f64>() / inside.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_in_either_time_format_average_over_a_window() {
        let log = "time,watts\n100,200\n# a comment\n101.5,300\n1970-01-01T00:01:50Z,400\n\n200,999\n";
        let r = parse(log).unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[2], Reading { at_s: 110.0, watts: 400.0 });
        assert_eq!(mean_watts(&r, 100.0, 110.0), Some(300.0));
        assert_eq!(mean_watts(&r, 120.0, 130.0), None);
    }

    #[test]
    fn a_bad_line_is_named() {
        assert_eq!(parse("1,2\nnoise\n").unwrap_err().line, 2);
        assert_eq!(parse("1,-5\n").unwrap_err().line, 1, "negative watts");
    }
}

/// Readings from energy counters (RAPL), sampled at `samples`' times (Unix seconds) with one counter per
/// domain in µJ: each reading is the mean power between two samples, at the later one. Counters wrap at
/// their `max_uj`.
pub fn from_energy(samples: &[(f64, Vec<u64>)], max_uj: &[u64]) -> Vec<Reading> {
    samples
        .windows(2)
        .filter(|w| w[1].0 > w[0].0)
        .map(|w| {
            let joules: f64 = w[0]
                .1
                .iter()
                .zip(&w[1].1)
                .zip(max_uj)
                .map(|((&a, &b), &max)| if b >= a { b - a } else { max - a + b } as f64 / 1e6)
                .sum();
            Reading { at_s: w[1].0, watts: joules / (w[1].0 - w[0].0) }
        })
        .collect()
}

#[cfg(test)]
mod energy_tests {
    use super::*;

    #[test]
    fn energy_counters_become_watts_across_domains_and_wraps() {
        let max = [1_000_000_000, 500_000_000];
        let samples = vec![
            (10.0, vec![100_000_000, 499_000_000]),
            (12.0, vec![300_000_000, 1_000_000]), // 200 J and (wrapped) 2 J in 2 s
            (14.0, vec![500_000_000, 3_000_000]),
        ];
        let r = from_energy(&samples, &max);
        assert_eq!(r, [Reading { at_s: 12.0, watts: 101.0 }, Reading { at_s: 14.0, watts: 101.0 }]);
    }
}
