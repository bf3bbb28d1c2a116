//! Host and database counters as people read them: their labels and units, and how the series group
//! into charts (every CPU counter on one chart, every disk's transfers on one). Which ones the studies
//! quote per step is [`crate::model::counters`]'.
//!
//! The counters themselves are [`RunResult::counters`] (series over time) and
//! [`Step::counters`](crate::model::Step::counters) (each one's step average, keyed `<source>/<name>`);
//! a result without them shows none of this.
//!
//! ```
//! use oltpgen_report::render::counters::label;
//! assert_eq!(label("db:pg1/buffer_hit_pct"), "db:pg1 buffer hit %");
//! assert_eq!(label("node:http://h:9100/metrics/disk_vda_ms_per_transfer"), "node:h:9100 vda ms per transfer");
//! ```

use std::collections::BTreeMap;

use crate::model::counters::split_key;
use crate::model::{CounterSeries, RunResult};
use crate::numfmt::thousands;

/// A source as short as it stays clear: an exporter's URL without its scheme and path, a database
/// without its port (`db:h:5432/ds2` → `db:h/ds2`; an older result's `db:postgres://u@h:5432/ds2`
/// without its scheme and user too).
fn short_source(source: &str) -> String {
    // A merge's part tag (`client@agent0`, `node:…@agent1`) stays, after the source made short.
    let tagged = source.rsplit_once('@').filter(|(_, tag)| {
        let digits = tag.strip_prefix("agent").or_else(|| tag.strip_prefix("result"));
        digits.is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    if let Some((source, tag)) = tagged {
        return format!("{}@{tag}", short_source(source));
    }
    match (source.strip_prefix("node:"), source.strip_prefix("db:")) {
        (Some(url), _) => {
            let rest = url.split_once("://").map_or(url, |(_, r)| r);
            format!("node:{}", rest.split('/').next().unwrap_or(rest))
        }
        (_, Some(target)) => {
            let rest = target.split_once("://").map_or(target, |(_, r)| r);
            let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let host = match authority.rsplit_once(':') {
                Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
                _ => authority,
            };
            if path.is_empty() { format!("db:{host}") } else { format!("db:{host}/{path}") }
        }
        _ => source.to_string(),
    }
}

/// A counter's name in words: `cpu_pct` → `CPU %`, `disk_vda_ms_per_transfer` → `vda ms per transfer`.
pub fn name_words(name: &str) -> String {
    let name = name.strip_prefix("disk_").unwrap_or(name);
    let words =
        name.replace("_per_s", "/s").replace("_pct", " %").replace("_bytes", " bytes").replace('_', " ");
    words.replace("cpu", "CPU")
}

/// A per-step counter's label: its short source and its name in words.
pub fn label(key: &str) -> String {
    let (source, name) = split_key(key);
    format!("{} {}", short_source(source), name_words(name))
}

/// A counter's value with the decimals its unit needs: percentages and ms to one place (ms under 10 to
/// two: a fast disk's 0.21 ms), rates and sizes whole, queue lengths to two.
pub fn value(name: &str, v: f64) -> String {
    let decimals =
        if name.ends_with("_queue_length") || (name.ends_with("_ms_per_transfer") && v.abs() < 10.0) {
            2
        } else if name.ends_with("_pct") || name.ends_with("_ms_per_transfer") {
            1
        } else if v.abs() < 10.0 {
            2
        } else {
            0
        };
    thousands(v, decimals)
}

/// The chart a counter is drawn on: its title and the y axis' unit. Counters of one kind (every CPU
/// share, every disk's transfers) share a chart, one line per source and device.
pub fn chart_of(name: &str) -> (String, &'static str) {
    let disk = name.strip_prefix("disk_").map(|rest| rest.split_once('_').map_or(rest, |(_, what)| what));
    match (name, disk) {
        (n, _) if n.starts_with("cpu_") => ("CPU".into(), "%"),
        (_, Some("reads_per_s" | "writes_per_s" | "transfers_per_s")) => ("Disk transfers".into(), "per s"),
        (_, Some("ms_per_transfer")) => ("Disk time per transfer".into(), "ms"),
        (_, Some("queue_length")) => ("Disk queue length".into(), "requests"),
        (_, Some("busy_pct" | "idle_pct")) => ("Disk busy and idle".into(), "%"),
        (_, Some("read_bytes_per_s" | "write_bytes_per_s")) => ("Disk bytes".into(), "bytes/s"),
        (n, _) if n.starts_with("net_") => ("Network".into(), "bytes/s"),
        (n, _) if n.starts_with("mem_") => ("Memory".into(), "bytes"),
        (n, _) => (name_words(n), unit_of(n)),
    }
}

/// The unit a counter's name ends with.
fn unit_of(name: &str) -> &'static str {
    if name.ends_with("_pct") {
        "%"
    } else if name.ends_with("_bytes_per_s") {
        "bytes/s"
    } else if name.ends_with("_per_s") {
        "per s"
    } else if name.ends_with("_bytes") {
        "bytes"
    } else {
        ""
    }
}

/// The unit a chart of `unit` values up to `max` reads best in, and the divisor that takes the values
/// there: bytes (and bytes/s) in KB, MB or GB (decimal, as the report's other memory figures), so a
/// tick reads `2.5`, not `2,500,000,000`; any other unit unchanged.
pub fn readable_unit(unit: &str, max: f64) -> (f64, String) {
    let Some(rest) = unit.strip_prefix("bytes") else { return (1.0, unit.to_string()) };
    let (divisor, prefix) = [(1e9, "GB"), (1e6, "MB"), (1e3, "KB")]
        .into_iter()
        .find(|(d, _)| max >= *d)
        .unwrap_or((1.0, "bytes"));
    (divisor, format!("{prefix}{rest}"))
}

/// One chart's worth of counter series: its title, unit, and `(line label, series)` per line.
pub struct CounterChart<'a> {
    /// What the chart shows (`CPU`, `Disk transfers`, `buffer hit %`).
    pub title: String,
    /// The y axis' unit.
    pub unit: &'static str,
    /// Each line's label (source and counter) and its series.
    pub lines: Vec<(String, &'a CounterSeries)>,
}

/// Whether series `s` read zero at every sample: a flat line that says nothing a line of text cannot.
fn zero_throughout(s: &CounterSeries) -> bool {
    s.points.iter().all(|p| p[1] == 0.0)
}

/// The labels of `r`'s counter series that read zero throughout (deadlocks, temporary bytes…), which
/// [`charts`] leaves out so a page names them in a line instead of drawing flat charts.
pub fn zero_series(r: &RunResult) -> Vec<String> {
    r.counters
        .iter()
        .filter(|s| !s.points.is_empty() && zero_throughout(s))
        .map(|s| label(&format!("{}/{}", s.source, s.name)))
        .collect()
}

/// `r`'s counter series grouped into charts: CPU first, then disks, network, memory, then the
/// database's own counters by name; the series that read zero throughout are left out
/// ([`zero_series`] names them).
pub fn charts(r: &RunResult) -> Vec<CounterChart<'_>> {
    let mut by_title: BTreeMap<(u8, String), CounterChart> = BTreeMap::new();
    for s in r.counters.iter().filter(|s| !zero_throughout(s)) {
        let (title, unit) = chart_of(&s.name);
        let rank = match title.as_str() {
            "CPU" => 0,
            t if t.starts_with("Disk") => 1,
            "Network" => 2,
            "Memory" => 3,
            _ => 4,
        };
        let chart = by_title.entry((rank, title.clone())).or_insert_with(|| CounterChart {
            title,
            unit,
            lines: Vec::new(),
        });
        chart.lines.push((String::new(), s));
    }
    let mut charts: Vec<CounterChart> = by_title.into_values().collect();
    // A legend says only what tells its lines apart: the source when they share a counter, the counter
    // when they share a source, else both.
    for chart in &mut charts {
        let one_name = chart.lines.iter().all(|(_, s)| s.name == chart.lines[0].1.name);
        let one_source = chart.lines.iter().all(|(_, s)| s.source == chart.lines[0].1.source);
        for (text, s) in &mut chart.lines {
            *text = match (one_name, one_source) {
                (true, _) => short_source(&s.source),
                (false, true) => name_words(&s.name),
                (false, false) => label(&format!("{}/{}", s.source, s.name)),
            };
        }
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Workload;

    #[test]
    fn labels_units_and_charts_read_as_words() {
        assert_eq!(label("client/cpu_pct"), "client CPU %");
        assert_eq!(label("db:pg/commits_per_s"), "db:pg commits/s");
        assert_eq!(label("db:postgres://ds2@ds2a:5432/ds2/buffer_hit_pct"), "db:ds2a/ds2 buffer hit %");
        assert_eq!(label("db:ds2a:5432/ds2/buffer_hit_pct"), "db:ds2a/ds2 buffer hit %");
        assert_eq!(label("db:built-in/tpcc/commits_per_s"), "db:built-in/tpcc commits/s");
        assert_eq!(label("client@agent2/cpu_pct"), "client@agent2 CPU %", "a merged agent's host");
        assert_eq!(label("node:http://h:9100/metrics@agent0/cpu_pct"), "node:h:9100@agent0 CPU %");
        assert_eq!(
            label("node:http://10.0.0.5:9100/metrics/net_rx_bytes_per_s"),
            "node:10.0.0.5:9100 net rx bytes/s"
        );
        assert_eq!(value("disk_vda_queue_length", 1.234), "1.23");
        assert_eq!(value("cpu_pct", 45.06), "45.1");
        assert_eq!(value("disk_vda_transfers_per_s", 4_512.4), "4,512");
        assert_eq!(chart_of("disk_vda_writes_per_s"), ("Disk transfers".to_string(), "per s"));
        assert_eq!(chart_of("cpu_iowait_pct"), ("CPU".to_string(), "%"));
        assert_eq!(chart_of("disk_sda1_idle_pct"), ("Disk busy and idle".to_string(), "%"));
        assert_eq!(chart_of("disk_vda_write_bytes_per_s"), ("Disk bytes".to_string(), "bytes/s"));
        assert_eq!(label("client/disk_vda_busy_pct"), "client vda busy %");
        assert_eq!(chart_of("wal_bytes_per_s"), ("wal bytes/s".to_string(), "bytes/s"));
        assert_eq!(readable_unit("bytes", 2.4e9), (1e9, "GB".to_string()), "not '00,000,000");
        assert_eq!(readable_unit("bytes/s", 15e6), (1e6, "MB/s".to_string()));
        assert_eq!(readable_unit("bytes/s", 800.0), (1.0, "bytes/s".to_string()));
        assert_eq!(readable_unit("%", 2.4e9), (1.0, "%".to_string()));

        let mut r = crate::fixtures::result(Workload::Tpcc, Vec::new());
        let series = |source: &str, name: &str| CounterSeries {
            source: source.into(),
            name: name.into(),
            points: vec![[10.0, 1.0]],
        };
        let zero = |source: &str, name: &str| CounterSeries {
            points: vec![[10.0, 0.0], [20.0, 0.0]],
            ..series(source, name)
        };
        r.counters = vec![
            series("db:pg", "buffer_hit_pct"),
            series("node:http://h:9100/metrics", "disk_vda_transfers_per_s"),
            series("client", "cpu_pct"),
            series("db:pg", "cpu_pct"),
            zero("db:pg", "deadlocks_per_s"),
            zero("client", "cpu_steal_pct"),
        ];
        let titles: Vec<(String, usize)> = charts(&r).into_iter().map(|c| (c.title, c.lines.len())).collect();
        assert_eq!(
            titles,
            [("CPU".to_string(), 2), ("Disk transfers".into(), 1), ("buffer hit %".into(), 1)],
            "no chart of deadlocks, no flat steal line among the CPU's"
        );
        assert_eq!(zero_series(&r), ["db:pg deadlocks/s", "client CPU steal %"]);
    }
}
