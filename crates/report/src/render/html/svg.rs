//! The SVG plotting kit both pages draw with: a line chart (`line_chart`) of `Series` with round
//! ticks on both axes, shaded `Band`s of the x axis, a dashed limit (the cap, [`CAP_COLOUR`]) drawn
//! when it is within reach of the data and named above it when it is not, a legend, and every point's
//! value on hover (SVG `<title>`); `overlay_chart` lays several results' lines on one chart.

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
    /// A dashed horizontal line and its label: the cap.
    pub(crate) limit: Option<(f64, String)>,
    /// Shaded spans of the x axis and their labels: the warm-up, each step's measured window.
    pub(crate) bands: Vec<Band>,
}

/// A shaded span of a time chart's x axis.
pub(crate) struct Band {
    /// Where the span starts, in x's data units.
    pub(crate) from: f64,
    /// Where it ends.
    pub(crate) to: f64,
    /// Its label, drawn at its top left when it fits and named on hover.
    pub(crate) label: String,
    /// Its shade.
    pub(crate) fill: &'static str,
}

/// One result's line on a comparison chart: its name, colour and points.
pub(crate) type Line<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// A chart of several results' lines (`(name, colour, points)`), for the comparison page.
pub(crate) fn overlay_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> String {
    let series: Vec<Series> =
        lines.iter().map(|(name, colour, points)| Series { name, colour, points: points.clone() }).collect();
    line_chart(&Chart { title, x_label, y_label, x_ticks: None, limit: None, bands: Vec::new() }, &series)
}

/// One SVG line chart: axes with round ticks, a line (and dots, when few) per series, a legend,
/// and the dashed limit. Both axes start at zero unless `c.x_ticks` sets the x range.
pub(crate) fn line_chart(c: &Chart, series: &[Series]) -> String {
    let plot = Plot::new(c, series);
    let mut g = plot.axes(c);
    plot.bands(&mut g, &c.bands);
    plot.cap_line(&mut g);
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
/// The top margin, where the title goes.
const T: f64 = 30.0;
/// The bottom margin, where the x labels go.
const B: f64 = 45.0;

/// A line chart's scales, chosen from its data: the ticks of both axes and the cap line, drawn when it
/// is within reach of the data (or only named, when it is far above).
struct Plot<'a> {
    x_ticks: Vec<(f64, String)>,
    y_ticks: Vec<(f64, String)>,
    /// The x range the ticks span.
    x0: f64,
    x1: f64,
    /// The y axis' top.
    y1: f64,
    /// The limit drawn as a line.
    limit: Option<&'a (f64, String)>,
    /// The limit too far above the data to draw: named at the top instead.
    far_limit: Option<&'a (f64, String)>,
}

impl<'a> Plot<'a> {
    /// Scales that fit every point of `series` and `c`'s limit.
    fn new(c: &'a Chart, series: &[Series]) -> Self {
        let all = || series.iter().flat_map(|s| s.points.iter());
        let x_ticks = match &c.x_ticks {
            Some(ticks) => ticks.clone(),
            None => round_ticks(all().map(|p| p.0).fold(0.0, f64::max)),
        };
        let (x0, x1) = (x_ticks.first().map_or(0.0, |t| t.0), x_ticks.last().map_or(1.0, |t| t.0));
        let y_max = all().map(|p| p.1).fold(0.0, f64::max);
        // A limit far above the data would flatten it against the x axis: it is then named, not drawn.
        let (limit, far_limit) = match &c.limit {
            Some((ms, _)) if y_max > 0.0 && *ms > FAR_LIMIT * y_max => (None, c.limit.as_ref()),
            limit => (limit.as_ref(), None),
        };
        let y_ticks = round_ticks(y_max.max(limit.map_or(0.0, |l| l.0)));
        let y1 = y_ticks.last().map_or(1.0, |t| t.0);
        Plot { x_ticks, y_ticks, x0, x1, y1, limit, far_limit }
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

    /// The shaded spans, under the lines, each labelled at its top left.
    fn bands(&self, g: &mut String, bands: &[Band]) {
        for b in bands {
            let (x0, x1) = (self.sx(b.from.max(self.x0)), self.sx(b.to.min(self.x1)));
            if x1 <= x0 {
                continue;
            }
            // A label wider than its band would run into the next one: hover names it instead.
            let label =
                if (x1 - x0) > 6.0 * b.label.chars().count() as f64 { esc(&b.label) } else { String::new() };
            let _ = write!(
                g,
                "<rect x=\"{x0:.1}\" y=\"{T}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#666\">{}</text>",
                x1 - x0,
                H - T - B,
                b.fill,
                esc(&b.label),
                x0 + 3.0,
                T + 11.0,
                label
            );
        }
    }

    /// The cap: a dashed line at its level, or its name at the top when it is far above the data.
    fn cap_line(&self, g: &mut String) {
        if let Some((_, label)) = self.far_limit {
            let _ = write!(
                g,
                "<text x=\"{:.1}\" y=\"{T}\" font-size=\"11\" fill=\"{CAP_COLOUR}\">{} (above)</text>",
                W - R + 6.0,
                esc(label)
            );
        }
        if let Some((limit, label)) = self.limit {
            let _ = write!(
                g,
                "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{CAP_COLOUR}\" \
                 stroke-width=\"2\" stroke-dasharray=\"8 5\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{CAP_COLOUR}\">{}</text>",
                W - R,
                W - R + 6.0,
                self.sy(*limit) + 4.0,
                esc(label),
                y = self.sy(*limit)
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
        let ly = T + 14.0 + 18.0 * i as f64;
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

/// Ticks from zero to a round number at or above `max`, spaced 1, 2 or 5 × 10ⁿ, about five of
/// them, labelled with as many decimals as the spacing needs. Never empty, even for no data.
fn round_ticks(max: f64) -> Vec<(f64, String)> {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let rough = max / 5.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= rough).unwrap_or(rough);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let n = (max / step - 1e-9).ceil() as u32;
    (0..=n).map(|i| f64::from(i) * step).map(|v| (v, thousands(v, decimals))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        let labels = |max| round_ticks(max).into_iter().map(|t| t.1).collect::<Vec<_>>();
        assert_eq!(labels(1_547.0), ["0", "500", "1,000", "1,500", "2,000"]);
        assert_eq!(labels(9.0), ["0", "2", "4", "6", "8", "10"]);
        assert_eq!(labels(0.7), ["0.0", "0.2", "0.4", "0.6", "0.8"]);
        assert_eq!(labels(0.0), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(labels(f64::NAN), labels(0.0));
    }
}
