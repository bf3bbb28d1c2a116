//! Whether two sets of repeated runs (`--runs`) differ by more than their noise: Welch's t-test, as
//! latte compares its runs (`BenchmarkCmp`), and the sentence a reader wants from it: "B is 12%
//! faster, p < 0.01" or "no significant difference".
//!
//! Welch's test does not assume both sides vary alike (a new storage layer often steadies, or
//! unsettles, throughput as it changes it). The p-value comes from Student's t distribution through
//! the regularized incomplete beta function, computed here (a continued fraction and Lanczos' log
//! gamma, some forty lines) rather than through a statistics crate for one function.
//!
//! ```
//! use oltpgen_report::stats::significance::welch;
//! let s = welch(&[100.0, 102.0, 98.0], &[112.0, 113.0, 111.0]).unwrap();
//! assert!(s.p_value < 0.01);
//! assert_eq!(s.statement("faster", "slower"), "B is 12.0% faster, p < 0.01");
//! ```

use serde::Serialize;

/// The level under which a difference is called significant.
pub const ALPHA: f64 = 0.05;

/// Welch's t-test of `b`'s runs against `a`'s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Significance {
    /// Runs on each side.
    pub runs_a: usize,
    /// Runs of `b`.
    pub runs_b: usize,
    /// Mean over `a`'s runs.
    pub mean_a: f64,
    /// Mean over `b`'s runs.
    pub mean_b: f64,
    /// `(mean_b / mean_a − 1) × 100`.
    pub change_pct: f64,
    /// Welch's t statistic.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value: the chance of a difference this large between the means were there none.
    pub p_value: f64,
    /// `p_value < ALPHA`.
    pub significant: bool,
}

impl Significance {
    /// The verdict in words, `up` and `down` naming what a higher and a lower `b` mean ("faster",
    /// "slower" for throughput; "slower", "faster" for response times).
    pub fn statement(&self, up: &str, down: &str) -> String {
        if !self.significant {
            return format!(
                "no significant difference (p = {:.2}, {} against {} runs)",
                self.p_value, self.runs_a, self.runs_b
            );
        }
        let word = if self.change_pct >= 0.0 { up } else { down };
        let p = if self.p_value < 0.001 {
            "p < 0.001".to_string()
        } else if self.p_value < 0.01 {
            "p < 0.01".to_string()
        } else {
            format!("p = {:.2}", self.p_value)
        };
        format!("B is {:.1}% {word}, {p}", self.change_pct.abs())
    }
}

/// Mean and sample variance.
fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Welch's t-test of `b` against `a`. `None` unless each side has at least two runs and `a`'s mean is
/// not zero. Two sides without any spread are significantly different when their means differ.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Significance> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let ((ma, va), (mb, vb)) = (mean_var(a), mean_var(b));
    let change_pct = crate::stats::percent_change(ma, mb)?;
    let (sa, sb) = (va / a.len() as f64, vb / b.len() as f64);
    let se = (sa + sb).sqrt();
    let (t, df, p_value) = if se > 0.0 {
        let t = (mb - ma) / se;
        let df =
            (sa + sb).powi(2) / (sa.powi(2) / (a.len() as f64 - 1.0) + sb.powi(2) / (b.len() as f64 - 1.0));
        (t, df, two_sided_p(t, df))
    } else {
        let p = if ma == mb { 1.0 } else { 0.0 };
        (if ma == mb { 0.0 } else { f64::INFINITY.copysign(mb - ma) }, (a.len() + b.len() - 2) as f64, p)
    };
    Some(Significance {
        runs_a: a.len(),
        runs_b: b.len(),
        mean_a: ma,
        mean_b: mb,
        change_pct,
        t,
        df,
        p_value,
        significant: p_value < ALPHA,
    })
}

/// The two-sided p-value of Student's t statistic `t` with `df` degrees of freedom:
/// I_{df/(df+t²)}(df/2, 1/2).
pub fn two_sided_p(t: f64, df: f64) -> f64 {
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms: about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = C[1..].iter().enumerate().fold(C[0], |s, (i, c)| s + c / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The fraction converges fast below the mean of the distribution; above it, use the symmetry.
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(b, a, 1.0 - x);
    }
    const TINY: f64 = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut f = d;
    for m in 1..300 {
        let m = f64::from(m);
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + numerator / c;
            c = if c.abs() < TINY { TINY } else { c };
            f *= c * d;
        }
        if (c * d - 1.0).abs() < 1e-15 {
            break;
        }
    }
    front * f / a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_incomplete_beta_matches_known_values() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_0.5(a, a) = 0.5.
        for x in [0.1, 0.5, 0.9] {
            assert!((incomplete_beta(1.0, 1.0, x) - x).abs() < 1e-12);
            assert!((incomplete_beta(3.0, 1.0, x) - x.powi(3)).abs() < 1e-12);
        }
        assert!((incomplete_beta(4.5, 4.5, 0.5) - 0.5).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn p_values_match_students_t() {
        // Two-sided tails of t (from tables): t = 2.776 at 4 df and t = 12.706 at 1 df give 0.05;
        // t = 2.228 at 10 df gives 0.05.
        for (t, df) in [(2.776_f64, 4.0), (12.706, 1.0), (2.228, 10.0)] {
            let p = incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
            assert!((p - 0.05).abs() < 5e-4, "t={t} df={df}: p={p}");
        }
    }

    #[test]
    fn welch_agrees_with_a_reference_computation() {
        // Computed apart from this code (the t density integrated numerically by Simpson's rule):
        // t = 3.8, df = 5.973, p = 0.00904.
        let s = welch(&[100.0, 102.0, 98.0, 101.0], &[104.0, 107.0, 103.0, 106.0]).unwrap();
        assert!((s.t - 3.8).abs() < 1e-9 && (s.df - 5.9735).abs() < 1e-3, "{s:?}");
        assert!((s.p_value - 0.00904).abs() < 5e-5, "{s:?}");
        assert_eq!(s.statement("faster", "slower"), "B is 4.7% faster, p < 0.01");
    }

    #[test]
    fn noise_is_no_difference_and_one_run_is_no_test() {
        let s = welch(&[100.0, 110.0, 90.0], &[101.0, 95.0, 112.0]).unwrap();
        assert!(!s.significant);
        assert!(s.statement("faster", "slower").starts_with("no significant difference (p = 0.74,"), "{s:?}");
        assert_eq!(welch(&[100.0], &[110.0, 111.0]), None);
        let flat = welch(&[5.0, 5.0], &[4.0, 4.0]).unwrap();
        assert_eq!(
            (flat.p_value, flat.statement("faster", "slower")),
            (0.0, "B is 20.0% slower, p < 0.001".into())
        );
    }
}
