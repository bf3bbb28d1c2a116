//! [`LatencyHistogram`]: response times in microseconds, mergeable exactly, serialized compactly.

use std::fmt;

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
        let mut inner: Histogram<u64> =
            Deserializer::new().deserialize(&mut bytes.as_slice()).map_err(HistogramError::Decode)?;
        if inner.low() != LOWEST_US || inner.high() != HIGHEST_US || inner.sigfig() != SIGNIFICANT_DIGITS {
            return Err(HistogramError::Layout {
                low: inner.low(),
                high: inner.high(),
                sigfig: inner.sigfig(),
            });
        }
        inner.auto(false);
        Ok(Self { inner })
    }
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
        assert!(matches!(LatencyHistogram::from_base64("AAAAAAAA"), Err(HistogramError::Decode(_))));
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
