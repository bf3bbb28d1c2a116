//! The SVG plotting kit both pages draw with: a line chart (`line_chart`) of `Series` with round
//! ticks on both axes, each axis ending a little past its data (less than half a tick's step), shaded
//! `Band`s of the x axis labelled where they fit, dashed limits (each cap rule, [`CAP_COLOUR`]) drawn
//! when within reach of the data and named at the top when not, a legend, and every point's value on
//! hover (SVG `<title>`); `overlay_chart` lays several results' lines on one chart.

use std::fmt::Write as _;

use crate::numfmt::thousands;
use crate::render::html::frame::esc;

/// Colour of the dashed cap line (and of failed verdicts).
pub const CAP_COLOUR: &str = "#d62728";

/// A limit more than this many times the highest value is named above the chart, not drawn.
const FAR_LIMIT: f64 = 5.0;

/// Above this many points a line is drawn without a dot on each.
const MAX_DOTS: usize = 60;

/// One line of a chart.
pub(crate) struct Series<'a> {
    /// The legend's name.
    pub(crate) name: &'a str,
    /// The line's colour.
    pub(crate) colour: &'a str,
    /// `(x, y)` in data units, in drawing order.
    pub(crate) points: Vec<(f64, f64)>,
}

/// What a chart shows besides its lines.
pub(crate) struct Chart<'a> {
    /// The chart's title, drawn above it and named on hover.
    pub(crate) title: &'a str,
    /// The x axis' label.
    pub(crate) x_label: &'a str,
    /// The y axis' label.
    pub(crate) y_label: &'a str,
    /// Labelled positions of the x axis, which then spans them; else the axis runs from zero with
    /// round ticks.
    pub(crate) x_ticks: Option<Vec<(f64, String)>>,
    /// Dashed horizontal lines, each at a rule's limit with the rule (`avg=1s`): the cap. Rules at
    /// one level share a line.
    pub(crate) limits: Vec<(f64, String)>,
    /// Shaded spans of the x axis and their labels: the warm-up, each step's measured window.
    pub(crate) bands: Vec<Band>,
}

/// A shaded span of a time chart's x axis.
pub(crate) struct Band {
    /// Where the span starts, in x's data units.
    pub(crate) from: f64,
    /// Where it ends.
    pub(crate) to: f64,
    /// Its label, drawn above its top left when it fits and named on hover.
    pub(crate) label: String,
    /// A shorter label, drawn when the label does not fit (a step's users without the word).
    pub(crate) short: String,
    /// Its shade.
    pub(crate) fill: &'static str,
}

/// One result's line on a comparison chart: its name, colour and points.
pub(crate) type Line<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// A chart of several results' lines (`(name, colour, points)`), for the comparison page.
pub(crate) fn overlay_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> String {
    let series: Vec<Series> =
        lines.iter().map(|(name, colour, points)| Series { name, colour, points: points.clone() }).collect();
    line_chart(
        &Chart { title, x_label, y_label, x_ticks: None, limits: Vec::new(), bands: Vec::new() },
        &series,
    )
}

/// One SVG line chart: axes with round ticks, a line (and dots, when few) per series, a legend,
/// and the dashed limits. Both axes start at zero unless `c.x_ticks` sets the x range.
pub(crate) fn line_chart(c: &Chart, series: &[Series]) -> String {
    let plot = Plot::new(c, series);
    let mut g = plot.axes(c);
    plot.bands(&mut g, &c.bands);
    plot.cap_lines(&mut g);
    if series.iter().all(|s| s.points.is_empty()) {
        let _ = write!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#888\">no data</text>",
            (L + W - R) / 2.0,
            (T + H - B) / 2.0
        );
    }
    for (i, s) in series.iter().enumerate() {
        plot.series(&mut g, i, s);
    }
    g.push_str("</svg>");
    g
}

/// A line chart's width, in SVG units.
const W: f64 = 760.0;
/// A line chart's height.
const H: f64 = 300.0;
/// Margins: left (y labels), right (legend), top (title), bottom (x labels).
const L: f64 = 70.0;
/// The right margin, where the legend goes.
const R: f64 = 190.0;
/// The top margin, where the title goes, and under it the bands' labels, clear of the lines.
const T: f64 = 42.0;
/// The bottom margin, where the x labels go.
const B: f64 = 45.0;

/// One dashed level of a chart: where it is, its visible label, and every rule it stands for (hover).
struct Limit {
    at: f64,
    label: String,
    rules: String,
}

/// A line chart's scales, chosen from its data: the ticks of both axes and the cap lines, drawn when
/// within reach of the data (or only named, when far above).
struct Plot {
    x_ticks: Vec<(f64, String)>,
    y_ticks: Vec<(f64, String)>,
    /// The x range the axis spans.
    x0: f64,
    x1: f64,
    /// The y axis' top.
    y1: f64,
    /// The limits drawn as lines.
    limits: Vec<Limit>,
    /// The limits too far above the data to draw: named at the top instead.
    far_limits: Vec<Limit>,
}

impl Plot {
    /// Scales that fit every point of `series` and `c`'s limits within reach.
    fn new(c: &Chart, series: &[Series]) -> Self {
        let all = || series.iter().flat_map(|s| s.points.iter());
        let (x_ticks, x0, x1) = match &c.x_ticks {
            Some(ticks) => {
                (ticks.clone(), ticks.first().map_or(0.0, |t| t.0), ticks.last().map_or(1.0, |t| t.0))
            }
            None => {
                let (ticks, end) = round_ticks(all().map(|p| p.0).fold(0.0, f64::max));
                (ticks, 0.0, end)
            }
        };
        let y_max = all().map(|p| p.1).fold(0.0, f64::max);
        // A limit far above the data would flatten it against the x axis: it is then named, not drawn.
        let (far_limits, limits): (Vec<Limit>, Vec<Limit>) =
            levels(&c.limits).into_iter().partition(|l| y_max > 0.0 && l.at > FAR_LIMIT * y_max);
        let (y_ticks, y1) = round_ticks(limits.iter().map(|l| l.at).fold(y_max, f64::max));
        Plot { x_ticks, y_ticks, x0, x1, y1, limits, far_limits }
    }

    /// Where the legend's first row sits: under the names of the limits far above.
    fn legend_top(&self) -> f64 {
        T + 14.0 + FAR_ROW * self.far_limits.len() as f64
    }

    /// The SVG x of data `x`.
    fn sx(&self, x: f64) -> f64 {
        L + (x - self.x0) / (self.x1 - self.x0) * (W - L - R)
    }

    /// The SVG y of data `y`.
    fn sy(&self, y: f64) -> f64 {
        H - B - y / self.y1 * (H - T - B)
    }

    /// The chart opened: title, axis labels, ticks with grid lines, and the axes.
    fn axes(&self, c: &Chart) -> String {
        let mut g = format!(
            "<svg width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" \
             role=\"img\" font-family=\"sans-serif\"><title>{t}</title>\
             <text x=\"{L}\" y=\"18\" font-weight=\"bold\">{t}</text>\
             <text x=\"{xm}\" y=\"{xl}\" text-anchor=\"middle\" font-size=\"12\">{xlab}</text>\
             <text x=\"14\" y=\"{ym}\" font-size=\"12\" transform=\"rotate(-90 14 {ym})\" \
             text-anchor=\"middle\">{ylab}</text>",
            t = esc(c.title),
            xm = (L + W - R) / 2.0,
            xl = H - 8.0,
            ym = (T + H - B) / 2.0,
            xlab = esc(c.x_label),
            ylab = esc(c.y_label),
        );
        for (x, label) in &self.x_ticks {
            let _ = write!(
                g,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{}</text>",
                self.sx(*x),
                H - B + 16.0,
                esc(label)
            );
        }
        for (y, label) in &self.y_ticks {
            let _ = write!(
                g,
                "<line x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#e4e4e4\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\">{}</text>",
                W - R,
                L - 6.0,
                self.sy(*y) + 4.0,
                esc(label),
                yy = self.sy(*y)
            );
        }
        let _ = write!(
            g,
            "<polyline fill=\"none\" stroke=\"#444\" points=\"{L},{T} {L},{b} {r},{b}\"/>",
            b = H - B,
            r = W - R
        );
        g
    }

    /// The shaded spans, under the lines, each labelled above its top left, where no line runs.
    fn bands(&self, g: &mut String, bands: &[Band]) {
        for b in bands {
            let (x0, x1) = (self.sx(b.from.max(self.x0)), self.sx(b.to.min(self.x1)));
            if x1 <= x0 {
                continue;
            }
            // A label wider than its band would run into the next one: the short one, else hover only.
            let fits = |text: &str| (x1 - x0) > 6.0 * text.chars().count() as f64 + 3.0;
            let label = [&b.label, &b.short].into_iter().find(|l| fits(l)).map_or(String::new(), |l| esc(l));
            let _ = write!(
                g,
                "<rect x=\"{x0:.1}\" y=\"{T}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#666\">{}</text>",
                x1 - x0,
                H - T - B,
                b.fill,
                esc(&b.label),
                x0 + 3.0,
                T - 4.0,
                label
            );
        }
    }

    /// The cap's rules: a dashed line at each level within reach, labelled inside the plot at its
    /// right end, and the names of those far above the data at the top of the right margin.
    fn cap_lines(&self, g: &mut String) {
        for (i, l) in self.far_limits.iter().enumerate() {
            let _ = write!(
                g,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{CAP_COLOUR}\"><title>{}</title>{} (above)</text>",
                W - R + 6.0,
                T + FAR_ROW * i as f64,
                esc(&l.rules),
                esc(&l.label)
            );
        }
        for l in &self.limits {
            let _ = write!(
                g,
                "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{CAP_COLOUR}\" \
                 stroke-width=\"2\" stroke-dasharray=\"8 5\"><title>{}</title></line>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\" fill=\"{CAP_COLOUR}\">{}</text>",
                W - R,
                esc(&l.rules),
                W - R - 4.0,
                self.sy(l.at) - 4.0,
                esc(&l.label),
                y = self.sy(l.at)
            );
        }
    }

    /// Series `s`, the `i`th: its line, its dots when there are few enough to tell apart, and its legend.
    fn series(&self, g: &mut String, i: usize, s: &Series) {
        let path: Vec<String> =
            s.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", self.sx(x), self.sy(y))).collect();
        let _ = write!(
            g,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\" stroke-linejoin=\"round\" \
             points=\"{}\"/>",
            s.colour,
            path.join(" ")
        );
        // Every point names its value on hover; with many points the dots are invisible targets.
        let fill = if s.points.len() <= MAX_DOTS { s.colour } else { "transparent" };
        for &(x, y) in &s.points {
            let _ = write!(
                g,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{fill}\"><title>{}: {} at {}</title></circle>",
                self.sx(x),
                self.sy(y),
                esc(s.name),
                thousands(y, if y.abs() < 10.0 { 2 } else { 1 }),
                thousands(x, if x.fract() == 0.0 { 0 } else { 2 })
            );
        }
        let ly = self.legend_top() + 18.0 * i as f64;
        let _ = write!(
            g,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"4\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\"><title>{}</title>{}</text>",
            W - R + 12.0,
            ly - 4.0,
            s.colour,
            W - R + 30.0,
            ly + 1.0,
            esc(s.name),
            esc(&legend(s.name))
        );
    }
}

/// Legend characters that fit the right margin; a longer name is cut with an ellipsis (hover shows it whole).
const LEGEND_CHARS: usize = 25;

/// A series' name as its legend shows it.
fn legend(name: &str) -> String {
    match name.char_indices().nth(LEGEND_CHARS) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_string(),
    }
}

/// The rows the names of the limits far above take at the top of the right margin.
const FAR_ROW: f64 = 13.0;

/// `limits` as the dashed levels drawn: the rules at one level share it, named together on hover and
/// counted in the label (`cap p90=5s ×4`), from the lowest level up.
fn levels(limits: &[(f64, String)]) -> Vec<Limit> {
    let mut at: Vec<f64> = limits.iter().map(|l| l.0).collect();
    at.sort_by(f64::total_cmp);
    at.dedup();
    at.into_iter()
        .map(|level| {
            let rules: Vec<&str> = limits.iter().filter(|l| l.0 == level).map(|l| l.1.as_str()).collect();
            // The rules named when they fit the margin (`cap avg=1s, p90=1s`); else those sharing a
            // statistic by it and their count (`cap p90=5s ×4`), the first and the count otherwise.
            let all = rules.join(", ");
            let statistic = |r: &&str| r.rsplit('.').next().unwrap_or(r).to_string();
            let label = match rules.as_slice() {
                _ if all.chars().count() <= LEGEND_CHARS => format!("cap {all}"),
                [first, ..] if rules.iter().all(|r| statistic(r) == statistic(first)) => {
                    format!("cap {} ×{}", statistic(first), rules.len())
                }
                [first, ..] => format!("cap {first}, … ×{}", rules.len()),
                [] => String::new(),
            };
            Limit { at: level, label, rules: format!("cap {all}") }
        })
        .collect()
}

/// An axis from zero: ticks spaced 1, 2 or 5 × 10ⁿ, about five of them, labelled with as many
/// decimals as the spacing needs, and its end: `max` rounded up to half a step, so the axis ends at
/// the data rather than a whole empty step past it. Never empty, even for no data.
fn round_ticks(max: f64) -> (Vec<(f64, String)>, f64) {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let rough = max / 5.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= rough).unwrap_or(rough);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let end = (max / (step / 2.0) - 1e-9).ceil() * step / 2.0;
    let n = (end / step + 1e-9).floor() as u32;
    let ticks = (0..=n).map(|i| f64::from(i) * step).map(|v| (v, thousands(v, decimals))).collect();
    (ticks, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_the_axis_ends_at_the_data() {
        let labels = |max| round_ticks(max).0.into_iter().map(|t| t.1).collect::<Vec<_>>();
        let end = |max| round_ticks(max).1;
        // Changed with the axes' end: the ticks stop at the data, not a whole step past it.
        assert_eq!(labels(1_547.0), ["0", "500", "1,000", "1,500"]);
        assert_eq!(end(1_547.0), 1_750.0);
        assert_eq!(labels(9.0), ["0", "2", "4", "6", "8"]);
        assert_eq!(end(9.0), 9.0);
        assert_eq!(labels(0.7), ["0.0", "0.2", "0.4", "0.6"]);
        assert_eq!(labels(0.0), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(end(0.0), 1.0);
        assert_eq!(labels(f64::NAN), labels(0.0));
        // Issue 24's sweep: intervals to 160 s drew an axis to 200 s.
        assert_eq!(
            (labels(160.0), end(160.0)),
            (vec!["0".to_string(), "50".into(), "100".into(), "150".into()], 175.0)
        );
        for max in [0.013, 1.0, 7.3, 160.0, 999.0, 1_001.0, 2.4e9] {
            let (ticks, end) = round_ticks(max);
            let step = ticks[1].0;
            assert!(end >= max && end - max < step / 2.0 + 1e-9, "{max}: axis to {end}, step {step}");
        }
    }

    #[test]
    fn every_cap_rule_is_a_level_and_rules_at_one_level_share_it() {
        let rules: Vec<(f64, String)> = [
            (50.0, "avg=50ms"),
            (5_000.0, "new_order.p90=5s"),
            (5_000.0, "payment.p90=5s"),
            (5_000.0, "order_status.p90=5s"),
            (20_000.0, "stock_level.p90=20s"),
        ]
        .into_iter()
        .map(|(ms, rule)| (ms, rule.to_string()))
        .collect();
        let labels: Vec<(f64, String)> = levels(&rules).into_iter().map(|l| (l.at, l.label)).collect();
        assert_eq!(
            labels,
            [
                (50.0, "cap avg=50ms".to_string()),
                (5_000.0, "cap p90=5s ×3".to_string()),
                (20_000.0, "cap stock_level.p90=20s".to_string())
            ]
        );
        let series = [Series { name: "avg", colour: "#000", points: vec![(1.0, 40.0), (2.0, 60.0)] }];
        let chart = Chart {
            title: "t",
            x_label: "users",
            y_label: "ms",
            x_ticks: None,
            limits: rules,
            bands: Vec::new(),
        };
        let svg = line_chart(&chart, &series);
        assert_eq!(svg.matches("stroke-dasharray").count(), 1, "the one level within reach is drawn");
        assert_eq!(svg.matches(" (above)</text>").count(), 2, "the two far above are named: {svg}");
        assert!(
            svg.contains("<title>cap new_order.p90=5s, payment.p90=5s, order_status.p90=5s</title>"),
            "{svg}"
        );
    }
}
