//! Demo 9: jitter against synchronized waves. Two charts of the engine's run (calls per
//! 100 ms slot against the capacity, clients still waiting), for the chosen jitter mode or
//! all four. The engine computes every number; this module turns runs into chart specs and
//! sentences.

use leptos::prelude::*;
use resilience_sim::model::jitter::{JitterConfig, JitterRun, JitterSlot, SLOT_MS};
use resilience_sim::policy::retry::Jitter;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::labs::JitterLab;

use super::lab_frame::{lab_state, tools, LabFrame};
use crate::components::{bind_all, Figure};
use crate::format::{seconds, trim};
use crate::nav::Location;
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::page_tools::NoImport;

fn tone(mode: Jitter) -> Tone {
    match mode {
        Jitter::None => Tone::Red,
        Jitter::Full => Tone::Blue,
        Jitter::Equal => Tone::Orange,
        Jitter::Decorrelated => Tone::Purple,
    }
}

fn series(runs: &[JitterRun], value: fn(&JitterSlot) -> u32) -> Vec<Series> {
    runs.iter()
        .map(|r| Series {
            label: r.mode.label().to_string(),
            tone: tone(r.mode),
            stroke: Stroke::Solid,
            mark: None,
            points: r
                .slots
                .iter()
                .map(|s| (s.t_ms as f64 / 1000.0, f64::from(value(s))))
                .collect(),
        })
        .collect()
}

pub fn calls_chart(config: &JitterConfig, runs: &[JitterRun]) -> ChartSpec {
    let series = series(runs, |s| s.calls);
    let capacity = f64::from(config.capacity_per_slot);
    let highest = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(capacity, f64::max);
    ChartSpec {
        x_label: "time (s)",
        y_label: "calls per 100 ms",
        x_min: 0.0,
        x_max: config.duration_ms as f64 / 1000.0 + 0.1,
        y_max: highest * 1.1,
        series,
        shade: None,
        reference: Some((capacity, "capacity")),
    }
}

pub fn waiting_chart(config: &JitterConfig, runs: &[JitterRun]) -> ChartSpec {
    ChartSpec {
        x_label: "time (s)",
        y_label: "clients still waiting",
        x_min: 0.0,
        x_max: config.duration_ms as f64 / 1000.0 + 0.1,
        y_max: f64::from(config.clients) * 1.05,
        series: series(runs, |s| s.waiting),
        shade: None,
        reference: None,
    }
}

/// The slots that received calls, when there are few of them: the waves of
/// synchronized retries ("0, 1, 3, 7 and 15 s").
fn waves(run: &JitterRun) -> Option<String> {
    let starts: Vec<String> = run
        .slots
        .iter()
        .filter(|s| s.calls > 0)
        .map(|s| trim(s.t_ms as f64 / 1000.0))
        .collect();
    if starts.len() < 2 || starts.len() > 8 {
        return None;
    }
    let (last, rest) = starts.split_last()?;
    Some(format!("{} and {last} s", rest.join(", ")))
}

/// The sentence under the calls chart, one per mode shown.
pub fn calls_summary(config: &JitterConfig, runs: &[JitterRun]) -> String {
    let sentences: Vec<String> = runs
        .iter()
        .map(|run| {
            let mut s = format!(
                "With {}, the server absorbed {} calls for {} clients",
                run.mode.label(),
                run.total_calls,
                run.clients
            );
            if let Some(waves) = waves(run) {
                s.push_str(&format!(", in waves at {waves},"));
            }
            // A slot's clients are served within it: "by" its end.
            let by = |slot_start: u64| seconds(slot_start + SLOT_MS);
            match (run.served_share_at_ms(99), run.all_served_at_ms) {
                (Some(bulk), Some(at)) if bulk < at => s.push_str(&format!(
                    "; 99 % were served by {} s and the last, refused more than once, by {} s.",
                    by(bulk),
                    by(at)
                )),
                (_, Some(at)) => s.push_str(&format!(" and everyone was served by {} s.", by(at))),
                (_, None) => s.push_str(&format!(
                    " and {} were still waiting after the slot at {} s.",
                    run.waiting_at_end,
                    trim(config.duration_ms as f64 / 1000.0)
                )),
            }
            s
        })
        .collect();
    sentences.join(" ")
}

pub fn waiting_summary(runs: &[JitterRun]) -> String {
    let clauses: Vec<String> = runs
        .iter()
        .map(|run| {
            format!(
                "{}: {} waiting at the end.",
                run.mode.label(),
                run.waiting_at_end
            )
        })
        .collect();
    clauses.join(" ")
}

#[component]
pub fn JitterPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<JitterLab>(info.number);
    let session = state.session;
    let controls = bind_all(state);
    let run = Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .clone()
                .ok()
                .map(|runs| (s.config().config.clone(), runs))
        })
    });
    let chart = move |build: fn(&JitterConfig, &[JitterRun]) -> ChartSpec| {
        Signal::from(Memo::new(move |_| {
            run.with(|r| match r {
                Some((config, runs)) => build(config, runs),
                None => ChartSpec::empty(),
            })
        }))
    };
    let calls = Signal::derive(move || {
        run.with(|r| {
            r.as_ref()
                .map(|(c, runs)| calls_summary(c, runs))
                .unwrap_or_default()
        })
    });
    let waiting = Signal::derive(move || {
        run.with(|r| {
            r.as_ref()
                .map(|(_, runs)| waiting_summary(runs))
                .unwrap_or_default()
        })
    });
    view! {
        <LabFrame import=NoImport info=info text=&super::JITTER_TEXT location=location tools=tools(info.number, state) controls=controls.clone() refused=state.refused
            reset=Callback::new(move |_| state.reset()) problems=problems page_controls_in_panel=true>
            <Figure spec=chart(calls_chart) summary=calls testid="jit-calls" title="Calls per 100 ms slot." />
            <Figure spec=chart(waiting_chart) summary=waiting testid="jit-waiting" title="Clients still waiting." />
        </LabFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::scenario::lab_session::LabSession;

    fn runs_of(link: &[(&str, &str)]) -> (JitterConfig, Vec<JitterRun>) {
        let (session, problems) = LabSession::<JitterLab>::from_pairs(link.iter().copied());
        assert!(problems.is_empty(), "{problems:?}");
        let runs = session.run().clone().unwrap();
        (session.config().config.clone(), runs)
    }

    /// The course's figures (../shared/spec/02-retry-labs.md, Lab B), in the page's words.
    #[test]
    fn without_jitter_the_page_tells_the_courses_waves() {
        let (config, runs) = runs_of(&[]);
        let summary = calls_summary(&config, &runs);
        assert!(
            summary.contains("in waves at 0, 1, 3, 7 and 15 s"),
            "{summary}"
        );
        assert!(
            summary.contains("250 were still waiting after the slot at 15 s"),
            "{summary}"
        );
        assert!(
            summary.contains("absorbed 3500 calls for 1000 clients"),
            "{summary}"
        );
        let chart = calls_chart(&config, &runs);
        assert_eq!(chart.reference, Some((150.0, "capacity")));
        let peaks: Vec<f64> = chart.series[0]
            .points
            .iter()
            .map(|p| p.1)
            .filter(|c| *c > 0.0)
            .collect();
        assert_eq!(peaks, vec![1000.0, 850.0, 700.0, 550.0, 400.0]);
    }

    /// "With full jitter everyone is served in about 1.5 s": the bulk is; a few clients
    /// refused twice come later (crates/resilience-sim/tests/retry_labs.rs explains why).
    #[test]
    fn full_jitter_serves_nearly_everyone_in_about_a_second_and_a_half() {
        let (config, runs) = runs_of(&[("mode", "full")]);
        let summary = calls_summary(&config, &runs);
        // The spec's "about 1.5 s", for the bulk: 99 % by the end of a slot within 2 s.
        let bulk: f64 = summary
            .split("99 % were served by ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|s| s.parse().ok())
            .expect("the 99 % figure");
        assert!((1.0..=2.0).contains(&bulk), "{summary}");
        assert!(
            runs[0].total_calls < 3_500,
            "fewer calls than without jitter"
        );
        assert_eq!(waiting_summary(&runs), "full jitter: 0 waiting at the end.");
    }

    #[test]
    fn comparing_draws_the_four_modes() {
        let (config, runs) = runs_of(&[("compare", "true")]);
        let chart = waiting_chart(&config, &runs);
        let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "no jitter",
                "full jitter",
                "equal jitter",
                "decorrelated jitter"
            ]
        );
    }
}
