//! plotters' drawing backend for an HTML canvas: the plotters-canvas crate's `CanvasBackend`
//! (MIT, © Hao Hou) with the same canvas calls, except that the colour and font strings
//! are written without float formatting (`rgba(r,g,b,0.5)`, `normal 18px sans-serif`, the
//! same text: `push_f64` writes what `{}` does), which would otherwise keep core's float
//! printer (about 12 KB) in the wasm for these two numbers.

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use resilience_sim::number::push_f64;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::html::Html;

/// Draws on an HTML canvas's 2D context.
pub struct CanvasBackend {
    canvas: HtmlCanvasElement,
    context: CanvasRenderingContext2d,
}

/// A drawing call the canvas refused, with the thrown value as JSON.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("Canvas Error: ")?;
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanvasError {}

fn error_cast(e: JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(
        js_sys::JSON::stringify(&e)
            .map(|s| String::from(&s))
            .unwrap_or_else(|_| "Unknown".to_string()),
    ))
}

impl CanvasBackend {
    /// The backend of `canvas`, if it gives a 2D context.
    pub fn with_canvas_object(canvas: HtmlCanvasElement) -> Option<Self> {
        let context: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        Some(CanvasBackend { canvas, context })
    }

    fn set_line_style(&mut self, style: &impl BackendStyle) {
        self.context
            .set_stroke_style_str(&canvas_color(style.color()));
        self.context.set_line_width(style.stroke_width() as f64);
    }
}

/// `rgba(r,g,b,a)`, as plotters-canvas's `format!("rgba({},{},{},{})", r, g, b, a)`.
pub fn canvas_color(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    let mut out = String::from("rgba(");
    out.num(r.into())
        .raw(",")
        .num(g.into())
        .raw(",")
        .num(b.into())
        .raw(",");
    push_f64(&mut out, color.alpha);
    out.push(')');
    out
}

/// The canvas font, as plotters-canvas's `format!("{} {}px {}", style, size, family)`.
pub fn canvas_font(style: &str, size: f64, family: &str) -> String {
    let mut out = String::from(style);
    out.push(' ');
    push_f64(&mut out, size);
    out.push_str("px ");
    out.push_str(family);
    out
}

impl DrawingBackend for CanvasBackend {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        style: BackendColor,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.context
            .set_fill_style_str(&canvas_color(style.color()));
        self.context
            .fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (from, to) = fine_hor_ver_lines(from, to);
        self.set_line_style(style);
        self.context.begin_path();
        self.context.move_to(from.0, from.1);
        self.context.line_to(to.0, to.1);
        self.context.stroke();
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y) = (f64::from(upper_left.0), f64::from(upper_left.1));
        let w = f64::from(bottom_right.0 - upper_left.0);
        let h = f64::from(bottom_right.1 - upper_left.1);
        if fill {
            self.context
                .set_fill_style_str(&canvas_color(style.color()));
            self.context.fill_rect(x, y, w, h);
        } else {
            self.set_line_style(style);
            self.context.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter();
        self.context.begin_path();
        if let Some(start) = path.next() {
            self.set_line_style(style);
            self.context.move_to(f64::from(start.0), f64::from(start.1));
            for next in path {
                self.context.line_to(f64::from(next.0), f64::from(next.1));
            }
        }
        self.context.stroke();
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter();
        self.context.begin_path();
        if let Some(start) = path.next() {
            self.context
                .set_fill_style_str(&canvas_color(style.color()));
            self.context.move_to(f64::from(start.0), f64::from(start.1));
            for next in path {
                self.context.line_to(f64::from(next.0), f64::from(next.1));
            }
            self.context.close_path();
        }
        self.context.fill();
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.context
                .set_fill_style_str(&canvas_color(style.color()));
        } else {
            self.set_line_style(style);
        }
        self.context.begin_path();
        self.context
            .arc(
                f64::from(center.0),
                f64::from(center.1),
                f64::from(radius),
                0.0,
                std::f64::consts::PI * 2.0,
            )
            .map_err(error_cast)?;
        if fill {
            self.context.fill();
        } else {
            self.context.stroke();
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (mut x, mut y) = (pos.0, pos.1);
        let degree = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        } / 180.0
            * std::f64::consts::PI;
        if degree != 0.0 {
            self.context.save();
            self.context
                .translate(f64::from(x), f64::from(y))
                .map_err(error_cast)?;
            self.context.rotate(degree).map_err(error_cast)?;
            x = 0;
            y = 0;
        }
        self.context.set_text_baseline(match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        self.context.set_text_align(match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        });
        self.context.set_fill_style_str(&canvas_color(color));
        self.context.set_font(&canvas_font(
            style.style().as_str(),
            style.size(),
            style.family().as_str(),
        ));
        self.context
            .fill_text(text, f64::from(x), f64::from(y))
            .map_err(error_cast)?;
        if degree != 0.0 {
            self.context.restore();
        }
        Ok(())
    }
}

/// Moves a vertical or horizontal line half a pixel so that it is not blurred across two
/// (as plotters-canvas does).
fn fine_hor_ver_lines(from: BackendCoord, end: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let mut from = (from.0 as f64, from.1 as f64);
    let mut end = (end.0 as f64, end.1 as f64);
    if from.0 == end.0 {
        from.0 -= 0.5;
        end.0 -= 0.5;
    }
    if from.1 == end.1 {
        from.1 -= 0.5;
        end.1 -= 0.5;
    }
    (from, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_fonts_read_as_plotters_canvas_writes_them() {
        for (rgb, alpha) in [
            ((0, 0, 0), 1.0),
            ((255, 120, 110), 0.5),
            ((31, 95, 207), 0.12),
            ((200, 40, 30), 0.0),
            ((1, 2, 3), 0.1 + 0.2),
            ((9, 99, 199), 1.0 / 3.0),
        ] {
            let (r, g, b) = rgb;
            assert_eq!(
                canvas_color(BackendColor { alpha, rgb }),
                format!("rgba({},{},{},{})", r, g, b, alpha)
            );
        }
        for ratio in [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 1.1, 4.0 / 3.0] {
            for size in [12.0, 13.0] {
                let size = size * ratio;
                assert_eq!(
                    canvas_font("normal", size, "sans-serif"),
                    format!("{} {}px {}", "normal", size, "sans-serif")
                );
            }
        }
    }
}
