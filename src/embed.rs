//! A demo on someone else's page. With `?embed=1` the playground shows only the demo (no
//! site header, course list or pager), opens links that would leave the demo in a new tab,
//! and tells the page around its frame how tall it is, so the frame can fit it:
//!
//! - `{"type":"resilience-playground:resize","demo":N,"height":PX}` for `embed.js` (shipped
//!   in `dist/`, it turns `<div data-resilience-demo="5">` into a sized frame);
//! - `{"subject":"lti.frameResize","height":PX}`, the message Canvas LMS listens for.
//!
//! The messages carry only a height, so they go to any parent (`"*"`); `embed.js` checks
//! that a message comes from the playground's origin and from its own frame.

use crate::url_state::{encode, query_pairs};

/// Whether the query asks for embed mode (`embed=1`, `embed=true` or a bare `embed`).
pub fn is_embedded(query: &str) -> bool {
    flag(query, "embed")
}

/// Whether the query asks for the teachers' overview (`overview=1`).
pub fn is_overview(query: &str) -> bool {
    flag(query, "overview")
}

/// The full course's link for what a frame shows: its query without `embed`.
pub fn full_course_link(query: &str) -> String {
    let mut link = String::from("?");
    for (name, value) in query_pairs(query).filter(|(name, _)| name != "embed") {
        if link.len() > 1 {
            link.push('&');
        }
        link.push_str(&encode(&name));
        link.push('=');
        link.push_str(&encode(&value));
    }
    link
}

/// The course's own address, no demo asked for: the front page (not in a frame, where a
/// demo is always meant).
pub fn is_landing(query: &str) -> bool {
    !query_pairs(query).any(|(k, _)| k == "demo") && !is_overview(query) && !is_embedded(query)
}

fn flag(query: &str, name: &str) -> bool {
    query_pairs(query).any(|(k, v)| k == name && matches!(v.as_str(), "" | "1" | "true"))
}

/// The two messages the embedded page posts when its height is `height` CSS pixels.
pub fn resize_messages(demo: u32, height: u32) -> [String; 2] {
    [
        format!(r#"{{"type":"resilience-playground:resize","demo":{demo},"height":{height}}}"#),
        format!(r#"{{"subject":"lti.frameResize","height":{height}}}"#),
    ]
}

/// What a teacher pastes into a course page to show one demo.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snippets {
    /// A plain iframe: works anywhere, keeps the height it is given.
    pub iframe: String,
    /// A placeholder and `embed.js`: a frame that follows the demo's height.
    pub script: String,
}

/// The folder the playground is served from, from the page's address without its query:
/// `https://x.org/courses/rp/index.html` and `https://x.org/courses/rp/` both give
/// `https://x.org/courses/rp/`.
pub fn site_base(page: &str) -> &str {
    let page = page.split(['?', '#']).next().unwrap_or(page);
    match page.rfind('/') {
        Some(slash) => &page[..=slash],
        None => page,
    }
}

/// The snippets for the demo of `link` (`demo=5` or `demo=5&t=3&…`, as the page's own link
/// writes it) on the playground served at `base` ([`site_base`]).
pub fn snippets(base: &str, link: &str, title: &str) -> Snippets {
    let link = link.trim_start_matches('?');
    let (demo, rest) = match link.split_once('&') {
        Some((demo, rest)) => (demo, rest),
        None => (link, ""),
    };
    let number = demo.trim_start_matches("demo=");
    let mut iframe = String::new();
    iframe.push_str("<iframe src=\"");
    push_attr(&mut iframe, &format!("{base}?{link}&embed=1"));
    iframe.push_str("\" title=\"");
    push_attr(&mut iframe, title);
    // 700 px wide on a desktop, never wider than a phone's page.
    iframe.push_str(
        "\" width=\"700\" height=\"640\" style=\"width: 100%; max-width: 700px\" loading=\"lazy\"></iframe>",
    );
    let mut script = String::new();
    script.push_str("<div data-resilience-demo=\"");
    push_attr(&mut script, number);
    if !rest.is_empty() {
        script.push_str("\" data-resilience-query=\"");
        push_attr(&mut script, rest);
    }
    script.push_str("\"></div>\n<script src=\"");
    push_attr(&mut script, &format!("{base}embed.js"));
    script.push_str("\" async></script>");
    Snippets { iframe, script }
}

/// `text` as a double-quoted attribute value.
fn push_attr(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            c => out.push(c),
        }
    }
}

/// Posts the page's height to the parent frame now and whenever it changes. Does nothing
/// outside a frame.
#[cfg(target_arch = "wasm32")]
pub fn post_height_to_parent(demo: u32) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(parent) = window.parent().ok().flatten() else {
        return;
    };
    if parent == window {
        return; // the top window is its own parent
    }
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    let observed = body.clone();
    let mut last = 0;
    let post = Closure::<dyn FnMut()>::new(move || {
        let height = observed.offset_height().max(0) as u32;
        if height == last {
            return;
        }
        last = height;
        for message in resize_messages(demo, height) {
            if let Ok(value) = js_sys::JSON::parse(&message) {
                let _ = parent.post_message(&value, "*");
            }
        }
    });
    // The observer reports the first size as soon as it observes: that is the "on load".
    if let Ok(observer) = web_sys::ResizeObserver::new(post.as_ref().unchecked_ref()) {
        observer.observe(&body);
        // Both live as long as the page.
        std::mem::forget(observer);
        post.forget();
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub fn post_height_to_parent(_demo: u32) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_mode_is_asked_for_by_the_link() {
        assert!(is_embedded("?demo=5&embed=1"));
        assert!(is_embedded("embed&demo=5"));
        assert!(is_embedded("demo=5&embed=true"));
        assert!(!is_embedded("demo=5&embed=0"));
        assert!(!is_embedded("demo=5"));
        assert!(!is_embedded("demo=5&embedded=1"));
        assert!(is_overview("?overview=1"));
    }

    #[test]
    fn the_full_course_link_drops_embed_wherever_it_stands() {
        assert_eq!(full_course_link("?embed=1&demo=5&t=3"), "?demo=5&t=3");
        assert_eq!(full_course_link("?demo=5&embed=1"), "?demo=5");
        assert_eq!(
            full_course_link("?demo=9&mode=full&embed"),
            "?demo=9&mode=full"
        );
    }

    #[test]
    fn the_resize_messages_are_the_issues_json() {
        let [ours, canvas] = resize_messages(5, 812);
        assert_eq!(
            ours,
            r#"{"type":"resilience-playground:resize","demo":5,"height":812}"#
        );
        assert_eq!(canvas, r#"{"subject":"lti.frameResize","height":812}"#);
    }

    #[test]
    fn the_base_is_the_folder_of_the_page() {
        assert_eq!(
            site_base("https://x.org/courses/rp/index.html?demo=2"),
            "https://x.org/courses/rp/"
        );
        assert_eq!(
            site_base("https://x.org/courses/rp/#top"),
            "https://x.org/courses/rp/"
        );
        assert_eq!(
            site_base("http://127.0.0.1:8080/"),
            "http://127.0.0.1:8080/"
        );
    }

    #[test]
    fn snippets_open_the_demo_in_embed_mode() {
        let s = snippets(
            "https://x.org/rp/",
            "demo=5&t=3&minimumNumberOfCalls=2",
            "Demo 5: \"Slow\" <b>",
        );
        assert_eq!(
            s.iframe,
            "<iframe src=\"https://x.org/rp/?demo=5&amp;t=3&amp;minimumNumberOfCalls=2&amp;embed=1\" \
             title=\"Demo 5: &quot;Slow&quot; &lt;b>\" width=\"700\" height=\"640\" \
             style=\"width: 100%; max-width: 700px\" loading=\"lazy\"></iframe>"
        );
        assert_eq!(
            s.script,
            "<div data-resilience-demo=\"5\" data-resilience-query=\"t=3&amp;minimumNumberOfCalls=2\"></div>\n\
             <script src=\"https://x.org/rp/embed.js\" async></script>"
        );
        let plain = snippets("https://x.org/rp/", "demo=12", "Demo 12");
        assert!(plain
            .script
            .starts_with("<div data-resilience-demo=\"12\"></div>"));
    }
}
