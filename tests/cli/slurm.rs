//! `deploy/slurm/` under a real Slurm (`../shared/slurm/start`: munged, slurmctld and three slurmd on
//! this machine; CI starts it and exports `SLURM_CONF`): three agents as one job's srun tasks against a
//! throwaway PostgreSQL, merged by a job that runs only after they all succeeded (`afterok`); and one
//! agent, a real oltpgen, cut short during its run: srun ends the others, the merge job never runs,
//! and `report merge` of the parts by hand refuses a missing part, or leaves the step cut short INVALID. Without `SLURM_CONF` when the tests are built,
//! these are listed as ignored with the reason.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use crate::common::{assert_refused, oltpgen, result_json};

/// `deploy/slurm/submit 3 tpcc run …` of 6 users on `url`, the agents' parts in `out`, run by `binary`
/// (oltpgen, or a wrapper); returns the agents' and the merge's job ids.
fn submit(url: &str, out: &Path, binary: &str) -> (String, String) {
    let start_at = humantime::format_rfc3339(SystemTime::now() + Duration::from_secs(10)).to_string();
    let submit = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm/submit");
    #[rustfmt::skip]
    let args = [
        "3", "tpcc", "run", "--url", url, "--users", "6", "--think-time", "0", "--keying-time", "0",
        "--warmup", "1s", "--duration", "3s", "--client-threads", "1", "-q",
    ];
    let ran = Command::new(submit)
        .args(args)
        .env("OLTPGEN", binary)
        .env("OLTPGEN_OUT", out)
        .env("OLTPGEN_START_AT", &start_at)
        .current_dir(out.parent().unwrap())
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let ids = String::from_utf8_lossy(&ran.stdout).trim().to_string();
    let (agents, merge) = ids.split_once(' ').expect("two job ids");
    (agents.to_string(), merge.to_string())
}

/// What job `job` printed (its `--output` file in `dir`), for a failure's message.
pub(crate) fn job_output(dir: &Path, job: &str) -> String {
    let file = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(&format!("-{job}.out")));
    file.and_then(|f| std::fs::read_to_string(f.path()).ok()).unwrap_or_default()
}

/// The job's state as `scontrol` tells it (`COMPLETED`, `FAILED`, `PENDING`, …), once it is not
/// running any more, or after two minutes.
pub(crate) fn settled_state(job: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let out = Command::new("scontrol").args(["show", "job", job]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let state =
            text.split_whitespace().find_map(|w| w.strip_prefix("JobState=")).unwrap_or("").to_string();
        let waiting = state == "PENDING" && !text.contains("DependencyNeverSatisfied");
        let running = matches!(state.as_str(), "RUNNING" | "CONFIGURING" | "COMPLETING" | "");
        if !(running || waiting) || Instant::now() > deadline {
            return format!(
                "{state} {}",
                if text.contains("DependencyNeverSatisfied") { "never" } else { "" }
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[cfg_attr(
    not(oltpgen_test_slurm),
    ignore = "needs a running Slurm: export SLURM_CONF (../shared/slurm/start prints it)"
)]
#[tokio::test(flavor = "multi_thread")]
async fn three_agents_run_as_srun_tasks_and_merge_after_they_all_succeed() {
    let (_pg, url) = crate::agents::loaded().await;
    let urls = [url];
    let dir = tempfile::tempdir().unwrap();

    let parts = dir.path().join("ok");
    let (agents, merge) = submit(&urls[0], &parts, env!("CARGO_BIN_EXE_oltpgen"));
    let state = settled_state(&agents);
    assert!(state.starts_with("COMPLETED"), "the agents' job: {state} {}", job_output(dir.path(), &agents));
    let state = settled_state(&merge);
    assert!(
        state.starts_with("COMPLETED"),
        "the merge ran after them: {state} {}",
        job_output(dir.path(), &merge)
    );
    let merged = result_json(&parts.join("merged"));
    assert_eq!(merged["config"]["agents"], 3);
    assert_eq!(merged["steps"][0]["users"], 6, "the three srun tasks' users together");
    let each: u64 = (0..3)
        .map(|i| {
            result_json(&parts.join(format!("agent-{i}")))["steps"][0]["transactions"]["new_order"]["count"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert_eq!(merged["steps"][0]["transactions"]["new_order"]["count"], each);

    // Agent 1, a real oltpgen, is cut short during the measured window (as by a node lost: its
    // wrapper interrupts it 2 s after the common start) and exits non-zero; srun ends the others
    // (--kill-on-bad-exit), the merge never runs, and a merge by hand is refused or leaves the step it
    // cut short INVALID.
    let failing = dir.path().join("fail-agent-1");
    std::fs::write(
        &failing,
        format!(
            "#!/bin/bash\n\
             [ \"$SLURM_PROCID\" = 1 ] || exec {bin} \"$@\"\n\
             {bin} \"$@\" & pid=$!\n\
             sleep $(( $(date -d \"$OLTPGEN_START_AT\" +%s) + 2 - $(date +%s) ))\n\
             kill -TERM $pid\n\
             wait $pid; rc=$?\n\
             echo \"agent 1: oltpgen interrupted, exit $rc\" >&2\n\
             exit $(( rc == 0 ? 3 : rc ))\n",
            bin = env!("CARGO_BIN_EXE_oltpgen")
        ),
    )
    .unwrap();
    Command::new("chmod").args(["+x", failing.to_str().unwrap()]).status().unwrap();
    let parts = dir.path().join("failed");
    let (agents, merge) = submit(&urls[0], &parts, failing.to_str().unwrap());
    let state = settled_state(&agents);
    assert!(state.starts_with("FAILED"), "the agents' job fails with its task: {state}");
    let merge_state = settled_state(&merge);
    assert!(
        merge_state.contains("CANCELLED") || merge_state.contains("never"),
        "the merge never runs: {merge_state}"
    );
    assert!(!parts.join("merged").exists());
    // Agent 1 ran oltpgen, which was cut short: its part says so.
    let cut = result_json(&parts.join("agent-1"));
    assert_eq!(cut["config"]["agent"], "1/3");
    assert_eq!(cut["interrupted"], true, "agent 1's part was cut short: {}", job_output(dir.path(), &agents));
    let written: Vec<String> = (0..3)
        .map(|i| parts.join(format!("agent-{i}")))
        .filter(|p| p.join("result.json").exists())
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    let mut args = vec!["report", "merge"];
    args.extend(written.iter().map(String::as_str));
    let merged = dir.path().join("by-hand");
    args.extend(["--out", merged.to_str().unwrap()]);
    let by_hand = oltpgen(&args);
    if written.len() < 3 {
        // srun killed the others before they wrote a part: the merge names the first one missing.
        assert_refused(&by_hand, "'s part is missing");
    } else {
        // They wrote theirs as they stopped: the step agent 1 cut short is never a pass.
        assert_eq!(by_hand.code, 0, "{}", by_hand.all());
        let step = &result_json(&merged)["steps"][0];
        assert!(step["cap"]["invalid"].is_string() && step["cap"]["passed"] == false, "{step}");
    }
}
