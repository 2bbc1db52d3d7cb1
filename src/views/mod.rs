//! Reusable views. Each reads the engine's state through a signal and renders it; none
//! computes an outcome.

pub mod breaker;
pub mod chart;
pub mod compare;
pub mod html;
pub mod map_chart;
pub mod morph;
pub mod narration;
pub mod page;
pub mod page_tools;
pub mod settings;
pub mod thread_pool;
pub mod tool_dialogs;

/// What the views' tests share: a demo's session at a tick, and a panel's HTML.
#[cfg(test)]
pub(crate) mod test_support {
    use resilience_sim::scenario::catalogue;
    use resilience_sim::scenario::session::TickSession;

    /// Demo `demo` played to tick `t`.
    pub fn session_at(demo: u32, t: u32) -> TickSession {
        let mut s = TickSession::new(catalogue::demo(demo).unwrap().scenario()).unwrap();
        s.go_to(t);
        s
    }

    /// What a panel's `draw` writes for `s`.
    pub fn html(draw: fn(&TickSession, &mut String), s: &TickSession) -> String {
        let mut h = String::new();
        draw(s, &mut h);
        h
    }
}

/// Next Tick patches each panel in place while its markup keeps its shape (see
/// [`morph`]); a new shape means parsing HTML and laying out new nodes, most of a tick's
/// cost. Lists that grow and shrink from tick to tick therefore keep places, hidden when
/// unused. This checks that they do over long runs, where the breaker cycles.
#[cfg(test)]
mod shape_tests {
    use super::test_support::{html, session_at};
    use super::{breaker, morph, narration, thread_pool};
    use resilience_sim::scenario::session::TickSession;

    type Draw = fn(&TickSession, &mut String);

    const PANELS: [(&str, Draw); 10] = [
        ("threads", thread_pool::draw_threads),
        ("compartments", thread_pool::draw_compartments),
        ("refused", thread_pool::draw_refused),
        ("breaker status", breaker::draw_status),
        ("diagram", breaker::draw_diagram),
        ("path", breaker::draw_path),
        ("window", breaker::draw_window),
        ("changes", breaker::draw_changes),
        ("narration", narration::draw_narration),
        ("tally", narration::draw_tally),
    ];

    #[test]
    fn panels_keep_their_shape_from_tick_to_tick() {
        let mut changed = Vec::new();
        for demo in 1..=7 {
            let mut s = session_at(demo, 1);
            let mut before: Vec<String> = PANELS.iter().map(|(_, d)| html(*d, &s)).collect();
            for t in 2..=300 {
                s.next_tick();
                for ((name, draw), old) in PANELS.iter().zip(before.iter_mut()) {
                    let new = html(*draw, &s);
                    if !morph::same_shape(old, &new) {
                        changed.push(format!("Demo {demo} t = {t}: {name}"));
                    }
                    *old = new;
                }
            }
        }
        assert!(
            changed.is_empty(),
            "{} new shapes: {changed:#?}",
            changed.len()
        );
    }
}
