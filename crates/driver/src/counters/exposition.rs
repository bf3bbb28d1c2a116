//! The Prometheus text format (version 0.0.4), read: a sample is `name{label="value",…} value
//! [timestamp]`, `#` lines are comments. Simple enough to read here, for the exporters' pages a run
//! scrapes (node_exporter's, windows_exporter's) and for the tests of oltpgen's own `/metrics`.

/// One sample of the text format: its name, labels and value.
#[derive(Debug, PartialEq)]
pub struct Sample<'a> {
    /// The metric's name.
    pub name: &'a str,
    /// Its labels, in the order given (values unescaped).
    pub labels: Vec<(&'a str, String)>,
    /// Its value (`NaN`, `+Inf` and `-Inf` as the format spells them).
    pub value: f64,
}

impl Sample<'_> {
    /// The value of label `key`, if it has one.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
    }
}

/// Every sample in `text`; lines that are not samples (comments, blanks, a line cut short) are skipped.
pub fn parse(text: &str) -> Vec<Sample<'_>> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Sample<'_>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let name_end = line.find(|c: char| c == '{' || c.is_whitespace())?;
    let name = &line[..name_end];
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        let (parsed, after) = parse_labels(inner)?;
        labels = parsed;
        rest = after;
    }
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample { name, labels, value })
}

/// Labels up to the closing `}`, and what follows it.
fn parse_labels(mut s: &str) -> Option<(Vec<(&str, String)>, &str)> {
    let mut labels = Vec::new();
    loop {
        s = s.trim_start_matches([',', ' ']);
        if let Some(after) = s.strip_prefix('}') {
            return Some((labels, after));
        }
        let (key, after) = s.split_once('=')?;
        let mut chars = after.strip_prefix('"')?.char_indices();
        let mut value = String::new();
        let end = loop {
            match chars.next()? {
                (i, '"') => break i,
                (_, '\\') => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    c => value.push(c),
                },
                (_, c) => value.push(c),
            }
        };
        labels.push((key.trim(), value));
        s = &after[1 + end + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_with_labels_escapes_and_timestamps() {
        let text = "# HELP x A thing.\n# TYPE x counter\nx 1\n\
                    y{a=\"1\",b=\"q\\\"uo\\\\te\\n\"} 2.5e+03 1700000000000\n\
                    z{le=\"+Inf\",} +Inf\nbroken{a=\"1\" 3\n\n";
        let samples = parse(text);
        assert_eq!(samples.len(), 3, "{samples:?}");
        assert_eq!(samples[0], Sample { name: "x", labels: vec![], value: 1.0 });
        assert_eq!(samples[1].value, 2500.0);
        assert_eq!(samples[1].label("a"), Some("1"));
        assert_eq!(samples[1].label("b"), Some("q\"uo\\te\n"));
        assert_eq!(samples[2].value, f64::INFINITY);
        assert_eq!(samples[2].label("le"), Some("+Inf"));
    }
}
