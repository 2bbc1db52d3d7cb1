//! Line charts drawn with plotters on a canvas. A chart is described as plain data
//! ([`ChartSpec`]) built from an engine run; this module only draws it. The canvas is
//! hidden from screen readers: every chart carries a text summary instead.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

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
    /// A horizontal reference line, with its legend label (e.g. capacity).
    pub reference: Option<(f64, String)>,
}

struct Theme {
    background: RGBColor,
    text: RGBColor,
    grid: RGBColor,
    shade: RGBColor,
}

fn dark_mode() -> bool {
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

/// Draws `spec` on `canvas`, sized to its CSS box at the device's pixel ratio.
fn draw(canvas: &web_sys::HtmlCanvasElement, spec: &ChartSpec) -> Option<()> {
    let window = web_sys::window()?;
    let ratio = window.device_pixel_ratio().clamp(1.0, 3.0);
    let css_width = f64::from(canvas.client_width().max(280));
    let css_height = (css_width * 0.5).clamp(200.0, 340.0);
    canvas.set_width((css_width * ratio) as u32);
    canvas.set_height((css_height * ratio) as u32);
    let dark = dark_mode();
    let t = theme(dark);
    let px = |v: f64| (v * ratio) as i32;
    let font = |size: f64| ("sans-serif", size * ratio).into_font().color(&t.text);

    let root = CanvasBackend::with_canvas_object(canvas.clone())?.into_drawing_area();
    root.fill(&t.background).ok()?;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(38.0))
        .y_label_area_size(px(58.0))
        .build_cartesian_2d(0.0..spec.x_max.max(1e-9), 0.0..spec.y_max.max(1e-9))
        .ok()?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label)
        .y_desc(spec.y_label)
        .label_style(font(12.0))
        .axis_desc_style(font(13.0))
        .axis_style(t.text)
        .bold_line_style(t.grid)
        .light_line_style(t.background)
        .x_labels(8)
        .y_labels(6)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .ok()?;

    if let Some((from, to, label)) = spec.shade {
        let shade = t.shade;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(from, 0.0), (to, spec.y_max)],
                shade.filled(),
            )))
            .ok()?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], shade.filled()));
    }
    if let Some((y, label)) = &spec.reference {
        let style = colour(Tone::Green, dark).stroke_width(px(1.5) as u32);
        chart
            .draw_series(LineSeries::new([(0.0, *y), (spec.x_max, *y)], style))
            .ok()?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
    }
    for series in &spec.series {
        let style = colour(series.tone, dark).stroke_width(px(2.0) as u32);
        chart
            .draw_series(LineSeries::new(series.points.iter().copied(), style))
            .ok()?
            .label(series.label.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(t.background.mix(0.85))
        .border_style(t.grid)
        .label_font(font(12.0))
        .draw()
        .ok()?;
    root.present().ok()
}

/// A chart and its text summary. `data-render-count` on the canvas counts redraws (the
/// end-to-end timing waits for it).
#[component]
pub fn Chart(
    spec: Signal<Option<ChartSpec>>,
    summary: Signal<String>,
    testid: &'static str,
    title: &'static str,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let renders = StoredValue::new(0u32);
    Effect::new(move |_| {
        let Some(element) = canvas.get() else { return };
        spec.with(|s| {
            if let Some(s) = s {
                if draw(&element, s).is_some() {
                    renders.update_value(|n| *n += 1);
                    let _ = element
                        .set_attribute("data-render-count", &renders.get_value().to_string());
                }
            }
        });
    });
    view! {
        <figure class="chart" data-testid=testid>
            <canvas node_ref=canvas aria-hidden="true" data-testid=format!("{testid}-canvas")></canvas>
            <figcaption>
                <strong>{title}</strong>" "
                <span data-testid=format!("{testid}-summary")>{move || summary.get()}</span>
            </figcaption>
        </figure>
    }
}
