//! [`LatencyHistogram`]: response times in microseconds, mergeable exactly, serialized compactly.

use std::borrow::Cow;
use std::fmt;
use std::io::Read as _;
use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2DeflateSerializer};
use serde::{Deserialize, Deserializer as SerdeDeserializer, Serialize, Serializer as SerdeSerializer};

/// The smallest response time told apart from zero, in microseconds.
pub const LOWEST_US: u64 = 1;
/// The largest response time recorded as itself (1 hour); longer ones are clamped to it.
pub const HIGHEST_US: u64 = 3_600_000_000;
/// Significant decimal digits kept for every value (0.1% resolution).
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// Why a histogram could not be merged or decoded.
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    /// The text is not valid base64.
    #[error("histogram is not valid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// The bytes are not a V2 (or V2 deflate) HdrHistogram.
    #[error("histogram is not a valid V2 HdrHistogram: {0:?}")]
    Decode(hdrhistogram::serialization::DeserializeError),
    /// The bytes' header is not one oltpgen could have written (checked before hdrhistogram reads it).
    #[error("histogram is not a valid V2 HdrHistogram: {0}")]
    Malformed(&'static str),
    /// The histogram was recorded with other bounds or precision than oltpgen uses,
    /// so it cannot be merged exactly with ours.
    #[error(
        "histogram has bounds {low}..{high} µs with {sigfig} digits; oltpgen uses {LOWEST_US}..{HIGHEST_US} µs with {SIGNIFICANT_DIGITS}"
    )]
    Layout {
        /// Lowest discernible value of the decoded histogram.
        low: u64,
        /// Highest trackable value of the decoded histogram.
        high: u64,
        /// Significant digits of the decoded histogram.
        sigfig: u8,
    },
    /// The histogram could not be encoded (only an internal fault can cause this).
    #[error("histogram could not be encoded: {0}")]
    Encode(String),
}

/// Response times of one kind of transaction, in microseconds.
///
/// It exists so that every result carries full latency distributions which can be merged
/// *exactly* — across users, intervals, targets and machines — instead of averaging
/// percentiles. Bounds are fixed (1 µs … 1 hour, 3 significant digits) and auto-resize is
/// off, so every histogram has the same bucket layout and memory never grows while recording.
/// In JSON it is a base64 string of the V2 deflate HdrHistogram encoding, which other
/// HdrHistogram implementations can read too.
#[derive(Clone, PartialEq)]
pub struct LatencyHistogram {
    inner: Histogram<u64>,
}

impl fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LatencyHistogram")
            .field("count", &self.count())
            .field("mean_us", &self.mean_us())
            .field("max_us", &self.max_us())
            .finish()
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram with oltpgen's fixed bounds.
    pub fn new() -> Self {
        // The bounds are constants that hdrhistogram accepts (low ≥ 1, high ≥ 2 × low, digits ≤ 5).
        let mut inner = Histogram::new_with_bounds(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)
            .expect("constant histogram bounds are valid");
        inner.auto(false);
        Self { inner }
    }

    /// Records one response time; a value beyond [`HIGHEST_US`] is recorded as [`HIGHEST_US`]
    /// and shows up in [`saturated`](Self::saturated).
    pub fn record_us(&mut self, latency_us: u64) {
        self.inner.saturating_record(latency_us);
    }

    /// Records `count` response times of the same value (clamped like [`record_us`](Self::record_us)).
    pub fn record_n_us(&mut self, latency_us: u64, count: u64) {
        self.inner.saturating_record_n(latency_us, count);
    }

    /// Adds every value of `other` to this histogram: the exact merge.
    pub fn add(&mut self, other: &LatencyHistogram) {
        // Both histograms have the same fixed layout (checked when decoding), so no value of
        // `other` can fall outside this one and `add` cannot fail.
        self.inner.add(&other.inner).expect("histograms with one fixed layout always add");
    }

    /// Empties the histogram, keeping its memory (for per-interval recorders).
    pub fn reset(&mut self) {
        self.inner.reset();
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.inner.len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Mean response time in microseconds (0 when empty).
    pub fn mean_us(&self) -> f64 {
        if self.is_empty() { 0.0 } else { self.inner.mean() }
    }

    /// The response time at `percentile` (0–100) in microseconds (0 when empty).
    pub fn percentile_us(&self, percentile: f64) -> u64 {
        if self.is_empty() { 0 } else { self.inner.value_at_percentile(percentile.clamp(0.0, 100.0)) }
    }

    /// The largest response time recorded, in microseconds (0 when empty).
    pub fn max_us(&self) -> u64 {
        if self.is_empty() { 0 } else { self.inner.max() }
    }

    /// How many values were at or below each of `bounds_us` (ascending), in one pass over what was
    /// recorded: the cumulative buckets of a Prometheus histogram, which sum across processes where
    /// percentiles do not.
    pub fn counts_at_or_below<const N: usize>(&self, bounds_us: &[u64; N]) -> [u64; N] {
        let mut counts = [0; N];
        for v in self.inner.iter_recorded() {
            let value = self.inner.highest_equivalent(v.value_iterated_to());
            let first = bounds_us.partition_point(|&b| b < value);
            counts[first..].iter_mut().for_each(|c| *c += v.count_at_value());
        }
        counts
    }

    /// How many values were at or beyond the 1-hour ceiling (clamped when recorded).
    ///
    /// Derived from the counts themselves, so it survives serialization and merging.
    pub fn saturated(&self) -> u64 {
        self.inner.count_at(HIGHEST_US)
    }

    /// Whether two response times fall in the same bucket, i.e. the histogram cannot tell
    /// them apart. The cap uses it so a step measured exactly at its limit passes.
    pub fn indistinguishable_us(&self, a_us: u64, b_us: u64) -> bool {
        self.inner.equivalent(a_us, b_us)
    }

    /// The V2 deflate encoding as base64 text, as stored in `result.json`.
    ///
    /// # Errors
    /// Only if the encoder fails internally ([`HistogramError::Encode`]).
    pub fn to_base64(&self) -> Result<String, HistogramError> {
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(&self.inner, &mut bytes)
            .map_err(|e| HistogramError::Encode(format!("{e:?}")))?;
        Ok(BASE64.encode(bytes))
    }

    /// Decodes a histogram written by [`to_base64`](Self::to_base64) (V2 or V2 deflate).
    ///
    /// # Errors
    /// Bad base64, a bad encoding, or bounds other than oltpgen's.
    pub fn from_base64(text: &str) -> Result<Self, HistogramError> {
        let bytes = BASE64.decode(text.trim())?;
        let plain = checked_v2(&bytes)?;
        let mut inner: Histogram<u64> =
            Deserializer::new().deserialize(&mut plain.as_ref()).map_err(HistogramError::Decode)?;
        inner.auto(false);
        Ok(Self { inner })
    }
}

/// HdrHistogram's V2 cookies: the plain encoding, and the deflated one.
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_DEFLATE_COOKIE: u32 = 0x1c84_9314;
/// A V2 header: cookie, payload length, normalizing offset, digits (4 bytes each), lowest and highest
/// value, integer-to-double ratio (8 bytes each).
const V2_HEADER_BYTES: usize = 40;

/// The most bytes a V2 encoding of oltpgen's layout takes: the header, and each count at most 9 bytes.
static MAX_V2_BYTES: LazyLock<usize> =
    LazyLock::new(|| V2_HEADER_BYTES + 9 * LatencyHistogram::new().inner.distinct_values());

/// The plain V2 encoding in `bytes` (inflated, when deflated, up to [`MAX_V2_BYTES`]), its header
/// checked against oltpgen's layout before hdrhistogram reads it: hdrhistogram sizes a buffer by the
/// header's payload length and the histogram by its bounds, so a made-up header in a result.json would
/// have it allocate gigabytes (issue 36).
fn checked_v2(bytes: &[u8]) -> Result<Cow<'_, [u8]>, HistogramError> {
    let word = |b: &[u8], at: usize| -> Result<u64, HistogramError> {
        let field = b.get(at..at + 8).ok_or(HistogramError::Malformed("its header is cut short"))?;
        Ok(u64::from_be_bytes(field.try_into().expect("8 bytes")))
    };
    let half = |b: &[u8], at: usize| Ok::<u32, HistogramError>((word(b, at)? >> 32) as u32);
    let plain = match half(bytes, 0)? {
        V2_COOKIE => Cow::Borrowed(bytes),
        V2_DEFLATE_COOKIE => {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(&bytes[8..])
                .take(*MAX_V2_BYTES as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|_| HistogramError::Malformed("its deflated payload does not inflate"))?;
            Cow::Owned(out)
        }
        _ => return Err(HistogramError::Malformed("no V2 cookie")),
    };
    if plain.len() > *MAX_V2_BYTES || half(&plain, 0)? != V2_COOKIE {
        return Err(HistogramError::Malformed("its payload is not a V2 histogram of oltpgen's size"));
    }
    let payload = half(&plain, 4)? as usize;
    if payload > plain.len() - V2_HEADER_BYTES {
        return Err(HistogramError::Malformed("its payload is shorter than its header says"));
    }
    let (digits, low, high) = (half(&plain, 12)?, word(&plain, 16)?, word(&plain, 24)?);
    if (low, high, digits) != (LOWEST_US, HIGHEST_US, u32::from(SIGNIFICANT_DIGITS)) {
        let sigfig = u8::try_from(digits).unwrap_or(u8::MAX);
        return Err(HistogramError::Layout { low, high, sigfig });
    }
    Ok(plain)
}

impl Serialize for LatencyHistogram {
    fn serialize<S: SerdeSerializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.to_base64().map_err(serde::ser::Error::custom)?;
        serializer.serialize_str(&text)
    }
}

impl<'de> Deserialize<'de> for LatencyHistogram {
    fn deserialize<D: SerdeDeserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::from_base64(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic spread of latencies from 100 µs to about 2 s.
    fn sample(i: u64) -> u64 {
        100 + (i * 7919) % 2_000_000
    }

    #[test]
    fn merging_two_halves_equals_the_whole() {
        let mut whole = LatencyHistogram::new();
        let mut first = LatencyHistogram::new();
        let mut second = LatencyHistogram::new();
        for i in 0..10_000 {
            whole.record_us(sample(i));
            if i % 2 == 0 { &mut first } else { &mut second }.record_us(sample(i));
        }
        first.add(&second);
        assert_eq!(first.count(), whole.count());
        assert_eq!(first.max_us(), whole.max_us());
        assert_eq!(first.mean_us(), whole.mean_us());
        for p in [50.0, 90.0, 95.0, 99.0, 99.9] {
            assert_eq!(first.percentile_us(p), whole.percentile_us(p), "p{p}");
        }
        assert_eq!(first, whole);
    }

    #[test]
    fn serde_round_trip_is_lossless() {
        let mut h = LatencyHistogram::new();
        for i in 0..5_000 {
            h.record_us(sample(i));
        }
        h.record_us(HIGHEST_US * 2);
        let json = serde_json::to_string(&h).unwrap();
        assert!(json.starts_with('"'), "a base64 string: {json}");
        let back: LatencyHistogram = serde_json::from_str(&json).unwrap();
        assert_eq!(back, h);
        assert_eq!(back.count(), 5_001);
        assert_eq!(back.saturated(), 1);
    }

    #[test]
    fn out_of_range_values_are_clamped_and_counted() {
        let mut h = LatencyHistogram::new();
        h.record_us(10 * HIGHEST_US);
        h.record_us(1_000);
        assert_eq!(h.count(), 2);
        assert_eq!(h.saturated(), 1);
        assert!(h.max_us() >= HIGHEST_US);
    }

    #[test]
    fn counts_at_or_below_are_cumulative_per_bound() {
        let mut h = LatencyHistogram::new();
        for us in [500, 1_000, 1_500, 20_000, 2_000_000] {
            h.record_us(us);
        }
        assert_eq!(h.counts_at_or_below(&[1_000, 10_000, 1_000_000, 5_000_000]), [2, 3, 4, 5]);
        assert_eq!(LatencyHistogram::new().counts_at_or_below(&[1_000]), [0]);
    }

    #[test]
    fn empty_histogram_reports_zeros() {
        let h = LatencyHistogram::new();
        assert_eq!((h.count(), h.max_us(), h.percentile_us(95.0)), (0, 0, 0));
        assert_eq!(h.mean_us(), 0.0);
    }

    #[test]
    fn bad_text_is_a_typed_error() {
        assert!(matches!(LatencyHistogram::from_base64("not base64!"), Err(HistogramError::Base64(_))));
        assert!(matches!(LatencyHistogram::from_base64("AAAAAAAA"), Err(HistogramError::Malformed(_))));
    }

    /// A plain V2 header of oltpgen's layout claiming `payload` bytes, with `body` after it.
    fn header(payload: u32, digits: u32, high: u64, body: &[u8]) -> String {
        let mut b = Vec::new();
        for word in [V2_COOKIE, payload, 0, digits] {
            b.extend_from_slice(&word.to_be_bytes());
        }
        for word in [LOWEST_US, high, 1f64.to_bits()] {
            b.extend_from_slice(&word.to_be_bytes());
        }
        b.extend_from_slice(body);
        BASE64.encode(b)
    }

    #[test]
    fn a_made_up_header_is_refused_before_anything_is_sized_by_it() {
        // hdrhistogram would have sized a 4 GiB buffer by this payload length (issue 36).
        let huge = header(u32::MAX, 3, HIGHEST_US, &[0; 8]);
        assert!(matches!(LatencyHistogram::from_base64(&huge), Err(HistogramError::Malformed(_))));
        // And a histogram of the widest bounds by these.
        let wide = header(0, 5, u64::MAX, &[]);
        assert!(matches!(
            LatencyHistogram::from_base64(&wide),
            Err(HistogramError::Layout { sigfig: 5, .. })
        ));
        let ours = header(0, 3, HIGHEST_US, &[]);
        assert_eq!(LatencyHistogram::from_base64(&ours).unwrap().count(), 0, "an empty histogram of ours");
    }

    #[test]
    fn other_layouts_are_refused() {
        let mut other = Histogram::<u64>::new_with_bounds(1, 60_000_000, 2).unwrap();
        other.record(5).unwrap();
        let mut bytes = Vec::new();
        V2DeflateSerializer::new().serialize(&other, &mut bytes).unwrap();
        assert!(matches!(
            LatencyHistogram::from_base64(&BASE64.encode(bytes)),
            Err(HistogramError::Layout { sigfig: 2, .. })
        ));
    }
}
