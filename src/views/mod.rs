//! Reusable views. Each reads the engine's state through a signal and renders it; none
//! computes an outcome.

pub mod breaker;
pub mod chart;
pub mod compare;
pub mod html;
pub mod morph;
pub mod narration;
pub mod page;
pub mod page_tools;
pub mod settings;
pub mod thread_pool;

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
