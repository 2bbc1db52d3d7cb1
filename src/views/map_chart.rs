//! A map of yes-or-no cells drawn with plotters on a canvas: Demo 15's metastability map
//! (rows: loads; columns: trigger sizes; each cell recovered or still down). Like
//! [`super::chart`], the map is plain data ([`MapSpec`]) built from an engine run, and the
//! canvas is hidden from screen readers: the page says the same in words.
//!
//! Colour is never alone: a cell still down is also crossed.

use plotters::drawing::IntoDrawingArea;
use plotters::element::{Circle, PathElement, Rectangle};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{Color, FontDesc, FontFamily, FontStyle, RGBColor, TextStyle};
use plotters_canvas::CanvasBackend;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MapSpec {
    pub x_name: &'static str,
    pub y_name: &'static str,
    /// The columns' labels, left to right.
    pub columns: Vec<String>,
    /// The rows' labels, bottom to top.
    pub rows: Vec<String>,
    /// `cells[row][column]`: true for a good cell (recovered).
    pub cells: Vec<Vec<bool>>,
    /// A point to mark, in cell units: (column, row) with 0.0 the middle of the first.
    pub mark: Option<(f64, f64)>,
}

/// Draws `spec` on `canvas` at CSS width `css_width` (measured by the caller).
pub fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    spec: &MapSpec,
    dark: bool,
    css_width: i32,
) -> Option<()> {
    let (ratio, width, height, _) = super::chart::size(canvas, css_width, 0.55, (220.0, 360.0))?;
    let px = |v: f64| (v * ratio).round() as i32;
    let (background, text, good, bad, ink) = if dark {
        (
            RGBColor(30, 33, 38),
            RGBColor(232, 233, 236),
            RGBColor(40, 95, 60),
            RGBColor(130, 45, 40),
            RGBColor(255, 255, 255),
        )
    } else {
        (
            RGBColor(255, 255, 255),
            RGBColor(28, 29, 33),
            RGBColor(200, 235, 210),
            RGBColor(240, 170, 160),
            RGBColor(28, 29, 33),
        )
    };
    let font = |size: f64, h: HPos, v: VPos| {
        TextStyle::from(FontDesc::new(
            FontFamily::SansSerif,
            size * ratio,
            FontStyle::Normal,
        ))
        .pos(Pos::new(h, v))
        .color(&text)
    };
    let root = CanvasBackend::with_canvas_object(canvas.clone())?.into_drawing_area();
    root.fill(&background).ok()?;

    let (left, right, top, bottom) = (px(62.0), width - px(12.0), px(10.0), height - px(42.0));
    let (columns, rows) = (spec.columns.len().max(1), spec.rows.len().max(1));
    let cell_w = f64::from(right - left) / columns as f64;
    let cell_h = f64::from(bottom - top) / rows as f64;
    let x_of = |c: f64| left + ((c + 0.5) * cell_w) as i32;
    let y_of = |r: f64| bottom - ((r + 0.5) * cell_h) as i32;
    let gap = px(1.5);
    for (r, row) in spec.cells.iter().enumerate() {
        for (c, ok) in row.iter().enumerate() {
            let x0 = left + (c as f64 * cell_w) as i32 + gap;
            let x1 = left + ((c + 1) as f64 * cell_w) as i32 - gap;
            let y1 = bottom - (r as f64 * cell_h) as i32 - gap;
            let y0 = bottom - ((r + 1) as f64 * cell_h) as i32 + gap;
            let fill = if *ok { good } else { bad };
            root.draw(&Rectangle::new([(x0, y0), (x1, y1)], fill.filled()))
                .ok()?;
            if !*ok {
                let ink = ink.mix(0.55).stroke_width(px(1.5).max(1) as u32);
                root.draw(&PathElement::new(vec![(x0, y0), (x1, y1)], ink))
                    .ok()?;
                root.draw(&PathElement::new(vec![(x0, y1), (x1, y0)], ink))
                    .ok()?;
            }
        }
    }
    let x_labels = font(12.0, HPos::Center, VPos::Top);
    for (c, label) in spec.columns.iter().enumerate() {
        root.draw_text(label, &x_labels, (x_of(c as f64), bottom + px(5.0)))
            .ok()?;
    }
    let y_labels = font(12.0, HPos::Right, VPos::Center);
    for (r, label) in spec.rows.iter().enumerate() {
        root.draw_text(label, &y_labels, (left - px(6.0), y_of(r as f64)))
            .ok()?;
    }
    let names = font(13.0, HPos::Center, VPos::Bottom);
    root.draw_text(spec.x_name, &names, ((left + right) / 2, height - px(3.0)))
        .ok()?;
    let y_name = names
        .transform(plotters::style::FontTransform::Rotate270)
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw_text(spec.y_name, &y_name, (px(4.0), (top + bottom) / 2))
        .ok()?;
    // The learner's own system: a ring in the text colour with a dot, over the cells.
    if let Some((c, r)) = spec.mark {
        let at = (x_of(c), y_of(r));
        root.draw(&Circle::new(at, px(9.0), text.stroke_width(px(3.0) as u32)))
            .ok()?;
        root.draw(&Circle::new(at, px(3.0), text.filled())).ok()?;
    }
    root.present().ok()
}

/// Where `value` falls on an axis of `values` (ascending), in cell units: 0.0 is the
/// middle of the first cell; between two values it is interpolated; past either end it
/// stops half a cell beyond the last.
pub fn position(values: &[f64], value: f64) -> f64 {
    let Some((first, last)) = values.first().zip(values.last()) else {
        return 0.0;
    };
    // Past an end, in units of the neighbouring step, at most half a cell out.
    let step = |a: f64, b: f64| if b > a { b - a } else { 1.0 };
    if value <= *first {
        let unit = step(*first, values.get(1).copied().unwrap_or(first + 1.0));
        return ((value - first) / unit).max(-0.5);
    }
    if value >= *last {
        let before = values
            .len()
            .checked_sub(2)
            .map_or(last - 1.0, |i| values[i]);
        return (values.len() - 1) as f64 + ((value - last) / step(before, *last)).min(0.5);
    }
    for (i, pair) in values.windows(2).enumerate() {
        if value <= pair[1] {
            return i as f64 + (value - pair[0]) / (pair[1] - pair[0]);
        }
    }
    (values.len() - 1) as f64
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn a_value_between_two_columns_falls_between_them() {
        let axis = [1.0, 2.0, 5.0, 10.0, 20.0];
        assert_eq!(position(&axis, 2.0), 1.0);
        assert_eq!(position(&axis, 7.5), 2.5);
        assert_eq!(position(&axis, 60.0), 4.5);
        assert_eq!(position(&axis, 0.0), -0.5);
        assert_eq!(position(&axis, 0.75), -0.25);
        assert_eq!(position(&[], 3.0), 0.0);
    }
}
