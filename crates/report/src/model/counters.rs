//! The keys of a step's counters ([`Step::counters`]: `<source>/<name>`) and which of them the studies
//! quote per step (CPU %, disk transfers/s, ms per transfer, queue length, % busy, buffer hit %,
//! checkpoint pages/s, watts): the
//! counters `report show`, report.html and `report compare` put beside each step's figures.
//!
//! ```
//! use oltpgen_report::model::counters::{quoted, split_key};
//! assert_eq!(split_key("node:http://h:9100/metrics/cpu_pct"), ("node:http://h:9100/metrics", "cpu_pct"));
//! assert!(quoted("cpu_pct") && !quoted("commits_per_s"));
//! ```

use crate::model::Step;

/// Whether the studies' per-step tables quote counter `name`: CPU %, each disk's transfers/s, ms per
/// transfer, queue length and % busy, the buffer hit %, checkpoint pages/s, and watts.
pub fn quoted(name: &str) -> bool {
    let disk = name.starts_with("disk_")
        && (name.ends_with("_transfers_per_s")
            || name.ends_with("_ms_per_transfer")
            || name.ends_with("_queue_length")
            || name.ends_with("_busy_pct"));
    disk || matches!(name, "cpu_pct" | "buffer_hit_pct" | "checkpoint_pages_per_s")
        || name.ends_with("watts")
        || name.ends_with("_w")
}

/// `<source>/<name>` split at its last `/` (a source may be a URL, a name never holds one).
pub fn split_key(key: &str) -> (&str, &str) {
    key.rsplit_once('/').unwrap_or(("", key))
}

/// The quoted counters any step holds, in key order: the columns of the per-step counter table.
pub fn step_keys(steps: &[Step]) -> Vec<String> {
    let mut keys: Vec<&String> =
        steps.iter().flat_map(|s| s.counters.keys()).filter(|k| quoted(split_key(k).1)).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_studies_counters_are_quoted_and_others_are_not() {
        for name in [
            "cpu_pct",
            "disk_nvme0n1_transfers_per_s",
            "disk_vda_ms_per_transfer",
            "disk_vda_queue_length",
            "disk_sda1_busy_pct",
            "buffer_hit_pct",
            "checkpoint_pages_per_s",
            "watts",
        ] {
            assert!(quoted(name), "{name}");
        }
        for name in
            ["cpu_user_pct", "mem_used_bytes", "disk_vda_reads_per_s", "disk_vda_idle_pct", "commits_per_s"]
        {
            assert!(!quoted(name), "{name}");
        }
    }
}
