//! YCSB's core workloads A–F (`oltpgen ycsb --workload a..f`), shipped in the binary as one workload
//! file (`ycsb.toml`: YCSB's `usertable` and its five operations) and each workload's proportions of
//! them, as YCSB's `workloads/workload[a-f]` set them.

use oltpgen_datagen::defined::{ParamSpec, WorkloadDef, YcsbRequest};

use super::Defined;
use crate::Error;

/// The workload file: `usertable` and the operations read, update, insert, scan and
/// read-modify-write, each of weight 1 (a workload sets its own).
const FILE: &str = include_str!("ycsb.toml");

/// A workload's operations by name, each with its weight in percent.
type Proportions = &'static [(&'static str, u32)];

/// Each core workload: its letter, its operations' weights (percent) and whether its reads ask for the
/// latest records (D) rather than YCSB's scrambled zipfian.
const WORKLOADS: [(char, Proportions, bool); 6] = [
    ('a', &[("read", 50), ("update", 50)], false),
    ('b', &[("read", 95), ("update", 5)], false),
    ('c', &[("read", 100)], false),
    ('d', &[("read", 95), ("insert", 5)], true),
    ('e', &[("scan", 95), ("insert", 5)], false),
    ('f', &[("read", 50), ("read_modify_write", 50)], false),
];

impl Defined {
    /// YCSB's core workload `letter` (`a` to `f`).
    ///
    /// # Errors
    /// [`Error::Usage`] for a letter that is not one of them.
    pub fn ycsb(letter: char) -> Result<Self, Error> {
        let letter = letter.to_ascii_lowercase();
        let Some((_, weights, latest)) = WORKLOADS.iter().find(|w| w.0 == letter) else {
            return Err(Error::usage(format!(
                "--workload {letter}: YCSB's core workloads are a, b, c, d, e and f: give one of them"
            )));
        };
        let mut def: WorkloadDef = toml::from_str(FILE).expect("the shipped YCSB file parses");
        def.transactions.retain_mut(|t| {
            let weight = weights.iter().find(|(name, _)| *name == t.name).map(|w| w.1);
            t.weight = weight.unwrap_or(0);
            weight.is_some()
        });
        if *latest {
            for read in def.transactions.iter_mut() {
                for p in read.params.values_mut() {
                    if let ParamSpec::Ycsb { request: request @ YcsbRequest::Zipfian, .. } = p {
                        *request = YcsbRequest::Latest;
                    }
                }
                // A latest record may be one a user is inserting right now, not yet committed.
                read.statements.iter_mut().for_each(|s| s.rows = None);
            }
        }
        let proportions: Vec<String> = weights.iter().map(|(n, w)| format!("{n} {w}%")).collect();
        let source = format!(
            "# oltpgen ycsb --workload {letter}: {}{}\n{FILE}",
            proportions.join(", "),
            if *latest { ", reads of the latest records" } else { "" }
        );
        // One load serves every workload, as in YCSB: the load records the table, not the mix.
        let fingerprint = super::fingerprint(&WorkloadDef { transactions: Vec::new(), ..def.clone() });
        Ok(Defined { source: Some(source.into()), fingerprint, ..Self::new(def)? })
    }
}

#[cfg(test)]
mod tests {
    use super::Defined;

    #[test]
    fn every_core_workload_is_a_valid_definition_with_its_proportions() {
        for letter in ['a', 'b', 'c', 'd', 'e', 'f'] {
            let w = Defined::ycsb(letter).unwrap_or_else(|e| panic!("{letter}: {e}"));
            let total: u32 = w.workload.def().transactions.iter().map(|t| t.weight).sum();
            assert_eq!(total, 100, "{letter}");
        }
        let e = Defined::ycsb('a').unwrap().workload.txn_names().to_vec();
        assert_eq!(e, ["read", "update"]);
        assert!(Defined::ycsb('g').unwrap_err().to_string().contains("--workload g"));
    }
}
