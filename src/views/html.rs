//! What keeps the page's wasm small (Leptos compiles its build, update and mount code once
//! per distinct view and closure type, so a page of typed trees and plain `move ||`
//! closures carries dozens of copies):
//!
//! - read-only panels are HTML text written in plain Rust ([`Html`], [`panel`]) and set
//!   with one `inner_html` each; after the first drawing a panel is patched where its text
//!   changed, not rewritten (see [`super::morph`]: what keeps a Next Tick cheap);
//! - every reactive value, event handler and effect of the page is boxed into one of a few
//!   types ([`Live`], [`LiveAttr`], [`Click`], [`Change`], [`effect`]), and every change to
//!   the session goes through [`act`].
//!
//! Escaping is a type: [`Html::raw`] takes only a `&'static str`, markup written by hand
//! in this crate, so a runtime string (a name, a message, a formatted number) cannot reach
//! `inner_html` unescaped by accident. Runtime text goes through [`Html::text`], which
//! escapes it, and whole numbers through [`Html::num`].

use std::fmt::Write;

use leptos::ev;
use leptos::prelude::*;
use resilience_sim::scenario::session::TickSession;

use super::morph::Patched;

/// Writing HTML into a `String`, chained: `h.raw("<p>").text(name).raw("</p>")`.
pub trait Html {
    /// Markup, written as is. `'static`: a literal of this crate (or a choice between
    /// literals), never text made at run time, which goes through [`Html::text`].
    fn raw(&mut self, markup: &'static str) -> &mut Self;
    /// Text, escaped for element content and quoted attribute values.
    fn text(&mut self, text: &str) -> &mut Self;
    /// A whole number.
    fn num(&mut self, n: u64) -> &mut Self;
    /// An `<option>` of a select whose options are written as markup.
    fn option(&mut self, value: &str, label: &str, selected: bool) -> &mut Self {
        self.raw("<option value=\"").text(value);
        self.raw(if selected { "\" selected>" } else { "\">" });
        self.text(label).raw("</option>")
    }
}

impl Html for String {
    fn raw(&mut self, markup: &'static str) -> &mut Self {
        self.push_str(markup);
        self
    }

    fn text(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            match c {
                '&' => self.push_str("&amp;"),
                '<' => self.push_str("&lt;"),
                '>' => self.push_str("&gt;"),
                '"' => self.push_str("&quot;"),
                '\'' => self.push_str("&#39;"),
                c => self.push(c),
            }
        }
        self
    }

    fn num(&mut self, n: u64) -> &mut Self {
        // The standard formatting of integers is in the wasm anyway.
        let _ = write!(self, "{n}");
        self
    }
}

/// A panel's HTML, drawn from the session by `draw` whenever the session changes; the page
/// is written only when the text differs, and then patched where it differs rather than
/// rewritten ([`Patched`]: a tick changes a few numbers, not the whole panel).
pub fn panel(session: RwSignal<TickSession>, draw: fn(&TickSession, &mut String)) -> LivePanel {
    LivePanel(Box::new(move || {
        let mut html = String::with_capacity(1024);
        session.with(|s| draw(s, &mut html));
        Patched(html)
    }))
}

/// A panel's HTML kept in step with the page, boxed like [`Live`].
pub struct LivePanel(Box<dyn FnMut() -> Patched + Send>);

/// Like [`live`], for HTML that is patched into the page where it changed (see [`panel`]).
pub fn live_html(mut value: impl FnMut() -> String + Send + 'static) -> LivePanel {
    LivePanel(Box::new(move || Patched(value())))
}

impl IntoAttributeValue for LivePanel {
    type Output = Box<dyn FnMut() -> Patched + Send>;

    fn into_attribute_value(self) -> Self::Output {
        self.0
    }
}

/// A value kept in step with the page: text, an attribute, a property or a panel's HTML.
/// Boxed, so every one of them has this one type and the wasm holds one copy of the code
/// that updates the DOM (a plain `move ||` closure gets its own copy, and a `Signal` brings
/// the code of every kind of signal it could wrap).
pub type Live = Box<dyn FnMut() -> String + Send>;

pub fn live(value: impl FnMut() -> String + Send + 'static) -> Live {
    Box::new(value)
}

/// An attribute that is set (`Some`) or left out (`None`), kept in step with the page; one
/// type for all of them (see [`Live`]).
pub type LiveAttr = Box<dyn FnMut() -> Option<&'static str> + Send>;

pub fn live_attr(value: impl FnMut() -> Option<&'static str> + Send + 'static) -> LiveAttr {
    Box::new(value)
}

/// A boolean DOM property (`checked`) kept in step with the page; one type for all of them
/// (see [`Live`]).
pub type LiveFlag = Box<dyn Fn() -> bool + Send + Sync>;

pub fn live_flag(value: impl Fn() -> bool + Send + Sync + 'static) -> LiveFlag {
    Box::new(value)
}

/// `"true"` or `"false"`, for `aria-pressed` and `aria-invalid`.
pub fn aria_bool(on: bool) -> Option<&'static str> {
    Some(if on { "true" } else { "false" })
}

/// An effect, boxed: every effect of the page shares one copy of the effect machinery.
pub fn effect(run: impl FnMut() + 'static) {
    let run: Box<dyn FnMut()> = Box::new(run);
    Effect::new(run);
}

/// Every change to the session goes through here: one copy of the signal's
/// write-and-notify code in the wasm instead of one per intent. A page that is gone (its
/// signal disposed) ignores late calls, such as a last tick of Play.
pub fn act(session: RwSignal<TickSession>, intent: &mut dyn FnMut(&mut TickSession)) {
    session.update(|s| intent(s));
}

/// A click handler, boxed: every button shares one copy of the code that attaches a click
/// handler, instead of one per closure.
pub type Click = Box<dyn FnMut(ev::MouseEvent)>;

/// A `change` or `input` handler, boxed (see [`Click`]).
pub type Change = Box<dyn FnMut(ev::Event)>;

pub fn click(handler: impl FnMut(ev::MouseEvent) + 'static) -> Click {
    Box::new(handler)
}

pub fn change(handler: impl FnMut(ev::Event) + 'static) -> Change {
    Box::new(handler)
}

/// The text of the text area an `input` event came from, or `None` when it holds more than
/// `limit` characters. The length is checked before the text is copied out of the page, and
/// a text over the limit is taken out of the field (a paste of millions of lines would
/// otherwise stay there, laid out).
pub fn pasted_within(event: &ev::Event, limit: usize) -> Option<String> {
    use wasm_bindgen::JsCast;
    let area = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())?;
    if area.text_length() as usize > limit {
        area.set_value("");
        return None;
    }
    Some(area.value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text() {
        let mut h = String::new();
        h.raw("<p title=\"").text("a \"b\" & <c> 'd'").raw("\">");
        assert_eq!(
            h,
            "<p title=\"a &quot;b&quot; &amp; &lt;c&gt; &#39;d&#39;\">"
        );
    }

    #[test]
    fn numbers() {
        let mut h = String::new();
        h.num(0)
            .raw(" ")
            .num(7)
            .raw(" ")
            .num(1234567890123)
            .raw(" ")
            .num(u64::MAX);
        assert_eq!(h, format!("0 7 1234567890123 {}", u64::MAX));
    }
}
