//! Line charts drawn with plotters on a canvas. A chart is described as plain data
//! ([`ChartSpec`]) built from an engine run; this module only draws it. The canvas is
//! hidden from screen readers: every chart carries a text summary instead.
//!
//! What keeps it small: the chart is laid out here, in canvas pixels, and drawn with
//! plotters' drawing area and basic elements (rectangles, paths, text) on the
//! plotters-canvas backend. plotters' `ChartBuilder`, mesh and series-label code (with their
//! text measuring, float label formatting and font-name parsing, which brings the Unicode
//! case tables) stay out of the wasm. Tick labels are whole numbers, written without float
//! formatting; the legend is a list under the canvas ([`legend`]).

use plotters::drawing::IntoDrawingArea;
use plotters::element::{PathElement, Rectangle};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{
    Color, FontDesc, FontFamily, FontStyle, FontTransform, RGBColor, ShapeStyle, TextStyle,
};
use plotters_canvas::CanvasBackend;

use super::html::Html;

/// A line's colour role; the actual colour depends on the theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Grey,
    Red,
    Blue,
    Green,
    Orange,
    Purple,
}

impl Tone {
    /// The CSS class of a legend key in this tone (style/labs.css holds the same colours
    /// as `colour`, for both themes).
    pub fn class(self) -> &'static str {
        match self {
            Tone::Grey => "tone-grey",
            Tone::Red => "tone-red",
            Tone::Blue => "tone-blue",
            Tone::Green => "tone-green",
            Tone::Orange => "tone-orange",
            Tone::Purple => "tone-purple",
        }
    }
}

/// How a line is drawn. Two runs can give the same numbers (no retries and a retry budget
/// while the provider is healthy): a wide line under a dashed one keeps both visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stroke {
    #[default]
    Solid,
    /// Wider, drawn first: it shows around and between the dashes of a line on top.
    Wide,
    /// Dashes, drawn last.
    Dashed,
}

impl Stroke {
    /// The CSS class of a legend key drawn this way (after its tone's).
    pub fn class(self) -> &'static str {
        match self {
            Stroke::Solid => "",
            Stroke::Wide => " wide",
            Stroke::Dashed => " dashed",
        }
    }

    /// Drawing order: wide lines first, dashed last.
    fn layer(self) -> u8 {
        match self {
            Stroke::Wide => 0,
            Stroke::Solid => 1,
            Stroke::Dashed => 2,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub tone: Tone,
    pub stroke: Stroke,
    pub points: Vec<(f64, f64)>,
    /// A point to mark on the line with a ring (where a policy starts refusing retries).
    pub mark: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    pub x_label: &'static str,
    pub y_label: &'static str,
    /// The x axis runs from `x_min` (0 for most charts; below 0 for a timeline that starts
    /// before its incident) to `x_max`.
    pub x_min: f64,
    pub x_max: f64,
    pub y_max: f64,
    pub series: Vec<Series>,
    /// An x range to shade, with its legend label (e.g. the degradation window).
    pub shade: Option<(f64, f64, &'static str)>,
    /// A horizontal reference line (dashed), with its legend label (e.g. capacity).
    pub reference: Option<(f64, &'static str)>,
}

impl ChartSpec {
    /// Axes and nothing on them (a lab whose run failed: its message says why).
    pub fn empty() -> Self {
        ChartSpec {
            x_label: "",
            y_label: "",
            x_min: 0.0,
            x_max: 1.0,
            y_max: 1.0,
            series: Vec::new(),
            shade: None,
            reference: None,
        }
    }
}

struct Theme {
    background: RGBColor,
    text: RGBColor,
    grid: RGBColor,
    shade: RGBColor,
}

/// Whether the page is in its dark theme (the charts follow the system, as the CSS does).
pub fn dark_mode() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

fn theme(dark: bool) -> Theme {
    if dark {
        Theme {
            background: RGBColor(30, 33, 38),
            text: RGBColor(232, 233, 236),
            grid: RGBColor(58, 63, 72),
            shade: RGBColor(90, 70, 30),
        }
    } else {
        Theme {
            background: RGBColor(255, 255, 255),
            text: RGBColor(28, 29, 33),
            grid: RGBColor(225, 227, 231),
            shade: RGBColor(253, 236, 200),
        }
    }
}

fn colour(tone: Tone, dark: bool) -> RGBColor {
    match (tone, dark) {
        (Tone::Grey, false) => RGBColor(110, 114, 122),
        (Tone::Grey, true) => RGBColor(170, 175, 185),
        (Tone::Red, false) => RGBColor(200, 40, 30),
        (Tone::Red, true) => RGBColor(255, 120, 110),
        (Tone::Blue, false) => RGBColor(31, 95, 207),
        (Tone::Blue, true) => RGBColor(122, 167, 255),
        (Tone::Green, false) => RGBColor(27, 127, 59),
        (Tone::Green, true) => RGBColor(95, 208, 138),
        (Tone::Orange, false) => RGBColor(190, 100, 0),
        (Tone::Orange, true) => RGBColor(250, 170, 80),
        (Tone::Purple, false) => RGBColor(120, 60, 170),
        (Tone::Purple, true) => RGBColor(200, 150, 255),
    }
}

/// The step between labelled ticks of an axis from 0 to `max`: the smallest of 1, 2, 5,
/// 10, 20, 50, … that gives at most `most` intervals.
pub fn tick_step(max: f64, most: u32) -> u64 {
    let mut base = 1u64;
    while base < 1_000_000_000_000_000 {
        for step in [base, 2 * base, 5 * base] {
            if max <= (step * u64::from(most)) as f64 {
                return step;
            }
        }
        base *= 10;
    }
    base
}

/// Sizes `canvas` for its CSS width `css_width` (at least 280 px) and a height of `aspect`
/// times it within `heights`, at the device's pixel ratio: (ratio, width and height in
/// canvas pixels, CSS width).
pub fn size(
    canvas: &web_sys::HtmlCanvasElement,
    css_width: i32,
    aspect: f64,
    heights: (f64, f64),
) -> Option<(f64, i32, i32, f64)> {
    let ratio = web_sys::window()?.device_pixel_ratio().clamp(1.0, 3.0);
    let css_width = f64::from(css_width.max(280));
    let css_height = (css_width * aspect).clamp(heights.0, heights.1);
    let (width, height) = ((css_width * ratio) as i32, (css_height * ratio) as i32);
    // A new size changes the page's layout; the same size only needs the clear that follows.
    if canvas.width() != width as u32 {
        canvas.set_width(width as u32);
    }
    if canvas.height() != height as u32 {
        canvas.set_height(height as u32);
    }
    Some((ratio, width, height, css_width))
}

/// Draws `spec` on `canvas`, sized to its CSS width `css_width` (measured by the caller:
/// reading it here would force a layout per chart while a page changes) at the device's
/// pixel ratio.
pub fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    spec: &ChartSpec,
    dark: bool,
    css_width: i32,
) -> Option<()> {
    let (ratio, width, height, css_width) = size(canvas, css_width, 0.5, (200.0, 340.0))?;
    let t = theme(dark);
    let px = |v: f64| (v * ratio).round() as i32;
    let font = |size: f64, h: HPos, v: VPos| {
        TextStyle::from(FontDesc::new(
            FontFamily::SansSerif,
            size * ratio,
            FontStyle::Normal,
        ))
        .pos(Pos::new(h, v))
    };

    let root = CanvasBackend::with_canvas_object(canvas.clone())?.into_drawing_area();
    root.fill(&t.background).ok()?;
    let line =
        |points: Vec<(i32, i32)>, style: ShapeStyle| root.draw(&PathElement::new(points, style));
    let text = |label: &str, style: &TextStyle, at: (i32, i32)| {
        root.draw_text(label, &style.color(&t.text), at)
    };

    // The plot area, in canvas pixels, and the map from values to it.
    let (left, right, top, bottom) = (px(62.0), width - px(16.0), px(12.0), height - px(42.0));
    let x_min = spec.x_min.min(spec.x_max);
    let x_max = spec.x_max;
    let x_span = (x_max - x_min).max(1e-9);
    let y_max = spec.y_max.max(1e-9);
    let x_at =
        |x: f64| left + (((x - x_min) / x_span).clamp(0.0, 1.0) * f64::from(right - left)) as i32;
    let y_at = |y: f64| bottom - ((y / y_max).clamp(0.0, 1.0) * f64::from(bottom - top)) as i32;

    if let Some((from, to, _)) = spec.shade {
        if to > from {
            root.draw(&Rectangle::new(
                [(x_at(from), top), (x_at(to), bottom)],
                t.shade.filled(),
            ))
            .ok()?;
        }
    }

    // Grid lines and whole-number tick labels.
    let grid = t.grid.stroke_width(px(1.0).max(1) as u32);
    let axis = t.text.stroke_width(px(1.0).max(1) as u32);
    let mut label = String::new();
    let y_labels = font(12.0, HPos::Right, VPos::Center);
    let step = tick_step(y_max, 6);
    let mut v = 0;
    while v as f64 <= y_max {
        let y = y_at(v as f64);
        line(vec![(left, y), (right, y)], grid).ok()?;
        line(vec![(left - px(4.0), y), (left, y)], axis).ok()?;
        label.clear();
        text(label.num(v), &y_labels, (left - px(7.0), y)).ok()?;
        v += step;
    }
    let x_labels = font(12.0, HPos::Center, VPos::Top);
    let step = tick_step(x_span, if css_width < 420.0 { 6 } else { 10 }) as i64;
    // The first multiple of the step at or after x_min.
    let mut v = (x_min / step as f64).ceil() as i64 * step;
    while v as f64 <= x_max {
        let x = x_at(v as f64);
        line(vec![(x, top), (x, bottom)], grid).ok()?;
        line(vec![(x, bottom), (x, bottom + px(4.0))], axis).ok()?;
        label.clear();
        if v < 0 {
            label.push('\u{2212}');
        }
        text(
            label.num(v.unsigned_abs()),
            &x_labels,
            (x, bottom + px(7.0)),
        )
        .ok()?;
        v += step;
    }
    line(vec![(left, top), (left, bottom), (right, bottom)], axis).ok()?;

    // What the axes measure, with their units.
    let axis_names = font(13.0, HPos::Center, VPos::Bottom);
    text(
        spec.x_label,
        &axis_names,
        ((left + right) / 2, height - px(3.0)),
    )
    .ok()?;
    let y_name = axis_names
        .transform(FontTransform::Rotate270)
        .pos(Pos::new(HPos::Center, VPos::Top));
    text(spec.y_label, &y_name, (px(4.0), (top + bottom) / 2)).ok()?;

    // The reference line, in short dots so that it reads apart from the runs.
    if let Some((value, _)) = spec.reference {
        let y = y_at(value);
        let style = colour(Tone::Green, dark).stroke_width(px(1.5).max(1) as u32);
        for piece in dashes(&[(left, y), (right, y)], px(3.0), px(4.0)) {
            line(piece, style).ok()?;
        }
    }
    for layer in 0..3 {
        for series in spec.series.iter().filter(|s| s.stroke.layer() == layer) {
            let width = if series.stroke == Stroke::Wide {
                4.5
            } else {
                2.0
            };
            let style = colour(series.tone, dark).stroke_width(px(width) as u32);
            // A point whose value is not a number (a rate not measured) breaks the line.
            for run in series.points.split(|p| !p.1.is_finite()) {
                let points = corners(run.iter().map(|&(x, y)| (x_at(x), y_at(y))));
                if series.stroke == Stroke::Dashed {
                    for piece in dashes(&points, px(9.0), px(6.0)) {
                        line(piece, style).ok()?;
                    }
                } else {
                    line(points, style).ok()?;
                }
            }
        }
    }
    // Marks last, over every line: a ring in the line's colour around a dot of the
    // background, so it reads on top of a line of the same colour.
    for series in &spec.series {
        if let Some((x, y)) = series.mark {
            let at = (x_at(x), y_at(y));
            let ring = colour(series.tone, dark).filled();
            root.draw(&plotters::element::Circle::new(at, px(6.0), ring))
                .ok()?;
            root.draw(&plotters::element::Circle::new(
                at,
                px(3.0),
                t.background.filled(),
            ))
            .ok()?;
        }
    }
    root.present().ok()
}

/// The pixels of a line where it turns: a point on the straight way between its
/// neighbours (a plateau of a rate, a repeated pixel) is left out, so the canvas draws the
/// same line from fewer points (a run of 600 steps is mostly flat stretches). A point where
/// the line turns back along itself is kept.
pub fn corners(points: impl IntoIterator<Item = (i32, i32)>) -> Vec<(i32, i32)> {
    let mut kept: Vec<(i32, i32)> = Vec::new();
    for p in points {
        if kept.last() == Some(&p) {
            continue;
        }
        if let [.., a, b] = kept[..] {
            let (u, v) = (
                (i64::from(b.0 - a.0), i64::from(b.1 - a.1)),
                (i64::from(p.0 - b.0), i64::from(p.1 - b.1)),
            );
            let straight = u.0 * v.1 == u.1 * v.0 && u.0 * v.0 + u.1 * v.1 > 0;
            if straight {
                kept.pop();
            }
        }
        kept.push(p);
    }
    kept
}

/// Cuts a polyline into dashes of `dash` pixels separated by `gap` pixels, measured along
/// the line, so a dashed line reads the same whatever its slope.
pub fn dashes(points: &[(i32, i32)], dash: i32, gap: i32) -> Vec<Vec<(i32, i32)>> {
    let (dash, gap) = (f64::from(dash.max(1)), f64::from(gap.max(1)));
    let mut pieces = Vec::new();
    let mut current: Vec<(i32, i32)> = Vec::new();
    // Where in the dash-gap pattern the walk is, and whether it is in a dash.
    let (mut left, mut on) = (dash, true);
    let at = |a: (f64, f64), b: (f64, f64), f: f64| {
        (
            (a.0 + (b.0 - a.0) * f).round() as i32,
            (a.1 + (b.1 - a.1) * f).round() as i32,
        )
    };
    for pair in points.windows(2) {
        let a = (f64::from(pair[0].0), f64::from(pair[0].1));
        let b = (f64::from(pair[1].0), f64::from(pair[1].1));
        let length = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let mut done = 0.0;
        if on && current.is_empty() {
            current.push(pair[0]);
        }
        while length - done > left {
            done += left;
            let point = at(a, b, done / length);
            if on {
                current.push(point);
                pieces.push(std::mem::take(&mut current));
            } else {
                current.push(point);
            }
            on = !on;
            left = if on { dash } else { gap };
        }
        left -= length - done;
        if on {
            current.push(pair[1]);
        }
    }
    if on && current.len() > 1 {
        pieces.push(current);
    }
    pieces
}

/// The legend of `spec`: per item, the CSS classes of its key (tone and line style, the
/// same as on the canvas) and its label.
pub fn legend(spec: &ChartSpec, _dark: bool) -> Vec<(String, String)> {
    let mut items = Vec::new();
    if let Some((_, _, label)) = spec.shade {
        items.push(("key block tone-shade".to_string(), label.to_string()));
    }
    if let Some((_, label)) = spec.reference {
        items.push(("key dotted tone-green".to_string(), label.to_string()));
    }
    for s in &spec.series {
        items.push((
            format!("key {}{}", s.tone.class(), s.stroke.class()),
            s.label.clone(),
        ));
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_keeps_its_corners_only() {
        // A plateau, a rise, a plateau: four corners.
        let line = [
            (0, 50),
            (1, 50),
            (2, 50),
            (3, 40),
            (4, 30),
            (5, 30),
            (6, 30),
        ];
        assert_eq!(corners(line), [(0, 50), (2, 50), (4, 30), (6, 30)]);
        // A repeated pixel is one point; a spike that goes back the way it came keeps its tip.
        assert_eq!(
            corners([(0, 9), (0, 9), (0, 5), (0, 9), (1, 9)]),
            [(0, 9), (0, 5), (0, 9), (1, 9)]
        );
        assert_eq!(corners([(3, 3)]), [(3, 3)]);
        assert_eq!(corners([]), Vec::<(i32, i32)>::new());
    }

    #[test]
    fn tick_steps_are_1_2_5_times_a_power_of_ten() {
        assert_eq!(tick_step(5.0, 6), 1);
        assert_eq!(tick_step(15.1, 8), 2);
        assert_eq!(tick_step(60.0, 8), 10);
        assert_eq!(tick_step(60.0, 6), 10);
        assert_eq!(tick_step(1150.0, 6), 200);
        assert_eq!(tick_step(2090.0, 6), 500);
        assert_eq!(tick_step(5250.0, 6), 1000);
        assert_eq!(tick_step(12.0, 6), 2);
        assert_eq!(tick_step(1e-9, 6), 1);
    }

    #[test]
    fn the_legend_names_every_line_in_its_style() {
        let spec = ChartSpec {
            x_label: "time (s)",
            y_label: "calls",
            x_min: 0.0,
            x_max: 10.0,
            y_max: 10.0,
            series: vec![
                Series {
                    label: "no retries".into(),
                    tone: Tone::Grey,
                    stroke: Stroke::Wide,
                    mark: None,
                    points: vec![],
                },
                Series {
                    label: "budget <10%>".into(),
                    tone: Tone::Blue,
                    stroke: Stroke::Dashed,
                    mark: None,
                    points: vec![],
                },
            ],
            shade: Some((1.0, 2.0, "degradation")),
            reference: Some((5.0, "capacity")),
        };
        let legend = legend(&spec, false);
        let classes: Vec<&str> = legend.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(
            classes,
            vec![
                "key block tone-shade",
                "key dotted tone-green",
                "key tone-grey wide",
                "key tone-blue dashed"
            ]
        );
        assert_eq!(legend[3].1, "budget <10%>");
    }

    #[test]
    fn dashes_alternate_along_the_line() {
        // A 30 px horizontal line, dashes of 5 and gaps of 5: 0-5, 10-15, 20-25.
        let pieces = dashes(&[(0, 0), (30, 0)], 5, 5);
        assert_eq!(
            pieces,
            vec![
                vec![(0, 0), (5, 0)],
                vec![(10, 0), (15, 0)],
                vec![(20, 0), (25, 0)]
            ]
        );
        // The pattern carries over a corner: 0-4 then 4-6 across (4,0) -> (4,10).
        let pieces = dashes(&[(0, 0), (4, 0), (4, 10)], 6, 2);
        assert_eq!(pieces[0], vec![(0, 0), (4, 0), (4, 2)]);
        assert_eq!(pieces[1], vec![(4, 4), (4, 10)]);
        assert!(dashes(&[(0, 0)], 5, 5).is_empty());
    }
}
