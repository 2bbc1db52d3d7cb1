//! A read-only panel that changes a little each tick, patched in place instead of rewritten.
//!
//! Setting `inner_html` replaces every node of a panel, so each tick the browser parses,
//! styles, shapes and lays out the whole panel again even when one number changed: on the
//! course's machines that is most of a Next Tick's 2 ms budget. A panel's HTML is kept as
//! a [`Patched`] value instead, and each new drawing is compared with the last one:
//!
//! - Most ticks change texts and attributes only (a countdown, a class, a count), not the
//!   shape of the markup. `plan` finds that out from the two strings alone, in Rust,
//!   and lists the edits; they are applied to the panel's nodes, which are looked up once
//!   (a walk of the panel) and kept until the shape changes. No HTML is parsed.
//! - When the shape changed (a row more, an element swapped), [`patch`] writes the new
//!   HTML into an inert `<template>` and walks the two trees side by side: a subtree that
//!   is equal (one native `isEqualNode` call) is left alone, a differing text gets its new
//!   text, an element of the same tag gets its attributes and is walked in turn, anything
//!   else is replaced.
//!
//! Either way the page ends up with exactly the nodes `inner_html` would give it, and the
//! browser redoes only what changed. [`super::html::panel`] hands every panel's HTML over
//! as a [`Patched`] value; the first drawing is set whole.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use leptos::tachys::html::element::InnerHtmlValue;
use leptos::tachys::renderer::types::Element;
use wasm_bindgen::JsCast;
use web_sys::{HtmlTemplateElement, Node};

/// A panel's HTML, written into the page by patching (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patched(pub String);

/// A panel in the page: its element, the HTML it shows, and (once looked up) the nodes of
/// that HTML's elements and texts in document order.
pub struct PanelState {
    el: Element,
    html: String,
    nodes: Vec<Node>,
    /// The panel's nodes could not be matched with its HTML: always patch through a
    /// template.
    no_fast_path: bool,
}

impl InnerHtmlValue for Patched {
    type AsyncOutput = Self;
    type State = PanelState;
    type Cloneable = Arc<str>;
    type CloneableOwned = Arc<str>;

    fn html_len(&self) -> usize {
        self.0.len()
    }

    fn to_html(self, buf: &mut String) {
        buf.push_str(&self.0);
    }

    fn to_template(_buf: &mut String) {}

    fn hydrate<const FROM_SERVER: bool>(self, el: &Element) -> Self::State {
        if !FROM_SERVER {
            el.set_inner_html(&self.0);
        }
        PanelState::new(el, self.0)
    }

    fn build(self, el: &Element) -> Self::State {
        el.set_inner_html(&self.0);
        PanelState::new(el, self.0)
    }

    fn rebuild(self, state: &mut Self::State) {
        if self.0 != state.html {
            state.update(self.0);
        }
    }

    fn into_cloneable(self) -> Self::Cloneable {
        self.0.into()
    }

    fn into_cloneable_owned(self) -> Self::CloneableOwned {
        self.0.into()
    }

    fn dry_resolve(&mut self) {}

    async fn resolve(self) -> Self::AsyncOutput {
        self
    }
}

thread_local! {
    /// One inert template for every panel: parsing into it runs no style or layout.
    static TEMPLATE: RefCell<Option<HtmlTemplateElement>> = const { RefCell::new(None) };
}

fn template() -> Option<HtmlTemplateElement> {
    TEMPLATE.with(|t| {
        let mut t = t.borrow_mut();
        if t.is_none() {
            *t = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.create_element("template").ok())
                .and_then(|e| e.dyn_into::<HtmlTemplateElement>().ok());
        }
        t.clone()
    })
}

/// Makes `target`'s children those of `html`, touching only what differs.
pub fn patch(target: &Element, html: &str) {
    if html.is_empty() {
        // Nothing to parse.
        while let Some(child) = target.first_child() {
            let _ = target.remove_child(&child);
        }
        return;
    }
    let Some(template) = template() else {
        // No document to make a template with: set the panel whole.
        target.set_inner_html(html);
        return;
    };
    template.set_inner_html(html);
    patch_children(target, &template.content());
}

/// Walks `from`'s children and `to`'s side by side, moving `to`'s nodes into `from` where
/// they are needed. One node removed or inserted is recognised by looking one node ahead,
/// so the nodes after it are kept rather than all rewritten one place off.
fn patch_children(from: &Node, to: &Node) {
    let mut old = from.first_child();
    let mut new = to.first_child();
    while let Some(n) = new {
        let next_new = n.next_sibling();
        match old {
            None => {
                let _ = from.append_child(&n);
            }
            Some(o) => {
                let next_old = o.next_sibling();
                if o.is_equal_node(Some(&n)) {
                    old = next_old;
                } else if let Some(kept) = next_old.as_ref().filter(|k| k.is_equal_node(Some(&n))) {
                    // `o` is gone.
                    let _ = from.remove_child(&o);
                    old = kept.next_sibling();
                } else if next_new.as_ref().is_some_and(|m| o.is_equal_node(Some(m))) {
                    // `n` is new, before `o`, which the next new node matches.
                    let _ = from.insert_before(&n, Some(&o));
                    old = Some(o);
                } else {
                    patch_node(from, &o, &n);
                    old = next_old;
                }
            }
        }
        new = next_new;
    }
    while let Some(o) = old {
        let next_old = o.next_sibling();
        let _ = from.remove_child(&o);
        old = next_old;
    }
}

/// `o` (a child of `parent`) differs from `n`: change it into `n`, or replace it.
fn patch_node(parent: &Node, o: &Node, n: &Node) {
    let kind = o.node_type();
    if kind == n.node_type() {
        if kind == Node::TEXT_NODE {
            o.set_node_value(n.node_value().as_deref());
            return;
        }
        if kind == Node::ELEMENT_NODE {
            if let (Some(oe), Some(ne)) = (o.dyn_ref::<Element>(), n.dyn_ref::<Element>()) {
                if oe.tag_name() == ne.tag_name() {
                    patch_attributes(oe, ne);
                    patch_children(o, n);
                    return;
                }
            }
        }
    }
    let _ = parent.replace_child(n, o);
}

fn patch_attributes(o: &Element, n: &Element) {
    let names = o.get_attribute_names();
    for name in names.iter().filter_map(|v| v.as_string()) {
        if !n.has_attribute(&name) {
            let _ = o.remove_attribute(&name);
        }
    }
    let names = n.get_attribute_names();
    for name in names.iter().filter_map(|v| v.as_string()) {
        let value = n.get_attribute(&name);
        if o.get_attribute(&name) != value {
            if let Some(value) = value {
                let _ = o.set_attribute(&name, &value);
            }
        }
    }
}

impl PanelState {
    fn new(el: &Element, html: String) -> Self {
        PanelState {
            el: el.clone(),
            html,
            nodes: Vec::new(),
            no_fast_path: false,
        }
    }

    /// Shows `html` instead of the current HTML.
    fn update(&mut self, html: String) {
        let edits = if self.no_fast_path {
            None
        } else {
            plan(&self.html, &html)
        };
        match edits {
            Some(edits) if self.nodes_found() => {
                for edit in &edits {
                    self.apply(edit);
                }
            }
            _ => {
                patch(&self.el, &html);
                self.nodes.clear();
            }
        }
        self.html = html;
    }

    /// Looks the panel's nodes up if they are not known yet; false if they do not match
    /// its HTML (then the panel is always patched through a template).
    fn nodes_found(&mut self) -> bool {
        if !self.nodes.is_empty() {
            return true;
        }
        let Some(pieces) = pieces(&self.html) else {
            return false;
        };
        let mut nodes = Vec::with_capacity(pieces.len());
        let mut kinds = Vec::with_capacity(pieces.len());
        collect(&self.el, &mut nodes, &mut kinds);
        let expected = pieces.iter().filter_map(|p| match p {
            Piece::Open { .. } => Some(Node::ELEMENT_NODE),
            Piece::Text(_) => Some(Node::TEXT_NODE),
            Piece::Close => None,
        });
        let matched = expected.eq(kinds.iter().copied());
        if matched {
            self.nodes = nodes;
        } else {
            self.no_fast_path = true;
        }
        matched && !self.nodes.is_empty()
    }

    fn apply(&self, edit: &Edit) {
        match edit {
            Edit::Text { node, text } => {
                if let Some(n) = self.nodes.get(*node) {
                    n.set_node_value(Some(text));
                }
            }
            Edit::SetAttribute { node, name, value } => {
                if let Some(e) = self.nodes.get(*node).and_then(|n| n.dyn_ref::<Element>()) {
                    let _ = e.set_attribute(name, value);
                }
            }
            Edit::RemoveAttribute { node, name } => {
                if let Some(e) = self.nodes.get(*node).and_then(|n| n.dyn_ref::<Element>()) {
                    let _ = e.remove_attribute(name);
                }
            }
        }
    }
}

/// The elements and texts under `node`, in document order, with their node types. Comments
/// are left out (Leptos may leave a marker after a panel's HTML).
fn collect(node: &Node, out: &mut Vec<Node>, kinds: &mut Vec<u16>) {
    let mut child = node.first_child();
    while let Some(c) = child {
        let kind = c.node_type();
        if kind != Node::COMMENT_NODE {
            out.push(c.clone());
            kinds.push(kind);
            if kind == Node::ELEMENT_NODE {
                collect(&c, out, kinds);
            }
        }
        child = c.next_sibling();
    }
}

/// One piece of the HTML this crate writes: a start tag (with its attributes as written),
/// an end tag, or a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Open { name: &'a str, attrs: &'a str },
    Close,
    Text(&'a str),
}

/// Elements with no end tag (an end tag is made up for them, so shapes stay comparable).
const VOID: [&str; 13] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// The pieces of `html`, or `None` for anything this crate does not write (a comment, an
/// unterminated tag).
fn pieces(html: &str) -> Option<Vec<Piece<'_>>> {
    Pieces::new(html).collect::<Result<_, _>>().ok()
}

/// Markup this crate does not write (a comment, an unterminated tag): left to the browser.
#[derive(Debug)]
struct NotOurs;

/// The pieces of an HTML string one by one, read as they are asked for: comparing two
/// drawings walks both in step and stops at the first difference in shape, with nothing
/// collected. After a [`NotOurs`], there is nothing more.
struct Pieces<'a> {
    html: &'a str,
    at: usize,
    /// The end tag made up for a void or self-closing element, due next.
    close_due: bool,
    failed: bool,
}

impl<'a> Pieces<'a> {
    fn new(html: &'a str) -> Self {
        Pieces {
            html,
            at: 0,
            close_due: false,
            failed: false,
        }
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Result<Piece<'a>, NotOurs>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.close_due {
            self.close_due = false;
            return Some(Ok(Piece::Close));
        }
        let (html, i) = (self.html, self.at);
        if self.failed || i >= html.len() {
            return None;
        }
        let bytes = html.as_bytes();
        if bytes[i] != b'<' {
            let end = html[i..].find('<').map_or(html.len(), |k| i + k);
            self.at = end;
            return Some(Ok(Piece::Text(&html[i..end])));
        }
        // A tag: find its `>`, skipping quoted attribute values.
        let mut j = i + 1;
        let mut quote = None;
        while j < bytes.len() {
            match (quote, bytes[j]) {
                (None, b'>') => break,
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), c) if c == q => quote = None,
                _ => {}
            }
            j += 1;
        }
        let tag = html.get(i + 1..j).filter(|_| j < bytes.len());
        let Some(tag) = tag.filter(|t| !t.starts_with('!') && !t.starts_with('?')) else {
            self.failed = true;
            return Some(Err(NotOurs));
        };
        self.at = j + 1;
        if tag.starts_with('/') {
            return Some(Ok(Piece::Close));
        }
        let (tag, self_closing) = match tag.strip_suffix('/') {
            Some(t) => (t, true),
            None => (tag, false),
        };
        let end = tag.find([' ', '\t', '\n']).unwrap_or(tag.len());
        let (name, attrs) = tag.split_at(end);
        self.close_due = self_closing || VOID.iter().any(|v| v.eq_ignore_ascii_case(name));
        Some(Ok(Piece::Open { name, attrs }))
    }
}

/// `name="value"` pairs as this crate writes them (double quotes; a bare name has the
/// value ""), values unescaped; `None` for anything else.
fn attributes(attrs: &str) -> Option<Vec<(&str, Cow<'_, str>)>> {
    let mut out = Vec::new();
    let mut rest = attrs.trim_start();
    while !rest.is_empty() {
        let end = rest.find(['=', ' ', '\t', '\n']).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() {
            return None;
        }
        rest = &rest[end..];
        if let Some(after) = rest.strip_prefix("=\"") {
            let close = after.find('"')?;
            out.push((name, unescape(&after[..close])?));
            rest = &after[close + 1..];
        } else if rest.starts_with('=') {
            return None;
        } else {
            out.push((name, Cow::Borrowed("")));
        }
        rest = rest.trim_start();
    }
    Some(out)
}

/// Text as the browser reads it: the entities [`super::html::Html::text`] writes (and
/// `&lt;` in hand-written markup) turned back into characters; `None` for any other.
fn unescape(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('&') {
        return Some(Cow::Borrowed(s));
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        let (c, len) = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&#39;", '\''),
        ]
        .iter()
        .find(|(e, _)| rest.starts_with(e))
        .map(|(e, c)| (*c, e.len()))?;
        out.push(c);
        rest = &rest[len..];
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// A change to one of a panel's nodes (numbered in document order, elements and texts).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Edit {
    Text {
        node: usize,
        text: String,
    },
    SetAttribute {
        node: usize,
        name: String,
        value: String,
    },
    RemoveAttribute {
        node: usize,
        name: String,
    },
}

/// Whether `new` can replace `old` by edits of texts and attributes alone.
#[cfg(test)]
pub(crate) fn same_shape(old: &str, new: &str) -> bool {
    plan(old, new).is_some()
}

/// The edits that turn the nodes of `old` into those of `new`, if the two have the same
/// shape (the same elements, in the same places, and texts where the other has texts);
/// `None` otherwise, or if either is not HTML this crate writes.
fn plan(old: &str, new: &str) -> Option<Vec<Edit>> {
    let (mut old, mut new) = (Pieces::new(old), Pieces::new(new));
    let mut edits = Vec::new();
    let mut node = 0;
    loop {
        let (o, n) = match (old.next(), new.next()) {
            (None, None) => return Some(edits),
            (Some(o), Some(n)) => (o.ok()?, n.ok()?),
            // One drawing has more pieces than the other.
            _ => return None,
        };
        match (&o, &n) {
            (Piece::Close, Piece::Close) => continue,
            (Piece::Text(a), Piece::Text(b)) => {
                if a != b {
                    edits.push(Edit::Text {
                        node,
                        text: unescape(b)?.into_owned(),
                    });
                }
            }
            (Piece::Open { name: a, attrs: x }, Piece::Open { name: b, attrs: y }) => {
                if a != b {
                    return None;
                }
                if x != y {
                    let (x, y) = (attributes(x)?, attributes(y)?);
                    for (name, _) in x.iter().filter(|(k, _)| !y.iter().any(|(l, _)| l == k)) {
                        edits.push(Edit::RemoveAttribute {
                            node,
                            name: name.to_string(),
                        });
                    }
                    for (name, value) in &y {
                        if !x.iter().any(|(k, v)| k == name && v == value) {
                            edits.push(Edit::SetAttribute {
                                node,
                                name: name.to_string(),
                                value: value.to_string(),
                            });
                        }
                    }
                }
            }
            _ => return None,
        }
        node += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_number_is_one_text_edit() {
        let old = "<p class=\"summary\">2 of 6 threads busy</p><ul><li>a</li></ul>";
        let new = "<p class=\"summary\">3 of 6 threads busy</p><ul><li>a</li></ul>";
        assert_eq!(
            plan(old, new),
            Some(vec![Edit::Text {
                node: 1,
                text: "3 of 6 threads busy".into()
            }])
        );
    }

    #[test]
    fn attributes_are_set_and_removed_and_unescaped() {
        let old = "<li class=\"thread free\" title=\"x\" hidden><span>Thread 1</span></li>";
        let new = "<li class=\"thread payment\" data-x=\"a &amp; &quot;b&quot;\"><span>Thread 1</span></li>";
        assert_eq!(
            plan(old, new),
            Some(vec![
                Edit::RemoveAttribute {
                    node: 0,
                    name: "title".into()
                },
                Edit::RemoveAttribute {
                    node: 0,
                    name: "hidden".into()
                },
                Edit::SetAttribute {
                    node: 0,
                    name: "class".into(),
                    value: "thread payment".into()
                },
                Edit::SetAttribute {
                    node: 0,
                    name: "data-x".into(),
                    value: "a & \"b\"".into()
                },
            ])
        );
    }

    #[test]
    fn a_new_shape_has_no_plan() {
        let one = "<ol><li>a</li></ol>";
        assert_eq!(plan(one, "<ol><li>a</li><li>b</li></ol>"), None);
        assert_eq!(plan(one, "<ul><li>a</li></ul>"), None);
        assert_eq!(plan("<p>a</p>", "<p><b>a</b></p>"), None);
        assert_eq!(plan("<p>a</p>", "<p></p>"), None);
        // Markup this crate never writes is left to the browser.
        assert_eq!(plan("<p>a</p>", "<p>a<!-- b --></p>"), None);
        assert_eq!(plan("<p>a</p>", "<p>&nbsp;</p>"), None);
        assert_eq!(plan("<p>a</p>", "<p>a"), None);
    }

    #[test]
    fn svg_and_void_elements_keep_their_places() {
        let old = "<svg><path d=\"M 0 0\"/><text x=\"1\">&lt; 50%</text></svg><br><p>a</p>";
        let new = "<svg><path d=\"M 0 1\"/><text x=\"1\">&lt; 60%</text></svg><br><p>b</p>";
        assert_eq!(
            plan(old, new),
            Some(vec![
                Edit::SetAttribute {
                    node: 1,
                    name: "d".into(),
                    value: "M 0 1".into()
                },
                Edit::Text {
                    node: 3,
                    text: "< 60%".into()
                },
                Edit::Text {
                    node: 6,
                    text: "b".into()
                },
            ])
        );
    }

    #[test]
    fn a_quoted_angle_bracket_stays_in_its_attribute() {
        let p = pieces("<a title=\"x > y\">t</a>").unwrap();
        assert_eq!(
            p,
            [
                Piece::Open {
                    name: "a",
                    attrs: " title=\"x > y\""
                },
                Piece::Text("t"),
                Piece::Close
            ]
        );
    }
}
