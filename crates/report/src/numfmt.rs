//! Number formatting shared by the renderers ([`crate::render`]) and the
//! driver's plain progress lines, so a figure reads the same wherever it is printed.

/// `value` rounded to `decimals` places, with thousands separators: `14000.0, 0` → `14,000`.
/// Non-finite values print as Rust prints them; a value that rounds to zero carries no sign.
pub fn thousands(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let digits = format!("{:.*}", decimals, value.abs());
    let (int, frac) = digits.split_once('.').map_or((digits.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = String::new();
    if value < 0.0 && digits.bytes().any(|b| matches!(b, b'1'..=b'9')) {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// `value` to `decimals` places as `{:.N}` prints it, or `-` when it was not measured: a figure that is
/// absent is shown as absent, never as 0.
pub fn fixed(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

/// A figure to about three significant digits, the precision the studies print:
/// `689`, `2,586`, `16.7`, `0.45`.
pub(crate) fn figure(value: f64) -> String {
    let magnitude = value.abs();
    let decimals = if magnitude >= 100.0 || magnitude == 0.0 {
        0
    } else if magnitude >= 10.0 {
        1
    } else {
        2
    };
    thousands(value, decimals)
}

/// A ratio as a factor, `3.36×`, or `n/a` when there is none (a zero baseline).
pub(crate) fn factor(ratio: Option<f64>) -> String {
    ratio.map_or("n/a".to_string(), |r| format!("{r:.2}×"))
}

/// A change in percent with its sign, `+236.1%`, or `n/a` when there is none.
pub(crate) fn percent(change: Option<f64>) -> String {
    change.map_or("n/a".to_string(), |p| format!("{p:+.1}%"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_and_rounds() {
        assert_eq!(thousands(14_000.0, 0), "14,000");
        assert_eq!(thousands(146_931.0, 0), "146,931");
        assert_eq!(thousands(1_234_567.891, 2), "1,234,567.89");
        assert_eq!(thousands(999.96, 1), "1,000.0");
        assert_eq!(thousands(-2_586.0, 0), "-2,586");
        assert_eq!(thousands(-0.04, 1), "0.0");
        assert_eq!(thousands(12.0, 1), "12.0");
        assert_eq!(thousands(f64::NAN, 1), "NaN");
    }

    #[test]
    fn figures_keep_about_three_digits() {
        assert_eq!(figure(689.0), "689");
        assert_eq!(figure(2_586.2), "2,586");
        assert_eq!(figure(16.66), "16.7");
        assert_eq!(figure(0.449_99), "0.45");
        assert_eq!(figure(0.0), "0");
    }

    #[test]
    fn factors_and_percents() {
        assert_eq!(factor(Some(3.360_97)), "3.36×");
        assert_eq!(factor(None), "n/a");
        assert_eq!(percent(Some(236.097)), "+236.1%");
        assert_eq!(percent(Some(-21.2)), "-21.2%");
        assert_eq!(percent(None), "n/a");
    }
}
