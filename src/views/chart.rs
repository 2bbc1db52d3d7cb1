//! Line charts drawn with plotters on a canvas. A chart is described as plain data
//! ([`ChartSpec`]) built from an engine run; this module only draws it. The canvas is
//! hidden from screen readers: every chart carries a text summary instead.
//!
//! What keeps it small: the chart is laid out here, in canvas pixels, and drawn with
//! plotters' drawing area and basic elements (rectangles, paths, text) on the
//! plotters-canvas backend. plotters' `ChartBuilder`, mesh and series-label code (with their
//! text measuring, float label formatting and font-name parsing, which brings the Unicode
//! case tables) stay out of the wasm. Tick labels are whole numbers, written without float
//! formatting; the legend is HTML under the canvas ([`legend_html`]).

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

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub tone: Tone,
    pub points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    pub x_label: &'static str,
    pub y_label: &'static str,
    pub x_max: f64,
    pub y_max: f64,
    pub series: Vec<Series>,
    /// An x range to shade, with its legend label (e.g. the degradation window).
    pub shade: Option<(f64, f64, &'static str)>,
    /// A horizontal reference line (dashed), with its legend label (e.g. capacity).
    pub reference: Option<(f64, &'static str)>,
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

/// Draws `spec` on `canvas`, sized to its CSS box at the device's pixel ratio.
pub fn draw(canvas: &web_sys::HtmlCanvasElement, spec: &ChartSpec, dark: bool) -> Option<()> {
    let ratio = web_sys::window()?.device_pixel_ratio().clamp(1.0, 3.0);
    let css_width = f64::from(canvas.client_width().max(280));
    let css_height = (css_width * 0.5).clamp(200.0, 340.0);
    let (width, height) = ((css_width * ratio) as i32, (css_height * ratio) as i32);
    canvas.set_width(width as u32);
    canvas.set_height(height as u32);
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
    let x_max = spec.x_max.max(1e-9);
    let y_max = spec.y_max.max(1e-9);
    let x_at = |x: f64| left + ((x / x_max).clamp(0.0, 1.0) * f64::from(right - left)) as i32;
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
    let step = tick_step(x_max, if css_width < 420.0 { 6 } else { 10 });
    let mut v = 0;
    while v as f64 <= x_max {
        let x = x_at(v as f64);
        line(vec![(x, top), (x, bottom)], grid).ok()?;
        line(vec![(x, bottom), (x, bottom + px(4.0))], axis).ok()?;
        label.clear();
        text(label.num(v), &x_labels, (x, bottom + px(7.0))).ok()?;
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

    // The reference line, dashed so that it reads apart from the runs.
    if let Some((value, _)) = spec.reference {
        let y = y_at(value);
        let style = colour(Tone::Green, dark).stroke_width(px(1.5).max(1) as u32);
        let (dash, gap) = (px(7.0), px(4.0));
        let mut x = left;
        while x < right {
            line(vec![(x, y), ((x + dash).min(right), y)], style).ok()?;
            x += dash + gap;
        }
    }
    for series in &spec.series {
        let style = colour(series.tone, dark).stroke_width(px(2.0) as u32);
        let points = series
            .points
            .iter()
            .map(|&(x, y)| (x_at(x), y_at(y)))
            .collect();
        line(points, style).ok()?;
    }
    root.present().ok()
}

/// The legend of `spec` as HTML list items: a key in the line's colour and style (solid
/// for a run, dashed for the reference line, a block for the shaded window) and its label.
pub fn legend_html(spec: &ChartSpec, dark: bool, h: &mut String) {
    fn item(h: &mut String, class: &str, colour: RGBColor, label: &str) {
        h.raw("<li><span class=\"key")
            .raw(class)
            .raw("\" style=\"color:rgb(")
            .num(colour.0.into())
            .raw(",")
            .num(colour.1.into())
            .raw(",")
            .num(colour.2.into())
            .raw(")\"></span>")
            .text(label)
            .raw("</li>");
    }
    if let Some((_, _, label)) = spec.shade {
        item(h, " block", theme(dark).shade, label);
    }
    if let Some((_, label)) = spec.reference {
        item(h, " dashed", colour(Tone::Green, dark), label);
    }
    for s in &spec.series {
        item(h, "", colour(s.tone, dark), &s.label);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_legend_names_every_line() {
        let spec = ChartSpec {
            x_label: "time (s)",
            y_label: "calls",
            x_max: 10.0,
            y_max: 10.0,
            series: vec![Series {
                label: "budget <10%>".into(),
                tone: Tone::Blue,
                points: vec![],
            }],
            shade: Some((1.0, 2.0, "degradation")),
            reference: Some((5.0, "capacity")),
        };
        let mut h = String::new();
        legend_html(&spec, false, &mut h);
        assert_eq!(
            h,
            "<li><span class=\"key block\" style=\"color:rgb(253,236,200)\"></span>degradation</li>\
             <li><span class=\"key dashed\" style=\"color:rgb(27,127,59)\"></span>capacity</li>\
             <li><span class=\"key\" style=\"color:rgb(31,95,207)\"></span>budget &lt;10%&gt;</li>"
        );
    }
}
