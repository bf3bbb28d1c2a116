//! `deploy/slurm/submit-load` under the real Slurm (issue 44): a load's begin, its three parts as srun
//! tasks and its finish, chained by afterok, load one database and then two at once to a database
//! `tpcc check` passes, holding the rows of a load in one process; and the finish job refuses, naming
//! the part, while one is missing.

use std::path::Path;
use std::process::Command;

use crate::checksums;
use crate::common::{oltpgen, sql};
use crate::slurm::{job_output, settled_state};

/// `deploy/slurm/<script> args…` run in `dir` with oltpgen as the binary: its stdout (job ids).
fn slurm(dir: &Path, script: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm").join(script);
    let ran = Command::new(script)
        .args(args)
        .env("OLTPGEN", env!("CARGO_BIN_EXE_oltpgen"))
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    String::from_utf8_lossy(&ran.stdout).trim().to_string()
}

#[cfg_attr(
    not(oltpgen_test_slurm),
    ignore = "needs a running Slurm: export SLURM_CONF (../shared/slurm/start prints it)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn three_srun_tasks_load_one_database_then_two_and_the_finish_waits_for_every_part() {
    let names = ["whole", "one", "two", "three", "missing"];
    let (pg, urls) = crate::common::server_with(&names).await;
    let out = oltpgen(&["tpcc", "load", "--scale", "3", "--url", &urls[0], "-q"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let sums = checksums::pg(&sql(&pg.target("whole")).await).await;
    let dir = tempfile::tempdir().unwrap();
    let load = ["tpcc", "load", "--scale", "3", "-q"];
    for urls in [&urls[1..2], &urls[2..4]] {
        let each: Vec<&str> = urls.iter().flat_map(|u| ["--url", u.as_str()]).collect();
        let ids = slurm(dir.path(), "submit-load", &[&["3"][..], &load, &each].concat(), &[]);
        let ids: Vec<&str> = ids.split(' ').collect();
        assert_eq!(ids.len(), 3, "{ids:?}");
        for (step, job) in ["begin", "parts", "finish"].iter().zip(&ids) {
            let state = settled_state(job);
            assert!(state.starts_with("COMPLETED"), "{step}: {state} {}", job_output(dir.path(), job));
        }
        let parts = job_output(dir.path(), ids[1]);
        for part in ["0/3", "1/3", "2/3"] {
            assert!(parts.contains(&format!("loaded part {part} of tpcc scale 3")), "{parts}");
        }
        let check: Vec<&str> = [&["tpcc", "check"][..], &each].concat();
        let out = oltpgen(&check);
        assert_eq!(out.code, 0, "{}", out.all());
    }
    for name in ["one", "two", "three"] {
        assert_eq!(checksums::pg(&sql(&pg.target(name)).await).await, sums, "{name}");
    }

    // Parts 0 and 2 only: the finish job fails, naming part 1.
    let missing = ["--url", urls[4].as_str()];
    let out = oltpgen(&[&load[..], &missing, &["--begin", "--parts", "3"]].concat());
    assert_eq!(out.code, 0, "{}", out.all());
    for part in ["0/3", "2/3"] {
        let out = oltpgen(&[&load[..], &missing, &["--agent", part]].concat());
        assert_eq!(out.code, 0, "{}", out.all());
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm/load.sbatch");
    let args =
        [&["--parsable", "--ntasks", "1"][..], &[script.to_str().unwrap()], &["finish"], &load, &missing]
            .concat();
    let ran = Command::new("sbatch")
        .args(&args)
        .env("OLTPGEN", env!("CARGO_BIN_EXE_oltpgen"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let job = String::from_utf8_lossy(&ran.stdout).trim().to_string();
    let state = settled_state(&job);
    let said = job_output(dir.path(), &job);
    assert!(state.starts_with("FAILED"), "{state} {said}");
    assert!(said.contains("part 1/3 (") && !said.contains("part 0/3"), "{said}");
}
