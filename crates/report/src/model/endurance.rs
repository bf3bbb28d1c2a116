//! Flash storage's life at a measured write rate, as Iometer's study projected it: the host's writes
//! per day, multiplied by the write amplification the flash does inside, against the endurance the
//! drive is rated for (its TBW or PBW).

use serde::{Deserialize, Serialize};

/// Seconds in a day and days in a year, as endurance ratings count them.
const DAY_S: f64 = 86_400.0;
const YEAR_DAYS: f64 = 365.0;

/// The projection of a result: what it assumed and what follows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Endurance {
    /// `--rated-endurance`: bytes the drive is rated to take written (decimal units, as rated).
    pub rated_bytes: f64,
    /// `--write-amplification`: bytes the flash writes per byte the host writes.
    pub write_amplification: f64,
    /// Bytes the host writes per day at the measured rate (the headline step's).
    pub host_write_bytes_per_day: f64,
    /// Years until the rated endurance is written at that rate.
    pub years: f64,
}

impl Endurance {
    /// The projection for a drive rated `rated_bytes` with `write_amplification`, written at
    /// `host_write_bytes_per_s`; `None` without writes (the drive then outlives any projection).
    pub fn project(rated_bytes: f64, write_amplification: f64, host_write_bytes_per_s: f64) -> Option<Self> {
        let per_day = host_write_bytes_per_s * DAY_S;
        (per_day > 0.0).then(|| Endurance {
            rated_bytes,
            write_amplification,
            host_write_bytes_per_day: per_day,
            years: rated_bytes / (per_day * write_amplification) / YEAR_DAYS,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_s_drive_lasts_about_six_years() {
        // 151 GB a day, write amplification 3, 1 PB rated: "about six years".
        let e = Endurance::project(1e15, 3.0, 151e9 / DAY_S).unwrap();
        assert!((e.host_write_bytes_per_day - 151e9).abs() < 1.0);
        assert!((e.years - 6.05).abs() < 0.01, "{}", e.years);
        assert_eq!(Endurance::project(1e15, 3.0, 0.0), None);
    }
}
