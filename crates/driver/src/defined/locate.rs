//! Where in a workload file the part an error names stands: a definition's faults name the table,
//! column, transaction, statement or check (`transaction deposit, statement 2: …`), and the file's line
//! of it is what a person fixing it looks for first.

/// The line (from 1) of `text`, a workload file in TOML, where the part `error` names is written; `None`
/// when the error names none, or the file does not say it the usual way (`name = "…"` under
/// `[[tables]]` or `[[transactions]]`, statements each with their `sql = …`).
pub(super) fn line_of(text: &str, error: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    // The section headers' lines, and where each section ends.
    let section_end = |from: usize| {
        (from + 1..lines.len()).find(|&i| lines[i].trim_start().starts_with("[[")).unwrap_or(lines.len())
    };
    if let Some(n) = word_after(error, "check ").and_then(|w| w.parse::<usize>().ok()) {
        let at = lines.iter().enumerate().filter(|(_, l)| l.trim() == "[[checks]]").nth(n.checked_sub(1)?)?;
        return Some(at.0 + 1);
    }
    if error.contains("headline: ") {
        return lines.iter().position(|l| l.trim_start().starts_with("headline")).map(|i| i + 1);
    }
    let (header, name) = if let Some(name) = word_after(error, "transaction ") {
        ("[[transactions]]", name)
    } else {
        ("[[tables]]", word_after(error, "table ")?)
    };
    let named = |i: usize| {
        let l = lines[i].trim();
        l.starts_with("name") && l.contains(&format!("\"{name}\""))
    };
    let start = (0..lines.len())
        .filter(|&i| lines[i].trim() == header)
        .find_map(|h| (h + 1..section_end(h)).find(|&i| named(i)))?;
    let end = section_end(start);
    if let Some(n) = word_after(error, ", statement ").and_then(|w| w.parse::<usize>().ok()) {
        let sql = |l: &str| {
            let l = l.trim_start().trim_start_matches('{').trim_start();
            l.starts_with("sql ") || l.starts_with("sql=")
        };
        return (start..end).filter(|&i| sql(lines[i])).nth(n.checked_sub(1)?).map(|i| i + 1);
    }
    if error.contains(", ack: ") {
        let ack = |l: &str| l.trim_start().starts_with("ack ") || l.trim_start().starts_with("ack=");
        return (start..end).find(|&i| ack(lines[i])).map(|i| i + 1).or(Some(start + 1));
    }
    if let Some(column) = word_after(error, ", column ") {
        let quoted = format!("\"{column}\"");
        return (start..end)
            .find(|&i| lines[i].contains("name") && lines[i].contains(&quoted))
            .map(|i| i + 1);
    }
    Some(start + 1)
}

/// The word of `text` right after `prefix` (letters, digits and `_`).
fn word_after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let at = text.find(prefix)? + prefix.len();
    let rest = &text[at..];
    let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (len > 0).then(|| &rest[..len])
}

#[cfg(test)]
mod tests {
    use super::line_of;

    const FILE: &str = r#"name = "bank"

[[tables]]
name = "accounts"
rows = 10
columns = [
  { name = "id", ty = "int", gen = "sequence" },
  { name = "balance", ty = "int", gen = { uniform = { min = 0, max = 9 } } },
]

[[transactions]]
name = "deposit"
weight = 1
statements = [
  { sql = "UPDATE accounts SET balance = balance + 1 WHERE id = :id" },
  { sql = "SELECT :who" },
]

[[checks]]
name = "x"
sql = "SELECT 1"
"#;

    #[test]
    fn the_part_an_error_names_is_found_in_the_file() {
        assert_eq!(
            line_of(FILE, "workload bank: transaction deposit, statement 2: parameter :who"),
            Some(16)
        );
        assert_eq!(line_of(FILE, "workload bank: transaction deposit: weight 0"), Some(12));
        assert_eq!(line_of(FILE, "workload bank: table accounts, column balance: min 9 is above"), Some(8));
        assert_eq!(line_of(FILE, "check 1 (x): the server refused it"), Some(19));
        assert_eq!(line_of(FILE, "workload bank: no tables"), None);
    }
}
