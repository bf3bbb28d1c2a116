//! `check --sample` where it has no sampled form: DS2's checks have no per-unit form yet, so `ds2 check
//! --sample K` is refused in one line, before any database is asked, on every engine.

use crate::common::{assert_refused, oltpgen};

#[test]
fn ds2_check_sample_is_refused_in_one_line_on_every_engine() {
    for url in ["postgres://u@127.0.0.1:9/db", "mysql://u@127.0.0.1:9/db", "sqlserver://u:p@127.0.0.1:9/db"] {
        let out = oltpgen(&["ds2", "check", "--url", url, "--sample", "2"]);
        assert_refused(
            &out,
            "--sample: ds2's checks have no sampled form: check it whole (without --sample)",
        );
    }
}
