//! Printing what consistency checks found, and what a drop did, the same way for every workload.

use std::process::ExitCode;

use oltpgen_driver::consistency::{Clause, ClauseOutcome};
use oltpgen_driver::{Error, Target};

/// Prints one line per check; exit 1 (with one line saying which) when any fails.
pub fn report(target: &Target, clauses: &[Clause]) -> Result<ExitCode, Error> {
    let mut failed = Vec::new();
    for c in clauses {
        match &c.outcome {
            ClauseOutcome::Pass => println!("{:<9} pass  {}", c.number, c.title),
            ClauseOutcome::NotApplicable(why) => println!("{:<9} n/a   {} ({why})", c.number, c.title),
            ClauseOutcome::Fail { count, examples } => {
                println!(
                    "{:<9} FAIL  {}: {count} offending, e.g. {}",
                    c.number,
                    c.title,
                    examples.join("; ")
                );
                failed.push(c.number.as_str());
            }
        }
    }
    if failed.is_empty() {
        println!("consistent: every condition that applies holds ({target})");
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Error::failed(format!(
            "{} of {} consistency conditions fail: {} ({target})",
            failed.len(),
            clauses.len(),
            failed.join(", ")
        )))
    }
}

/// Says what a drop of `workload` from `target` did.
pub fn dropped(target: &Target, workload: &str, dropped: bool) {
    if dropped {
        println!("dropped the {workload} tables from {target}");
    } else {
        println!("{target} holds no {workload} tables: nothing to drop");
    }
}
