//! [`UserLoad`]: the user counts of a schedule, parsed from `--users`.
//!
//! A study steps the user load up and watches response times, so `--users` takes one count (`4000`),
//! a list (`4000,8000,14000`), an inclusive range with a step (`1000..14000:1000`), or a list mixing
//! both (`1000..5000:1000,8000`). A range whose step does not divide it evenly stops at the last
//! count not beyond its end (`1000..2500:1000` is 1000, 2000), and [`UserLoad::notes`] says so, for
//! the command to tell the user.
//!
//! ```
//! use oltpgen_report::model::users::UserLoad;
//! let load: UserLoad = "1000..3000:1000,8000".parse().unwrap();
//! assert_eq!(load.counts(), [1000, 2000, 3000, 8000]);
//! ```

use std::str::FromStr;

/// The most steps one `--users` value may expand to: far beyond any real study, and small enough
/// that a typo such as `1..100000000:1` is refused instead of allocating gigabytes.
pub const MAX_STEPS: u64 = 1_000;

/// Why a `--users` value was refused; each names the part at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UserLoadError {
    /// Nothing was given.
    #[error("no user load given: expected a count (4000), a list (4000,8000) or a range (1000..14000:1000)")]
    Empty,
    /// A comma with nothing on one side of it.
    #[error("empty entry in `{0}`: separate user counts with single commas")]
    EmptyEntry(String),
    /// A count that is not a whole, non-negative number.
    #[error("`{0}` is not a whole number of users")]
    NotANumber(String),
    /// A step of zero users would measure nothing.
    #[error("`{0}` asks for 0 users; every step needs at least 1")]
    ZeroUsers(String),
    /// A range without `:STEP`; `suggested` is a step that fits it ([`suggest_step`]).
    #[error("range `{range}` needs a step, e.g. `{range}:{suggested}`")]
    MissingStep {
        /// The range as given.
        range: String,
        /// A step that lands on the range's end in a few steps.
        suggested: u64,
    },
    /// A range whose step is zero would never end.
    #[error("range `{0}` has a step of 0; give a step of at least 1")]
    ZeroStep(String),
    /// A range whose end is below its start.
    #[error("range `{range}` runs backwards: {start} is more than {end}")]
    Reversed {
        /// The range as given.
        range: String,
        /// Its first count.
        start: u64,
        /// Its last count.
        end: u64,
    },
    /// More steps than [`MAX_STEPS`].
    #[error("`{0}` expands to more than {MAX_STEPS} steps; use a larger step")]
    TooManySteps(String),
}

/// The user count of every step of a schedule, in the order they run; never empty, never zero. A
/// value that is one range (`8..4096`, or with a step) also keeps its ends, for a search over it
/// (`--find-max`); one without a step is a search's only ([`UserLoad::sweep`] refuses it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserLoad(Vec<u64>, Vec<String>, Option<Span>);

/// The ends of a value that is one range, and whether it had a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u64,
    end: u64,
    stepped: bool,
}

impl UserLoad {
    /// The user counts, one per step, in order (a range without a step: its two ends).
    pub fn counts(&self) -> &[u64] {
        &self.0
    }

    /// The counts of a sweep: a range without a step is refused, as [`UserLoadError::MissingStep`].
    ///
    /// # Errors
    /// [`UserLoadError::MissingStep`] for a range without a step.
    pub fn sweep(&self) -> Result<&[u64], UserLoadError> {
        match self.2 {
            Some(Span { start, end, stepped: false }) => Err(UserLoadError::MissingStep {
                range: format!("{start}..{end}"),
                suggested: suggest_step(start, end),
            }),
            _ => Ok(&self.0),
        }
    }

    /// The two ends of a value that is one range (with a step or without; in the order given), for a
    /// search over it; `None` for a count or a list.
    pub fn span(&self) -> Option<(u64, u64)> {
        self.2.map(|s| (s.start, s.end))
    }

    /// What the user may not expect of the value: each range that stops short of its end, and where.
    pub fn notes(&self) -> &[String] {
        &self.1
    }
}

impl FromStr for UserLoad {
    type Err = UserLoadError;

    /// # Errors
    /// A [`UserLoadError`] naming the first entry at fault.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.is_empty() {
            return Err(UserLoadError::Empty);
        }
        if let Some((start, end)) = text.split_once("..").filter(|(_, end)| !end.contains([':', ',']))
            && !start.contains(',')
        {
            // One range without a step: a search's range, its ends as given.
            let (start, end) = (users(start, text)?, users(end, text)?);
            return Ok(UserLoad(vec![start, end], Vec::new(), Some(Span { start, end, stepped: false })));
        }
        let (mut counts, mut notes) = (Vec::new(), Vec::new());
        for entry in text.split(',').map(str::trim) {
            if entry.is_empty() {
                return Err(UserLoadError::EmptyEntry(text.to_string()));
            }
            match entry.split_once("..") {
                Some((start, rest)) => notes.extend(push_range(&mut counts, entry, start, rest)?),
                None => counts.push(users(entry, entry)?),
            }
            if counts.len() as u64 > MAX_STEPS {
                return Err(UserLoadError::TooManySteps(text.to_string()));
            }
        }
        let span = match text.split_once("..") {
            Some(_) if !text.contains(',') => {
                Some(Span { start: counts[0], end: *counts.last().unwrap_or(&counts[0]), stepped: true })
            }
            _ => None,
        };
        Ok(UserLoad(counts, notes, span))
    }
}

/// Appends the counts of `range` (`start..end:step`, split at `..` into `start` and `rest`); returns a
/// note when the range stops short of its end.
fn push_range(
    counts: &mut Vec<u64>,
    range: &str,
    start: &str,
    rest: &str,
) -> Result<Option<String>, UserLoadError> {
    let Some((end, step)) = rest.split_once(':') else {
        let suggested = suggest_step(users(start, range)?, users(rest, range)?);
        return Err(UserLoadError::MissingStep { range: range.to_string(), suggested });
    };
    let (start, end) = (users(start, range)?, users(end, range)?);
    let step = number(step)?;
    if step == 0 {
        return Err(UserLoadError::ZeroStep(range.to_string()));
    }
    if start > end {
        return Err(UserLoadError::Reversed { range: range.to_string(), start, end });
    }
    if (end - start) / step + 1 > MAX_STEPS - counts.len() as u64 {
        return Err(UserLoadError::TooManySteps(range.to_string()));
    }
    counts.extend((start..=end).step_by(usize::try_from(step).unwrap_or(usize::MAX)));
    let last = end - (end - start) % step;
    Ok((last != end)
        .then(|| format!("{range} ends at {last}: {end} is not on a step of {step} from {start}")))
}

/// The most steps a suggested step makes of a range: a sweep a person reads at a glance.
const SUGGESTED_STEPS: u64 = 20;

/// A step for the range `start..end` (either order) that lands on its end: the start itself when it
/// divides the span in at most 20 steps (`2..8` → 2, `1000..14000` → 1000, a sweep in
/// multiples of its first load), else the smallest divisor of the span that does (the span at worst).
pub fn suggest_step(start: u64, end: u64) -> u64 {
    let span = start.abs_diff(end);
    if span == 0 {
        return 1;
    }
    let first = start.min(end);
    if span.is_multiple_of(first) && span / first <= SUGGESTED_STEPS {
        return first;
    }
    // The divisors of at least span / 20 are span / k for the k up to 20 that divide the span: the
    // smallest is the one of the largest k. (Issue 36: a scan of every divisor up to the square root
    // took minutes, and overflowed, on a span near u64::MAX.)
    let k = (1..=SUGGESTED_STEPS).rev().find(|k| span.is_multiple_of(*k)).unwrap_or(1);
    span / k
}

/// A user count: a number above zero (`entry` is what an error names).
fn users(text: &str, entry: &str) -> Result<u64, UserLoadError> {
    match number(text)? {
        0 => Err(UserLoadError::ZeroUsers(entry.to_string())),
        n => Ok(n),
    }
}

fn number(text: &str) -> Result<u64, UserLoadError> {
    let text = text.trim();
    // `u64::from_str` accepts a leading `+`; a user count is digits only.
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse().map_err(|_| UserLoadError::NotANumber(text.to_string()))
    } else {
        Err(UserLoadError::NotANumber(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<u64>, UserLoadError> {
        text.parse::<UserLoad>().and_then(|l| l.sweep().map(<[u64]>::to_vec))
    }

    #[test]
    fn one_range_keeps_its_ends_for_a_search_and_one_without_a_step_is_no_sweep() {
        let span = |text: &str| text.parse::<UserLoad>().map(|l| l.span());
        assert_eq!(span("8..4096"), Ok(Some((8, 4096))));
        assert_eq!(span("64..8"), Ok(Some((64, 8))), "the search refuses it, naming --find-max");
        assert_eq!(span("4..128:4"), Ok(Some((4, 128))));
        assert_eq!(span("4..10:4"), Ok(Some((4, 8))), "a stepped range ends where its steps do");
        assert_eq!(span("8"), Ok(None));
        assert_eq!(span("8,16"), Ok(None));
        assert_eq!(span("1..4:1,8"), Ok(None));
        assert_eq!(parse("1..4,8"), Err(UserLoadError::MissingStep { range: "1..4".into(), suggested: 1 }));
        assert_eq!(span("0..8"), Err(UserLoadError::ZeroUsers("0..8".into())));
    }

    #[test]
    fn one_count() {
        assert_eq!(parse("4000"), Ok(vec![4000]));
        assert_eq!(parse(" 8 "), Ok(vec![8]));
    }

    #[test]
    fn a_list_keeps_its_order() {
        assert_eq!(parse("4000,8000,14000"), Ok(vec![4000, 8000, 14000]));
        assert_eq!(parse("300, 100"), Ok(vec![300, 100]));
    }

    #[test]
    fn a_range_is_inclusive() {
        let counts = parse("1000..14000:1000").unwrap();
        assert_eq!(counts.len(), 14);
        assert_eq!((counts[0], counts[13]), (1000, 14000));
        assert_eq!(parse("5..5:3"), Ok(vec![5]));
    }

    #[test]
    fn an_uneven_step_stops_at_or_before_the_end() {
        assert_eq!(parse("1000..2500:1000"), Ok(vec![1000, 2000]));
        let load: UserLoad = "5..10:2,12..14:2".parse().unwrap();
        assert_eq!(load.notes(), ["5..10:2 ends at 9: 10 is not on a step of 2 from 5"]);
    }

    #[test]
    fn ranges_and_counts_mix() {
        assert_eq!(parse("1..3:1,10"), Ok(vec![1, 2, 3, 10]));
    }

    #[test]
    fn typed_errors_name_the_part_at_fault() {
        use UserLoadError::*;
        assert_eq!(parse(""), Err(Empty));
        assert_eq!(parse("  "), Err(Empty));
        assert_eq!(parse("4000,,8000"), Err(EmptyEntry("4000,,8000".into())));
        assert_eq!(parse("0"), Err(ZeroUsers("0".into())));
        assert_eq!(parse("0..10:1"), Err(ZeroUsers("0..10:1".into())));
        assert_eq!(parse("1..10:0"), Err(ZeroStep("1..10:0".into())));
        assert_eq!(parse("10..1:1"), Err(Reversed { range: "10..1:1".into(), start: 10, end: 1 }));
        assert_eq!(parse("1..10"), Err(MissingStep { range: "1..10".into(), suggested: 1 }));
        assert_eq!(parse("many"), Err(NotANumber("many".into())));
        assert_eq!(parse("-5"), Err(NotANumber("-5".into())));
        assert_eq!(parse("+5"), Err(NotANumber("+5".into())));
        assert_eq!(parse("1.5"), Err(NotANumber("1.5".into())));
        assert_eq!(parse("1..x:1"), Err(NotANumber("x".into())));
        assert_eq!(parse("99999999999999999999"), Err(NotANumber("99999999999999999999".into())));
    }

    #[test]
    fn a_range_without_a_step_is_offered_one_that_fits_it() {
        let message = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(message("2..8"), "range `2..8` needs a step, e.g. `2..8:2`");
        assert_eq!(message("1000..14000"), "range `1000..14000` needs a step, e.g. `1000..14000:1000`");
        assert_eq!(message("8..64"), "range `8..64` needs a step, e.g. `8..64:8`");
        assert_eq!(message("x..8"), "`x` is not a whole number of users", "a bad count is named first");
        for (start, end) in [
            (2, 8),
            (3, 10),
            (1, 1000),
            (100, 14_000),
            (7, 7),
            (1, 2),
            (5, 3),
            (13, 1_000_003),
            (1, u64::MAX),
        ] {
            let step = suggest_step(start, end);
            let counts = parse(&format!("{start}..{end}:{step}"));
            let counts = if start <= end {
                counts.unwrap()
            } else {
                parse(&format!("{end}..{start}:{step}")).unwrap()
            };
            assert_eq!(counts.last(), Some(&start.max(end)), "{start}..{end}:{step} lands on its end");
            assert!(
                counts.len() as u64 <= SUGGESTED_STEPS + 1,
                "{start}..{end}:{step}: {} steps",
                counts.len()
            );
        }
    }

    #[test]
    fn runaway_ranges_are_refused_before_allocating() {
        assert_eq!(parse("1..100000000:1"), Err(UserLoadError::TooManySteps("1..100000000:1".into())));
        assert_eq!(parse("1..1000:1"), Ok((1..=1000).collect()));
        assert_eq!(parse("1..1000:1,5"), Err(UserLoadError::TooManySteps("1..1000:1,5".into())));
        assert_eq!(parse("1..600:1,1..600:1"), Err(UserLoadError::TooManySteps("1..600:1".into())));
    }
}
