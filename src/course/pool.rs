//! Demo 11: one pool of 24 threads, and a bulkhead of 8. A chart of the engine's run (the
//! share of each endpoint's requests answered in time, second by second), the request
//! threads of one second as cells with a scrubber, and Little's law worked out from the
//! run. The engine computes every number; this module turns the run into a chart spec,
//! sentences and HTML text (the cells are one `inner_html`, not a typed list: the wasm
//! stays small; set whole when they change, as Leptos sets any `inner_html`).

use leptos::prelude::*;
use resilience_sim::model::shared_pool::{
    PoolBulkhead, PoolSecond, SharedPoolConfig, SharedPoolRun, ThreadUse,
};
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::pool_lab::PoolLab;

use super::lab_frame::{lab_state, tools, LabFrame};
use crate::components::{bind_all, Figure};
use crate::format::{fixed, trim};
use crate::nav::Location;
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::html::{change, live, Html};
use crate::views::page_tools::NoImport;

/// One endpoint of a second: its success rate, and its requests answered and failed.
fn of(s: &PoolSecond, drm: bool) -> (Option<f64>, u32, u32) {
    if drm {
        (s.drm_success_percent, s.drm_ok, s.drm_failed)
    } else {
        (s.fast_success_percent, s.fast_ok, s.fast_failed)
    }
}

/// The run's success rates over time. The two lines coincide at 100 % while the vendor is
/// healthy: /fast is wide, /drm dashed on top of it, so both show.
pub fn success_chart(run: &SharedPoolRun) -> ChartSpec {
    let line = |label: &str, tone, stroke, drm| Series {
        label: label.to_string(),
        tone,
        stroke,
        mark: None,
        // A row covers the second that ends at `t_s`; a second whose requests have not
        // ended yet (the run's last) has no rate and no point.
        points: run
            .seconds
            .iter()
            .filter_map(|s| of(s, drm).0.map(|p| (f64::from(s.t_s), p)))
            .collect(),
    };
    let end = run.seconds.len() as f64;
    let slow = f64::from(run.vendor_slow_at_s);
    ChartSpec {
        x_label: "time (s)",
        y_label: "answered in time (%)",
        x_min: 0.0,
        x_max: end,
        y_max: 105.0,
        series: vec![
            line("/fast", Tone::Blue, Stroke::Wide, false),
            line("/drm", Tone::Orange, Stroke::Dashed, true),
        ],
        shade: (slow < end).then_some((slow, end, "vendor slow")),
        reference: None,
    }
}

/// A percentage rounded down: "100 %" only when every request was answered.
fn percent(v: f64) -> String {
    fixed(v.floor(), false)
}

/// One endpoint's clause: its rate before the vendor turned slow, then after.
fn endpoint_summary(run: &SharedPoolRun, drm: bool) -> String {
    let slow = run.vendor_slow_at_s;
    let rates = |after: bool| -> Vec<(u32, f64)> {
        run.seconds
            .iter()
            .filter(|s| (s.t_s > slow) == after)
            .filter_map(|s| of(s, drm).0.map(|p| (s.t_s, p)))
            .collect()
    };
    let range = |rates: &[(u32, f64)]| {
        let low = rates.iter().map(|r| r.1).fold(100.0, f64::min);
        let high = rates.iter().map(|r| r.1).fold(0.0, f64::max);
        if percent(low) == percent(high) {
            format!("{} %", percent(low))
        } else {
            format!("{} to {} %", percent(low), percent(high))
        }
    };
    let mut s = String::from(if drm { "/drm: " } else { "/fast: " });
    let before = rates(false);
    let after = rates(true);
    if !before.is_empty() {
        s.push_str(&range(&before));
        s.push_str(if after.is_empty() {
            " of requests answered in time"
        } else {
            " until then; "
        });
    }
    if after.is_empty() {
        s.push('.');
        return s;
    }
    let (ok, failed) =
        run.seconds
            .iter()
            .filter(|s| s.t_s > slow)
            .fold((0u64, 0u64), |(o, f), s| {
                let (_, ok, failed) = of(s, drm);
                (o + u64::from(ok), f + u64::from(failed))
            });
    let share = percent(100.0 * ok as f64 / (ok + failed).max(1) as f64);
    // The second from which every later one stays under 10 %, if that comes within the
    // first seconds of the incident (a collapse, not a slow decline).
    let collapse = after
        .iter()
        .rposition(|r| r.1 >= 10.0)
        .map_or(Some(0), |i| (i + 1 < after.len()).then_some(i + 1))
        .filter(|i| *i <= 2)
        .map(|i| after[i].0 - 1);
    let since = if slow == 0 {
        String::new()
    } else {
        format!(" after {slow} s")
    };
    if after.iter().all(|r| r.1 >= 100.0) {
        s.push_str("still 100 % after it.");
    } else if let Some(from) = collapse {
        s.push_str(&format!(
            "below 10 % from {from} s on ({share} % of its requests{since} answered in time)."
        ));
    } else {
        s.push_str(&format!(
            "{share} % after it on the whole, {} per second.",
            range(&after)
        ));
    }
    s
}

/// The sentence under the chart, written from the run.
pub fn success_summary(run: &SharedPoolRun) -> String {
    let lead = if run.vendor_slow_at_s as usize >= run.seconds.len() {
        "The vendor stays healthy for the whole run.".to_string()
    } else if run.vendor_slow_at_s == 0 {
        "The vendor is slow from the start.".to_string()
    } else {
        format!("The vendor turns slow at {} s.", run.vendor_slow_at_s)
    };
    format!(
        "{lead} {} {}",
        endpoint_summary(run, false),
        endpoint_summary(run, true)
    )
}

/// A cell's `data-use`, its letter (colour is never alone) and the legend's words.
fn cell(u: ThreadUse) -> (&'static str, &'static str) {
    match u {
        ThreadUse::Free => ("free", ""),
        ThreadUse::Fast => ("fast", "F"),
        ThreadUse::Drm => ("drm", "D"),
        ThreadUse::QueuedForVendor => ("queued", "Q"),
        ThreadUse::StuckOnVendor => ("stuck", "S"),
    }
}

const LEGEND: [(ThreadUse, &str); 5] = [
    (ThreadUse::Fast, "/fast"),
    (ThreadUse::Drm, "/drm, vendor answering"),
    (ThreadUse::QueuedForVendor, "/drm, waiting in the bulkhead"),
    (ThreadUse::StuckOnVendor, "/drm, stuck on the slow vendor"),
    (ThreadUse::Free, "free"),
];

/// `second`'s request threads: a sentence for everyone, the legend, a cell per thread.
pub fn threads_html(run: &SharedPoolRun, second: u32, h: &mut String) {
    let Some(s) = run.seconds.iter().find(|s| s.t_s == second) else {
        return;
    };
    let busy = u64::from(run.threads - s.threads_free);
    h.raw("<p class=\"summary\" data-testid=\"pool-threads-summary\" aria-live=\"polite\">second ")
        .num(second.into())
        .raw(": ")
        .num(busy)
        .raw(" of ")
        .num(run.threads.into())
        .raw(" threads busy: ")
        .num(s.threads_fast.into())
        .raw(" /fast, ")
        .num(s.threads_drm.into())
        .raw(" /drm");
    match (s.threads_queued_for_vendor, s.threads_stuck) {
        (0, 0) => {}
        (0, stuck) => {
            h.raw(" (").num(stuck.into()).raw(" stuck on the vendor)");
        }
        (queued, stuck) => {
            h.raw(" (")
                .num(queued.into())
                .raw(" waiting in the bulkhead, ")
                .num(stuck.into())
                .raw(" stuck on the vendor)");
        }
    }
    if s.accept_queue > 0 {
        h.raw("; ")
            .num(s.accept_queue.into())
            .raw(" requests wait for a thread");
    }
    h.raw(".</p><ul class=\"legend pool-legend\" aria-hidden=\"true\">");
    for (u, words) in LEGEND {
        let (name, letter) = cell(u);
        h.raw("<li><span class=\"pool-cell\" data-use=\"")
            .raw(name)
            .raw("\">")
            .raw(letter)
            .raw("</span>")
            .raw(words)
            .raw("</li>");
    }
    h.raw("</ul><ol class=\"pool-cells\" data-testid=\"pool-threads\" aria-hidden=\"true\">");
    for u in &s.cells {
        let (name, letter) = cell(*u);
        h.raw("<li class=\"pool-cell\" data-use=\"")
            .raw(name)
            .raw("\">")
            .raw(letter)
            .raw("</li>");
    }
    h.raw("</ol>");
}

/// Milliseconds as seconds, without float formatting: 20 → "0.02", 5000 → "5".
pub(crate) fn secs(ms: u64) -> String {
    let mut s = (ms / 1000).to_string();
    let rest = ms % 1000;
    if rest > 0 {
        let digits = format!("{rest:03}");
        s.push('.');
        s.push_str(digits.trim_end_matches('0'));
    }
    s
}

/// Little's law from the run's figures and the config's rates and times.
pub fn littles_law_html(config: &SharedPoolConfig, run: &SharedPoolRun, h: &mut String) {
    let (rps, threads) = (config.rps_drm.to_string(), run.threads);
    let mut p = format!(
        "{rps} × {} s = {} before the incident; {rps} × {} s = {} after, against a pool of {threads}. /fast needs {} × {} s = {}.",
        secs(config.vendor_normal_ms),
        trim(run.drm_threads_needed_normal),
        secs(config.vendor_ms),
        trim(run.drm_threads_needed_slow),
        config.rps_fast,
        secs(config.fast_ms),
        trim(run.fast_threads_needed),
    );
    h.raw("<section class=\"panel pool-panel\" data-testid=\"pool-littles-law\" aria-labelledby=\"pool-law-heading\"><h2 id=\"pool-law-heading\">Little&#39;s law: the threads each endpoint needs</h2><p><strong>rps × latency = threads needed</strong>: ")
        .text(&p)
        .raw("</p><p>");
    let fast = trim(run.fast_threads_needed);
    p = match (run.bulkhead, run.drm_thread_cap) {
        (PoolBulkhead::None, _) => format!(
            "No bulkhead: nothing stops /drm from taking all {threads} threads."
        ),
        (PoolBulkhead::Semaphore, None) => format!(
            "A semaphore of {} whose calls may wait {} s for a permit: a waiting call holds its request thread too ({rps} × {} s = {} threads), so it caps /drm by time, not by count.",
            config.max_concurrent_calls,
            secs(config.max_wait_duration),
            secs(config.max_wait_duration),
            trim(f64::from(config.rps_drm) * config.max_wait_duration as f64 / 1000.0),
        ),
        (kind, Some(cap)) => {
            let how = if kind == PoolBulkhead::ThreadPool {
                format!(
                    "A thread-pool bulkhead lets /drm hold {} + {} = {cap} request threads (vendor threads + queue: a queued call's caller waits too)",
                    config.max_thread_pool_size, config.queue_capacity
                )
            } else {
                format!("A semaphore bulkhead caps /drm at {cap} threads in the vendor call")
            };
            if cap >= u64::from(threads) {
                format!("{how}: no fewer than the pool of {threads}, so it protects nothing.")
            } else {
                format!(
                    "{how}: {} stay for /fast, which needs {fast}.",
                    u64::from(threads) - cap
                )
            }
        }
        (PoolBulkhead::ThreadPool, None) => String::new(),
    };
    let peak = run.seconds.iter().map(|s| s.threads_drm).max().unwrap_or(0);
    p.push_str(&format!(
        " In this run /drm held up to {peak} of the {threads} threads."
    ));
    h.text(&p).raw("</p></section>");
}

#[component]
pub fn PoolPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<PoolLab>(info.number);
    let session = state.session;
    let controls = bind_all(state);
    // The session keeps its run: every view reads it there (no copy of the run in a memo,
    // whose comparing and cloning code the wasm would carry).
    let last = move || session.with(|s| s.config().config.seconds.max(1));
    // The second the cells show: first, two seconds into the incident.
    let second = RwSignal::new(session.with_untracked(|s| s.config().config.vendor_slow_at_s + 2));
    let shown = move || second.get().clamp(1, last());
    let spec = Signal::from(Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .as_ref()
                .map_or_else(|_| ChartSpec::empty(), success_chart)
        })
    }));
    let summary = Signal::derive(move || {
        session.with(|s| s.run().as_ref().map(success_summary).unwrap_or_default())
    });
    // Set as the page's HTML when it changes (a scrub rewrites 24 cells: no differ needed).
    let cells = live(move || {
        let mut h = String::new();
        let at = shown();
        session.with(|s| s.run().iter().for_each(|run| threads_html(run, at, &mut h)));
        h
    });
    let law = live(move || {
        let mut h = String::new();
        session.with(|s| {
            s.run()
                .iter()
                .for_each(|run| littles_law_html(&s.config().config, run, &mut h))
        });
        h
    });
    // Made inside the children (a boxed handler is not `Send`).
    let scrub = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
            second.set(v);
        }
    };
    view! {
        <LabFrame import=NoImport info=info text=&super::POOL_TEXT location=location tools=tools(info.number, state) controls=controls.clone() refused=state.refused
            reset=Callback::new(move |_| state.reset()) problems=problems>
            <Figure spec=spec summary=summary testid="pool-success"
                title="Requests answered in time, per second." />
            <section class="panel pool-panel" aria-labelledby="pool-threads-heading">
                <h2 id="pool-threads-heading">"The request threads, second by second"</h2>
                <label class="pool-scrubber">"Second shown"
                    <input type="range" data-testid="pool-scrubber"
                        min="1" max=live(move || last().to_string()) step="1"
                        prop:value=live(move || shown().to_string())
                        aria-valuetext=live(move || format!("second {}", shown()))
                        on:input=change(scrub) />
                </label>
                <div inner_html=cells></div>
            </section>
            <div inner_html=law></div>
        </LabFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(link: &[(&str, &str)]) -> (SharedPoolConfig, SharedPoolRun) {
        let (lab, run) = super::super::lab_frame::opened::<PoolLab>(link);
        (lab.config, run)
    }

    fn cells_of(html: &str) -> Vec<&str> {
        html.split("<li class=\"pool-cell\" data-use=\"")
            .skip(1)
            .map(|c| &c[..c.find('"').unwrap()])
            .collect()
    }

    /// The spec's story without a bulkhead: /fast, which never calls the vendor, collapses
    /// with it; at second 12 every thread is stuck on the vendor.
    #[test]
    fn without_a_bulkhead_fast_collapses_with_the_vendor() {
        let (config, run) = run_of(&[]);
        let summary = success_summary(&run);
        assert!(
            summary.starts_with("The vendor turns slow at 10 s."),
            "{summary}"
        );
        assert!(
            summary.contains("/fast: 100 % until then; below 10 % from 11 s on"),
            "{summary}"
        );
        assert!(
            summary.contains("/drm: 100 % until then; below 10 % from 10 s on (0 %"),
            "{summary}"
        );
        let chart = success_chart(&run);
        assert_eq!(chart.shade, Some((10.0, 60.0, "vendor slow")));
        assert_eq!(chart.series.len(), 2);

        let mut h = String::new();
        threads_html(&run, 12, &mut h);
        assert!(
            h.contains(
                "second 12: 24 of 24 threads busy: 0 /fast, 24 /drm (24 stuck on the vendor)"
            ),
            "{h}"
        );
        let cells = cells_of(&h);
        assert_eq!(cells.len(), config.threads as usize);
        assert!(cells.iter().all(|c| *c == "stuck"), "{cells:?}");
        assert!(!h.contains("style="), "no inline style under the CSP");

        let mut before = String::new();
        threads_html(&run, 5, &mut before);
        let cells = cells_of(&before);
        assert_eq!(cells.len(), 24);
        assert!(
            cells.iter().filter(|c| **c == "free").count() >= 17,
            "{cells:?}"
        );
        assert!(!cells.contains(&"stuck"));
        assert!(
            before.contains(" /drm.</p>"),
            "nothing stuck, nothing said: {before}"
        );

        let mut law = String::new();
        littles_law_html(&config, &run, &mut law);
        assert!(
            law.contains(
                "50 × 0.1 s = 5 before the incident; 50 × 5 s = 250 after, against a pool of 24."
            ),
            "{law}"
        );
        assert!(law.contains("/fast needs 50 × 0.02 s = 1."), "{law}");
        assert!(law.contains("No bulkhead"), "{law}");
        assert!(
            law.contains("/drm held up to 24 of the 24 threads"),
            "{law}"
        );
    }

    /// With a semaphore of 8, /drm degrades alone: /fast stays at 100 %.
    #[test]
    fn a_semaphore_of_8_keeps_fast_at_100_percent() {
        let (config, run) = run_of(&[("bulkhead", "semaphore")]);
        let summary = success_summary(&run);
        assert!(
            summary.contains("/fast: 100 % until then; still 100 % after it."),
            "{summary}"
        );
        assert!(
            summary.contains("/drm: 100 % until then; below 10 %"),
            "{summary}"
        );

        let mut h = String::new();
        threads_html(&run, 12, &mut h);
        let cells = cells_of(&h);
        assert_eq!(cells.len(), 24);
        assert_eq!(cells.iter().filter(|c| **c == "stuck").count(), 8, "{h}");
        assert!(cells.contains(&"free"), "{cells:?}");

        let mut law = String::new();
        littles_law_html(&config, &run, &mut law);
        assert!(
            law.contains(
                "caps /drm at 8 threads in the vendor call: 16 stay for /fast, which needs 1."
            ),
            "{law}"
        );
    }

    #[test]
    fn a_thread_pool_with_the_default_queue_caps_nothing() {
        let (config, run) = run_of(&[("bulkhead", "thread-pool")]);
        let mut law = String::new();
        littles_law_html(&config, &run, &mut law);
        assert!(law.contains("8 + 100 = 108 request threads"), "{law}");
        assert!(law.contains("so it protects nothing"), "{law}");
        let mut h = String::new();
        threads_html(&run, 12, &mut h);
        assert!(
            h.contains("(16 waiting in the bulkhead, 8 stuck on the vendor)"),
            "{h}"
        );
        assert!(cells_of(&h).contains(&"queued"));
    }

    #[test]
    fn a_healthy_run_says_so_and_shades_nothing() {
        let (_, run) = run_of(&[("vendorSlowAtS", "60"), ("seconds", "20")]);
        assert_eq!(success_chart(&run).shade, None);
        assert_eq!(
            success_summary(&run),
            "The vendor stays healthy for the whole run. /fast: 100 % of requests answered in time. /drm: 100 % of requests answered in time."
        );
        let mut h = String::new();
        threads_html(&run, 21, &mut h);
        assert!(h.is_empty(), "no such second");
    }

    #[test]
    fn seconds_are_written_without_floats() {
        assert_eq!(secs(20), "0.02");
        assert_eq!(secs(100), "0.1");
        assert_eq!(secs(5_000), "5");
        assert_eq!(secs(1_250), "1.25");
        assert_eq!(secs(0), "0");
    }
}
