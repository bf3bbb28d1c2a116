//! Where a statement's parameters stand in its SQL: oltpgen's `$n` and a named parameter's `:name`,
//! found outside literals, quoted identifiers, dollar-quoted strings and comments. What the definition's
//! checks and the named parameters' rewriting both read.

/// A parameter's mark in SQL: oltpgen's `$n`, or a named parameter's `:name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Mark<'a> {
    /// `$n`.
    Number(usize),
    /// `:name` (not PostgreSQL's `::` cast, nor MySQL's `:=`).
    Name(&'a str),
}

impl Mark<'_> {
    /// The number of a `$n` mark.
    pub(super) fn number(&self) -> Option<usize> {
        if let Mark::Number(n) = self { Some(*n) } else { None }
    }
}

/// Where each parameter's mark stands in `sql`, in order, outside string literals, quoted identifiers,
/// dollar-quoted strings and comments, as PostgreSQL's lexer reads them.
pub(super) fn marks(sql: &str) -> Vec<(std::ops::Range<usize>, Mark<'_>)> {
    let b = sql.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let mut used = Vec::new();
    let mut i = 0;
    // The index of the first `close` at or after `from`, else the end.
    let skip_to = |from: usize, close: &[u8]| {
        b[from..].windows(close.len()).position(|w| w == close).map_or(b.len(), |p| from + p + close.len())
    };
    while i < b.len() {
        let after_ident = i > 0 && ident(b[i - 1]);
        match b[i] {
            // A doubled quote inside a literal ends it and starts another: the same for our purpose.
            b'\'' => i = skip_to(i + 1, b"'"),
            b'"' => i = skip_to(i + 1, b"\""),
            b'-' if b.get(i + 1) == Some(&b'-') => i = skip_to(i + 2, b"\n"),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_to(i + 2, b"*/"),
            b'$' if !after_ident => {
                let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits > 0 {
                    let n = sql[i + 1..i + 1 + digits].parse().unwrap_or(usize::MAX);
                    used.push((i..i + 1 + digits, Mark::Number(n)));
                    i += 1 + digits;
                    continue;
                }
                // `$tag$ … $tag$` (or `$$ … $$`): a string whose tag is an identifier not starting with a digit.
                let tag = b[i + 1..].iter().take_while(|&&c| ident(c) && c != b'$').count();
                if b.get(i + 1 + tag) == Some(&b'$') {
                    let delimiter = &b[i..i + tag + 2];
                    i = skip_to(i + tag + 2, delimiter);
                } else {
                    i += 1;
                }
            }
            // `::type` is a cast: skip both colons.
            b':' if b.get(i + 1) == Some(&b':') => i += 2,
            b':' if b.get(i + 1).is_some_and(|&c| c.is_ascii_lowercase() || c == b'_') => {
                let len = b[i + 1..].iter().take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_').count();
                used.push((i..i + 1 + len, Mark::Name(&sql[i + 1..i + 1 + len])));
                i += 1 + len;
            }
            _ => i += 1,
        }
    }
    used
}
