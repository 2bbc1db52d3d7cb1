//! Demo 8: retries can keep a system down. Two charts of the engine's three runs
//! (successes, and the load offered to the provider), and the retry-layers widget. The
//! engine computes every number; this module turns runs into chart specs and sentences.

use leptos::prelude::*;
use resilience_sim::model::amplification::{
    AmplificationConfig, AmplificationPolicy, AmplificationRun, AmplificationStep,
};
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::Section;
use resilience_sim::scenario::labs::AmplificationLab;

use super::lab_frame::{lab_state, tools, LabFrame};
use crate::components::{bind_all, ControlList, Figure};
use crate::format::{fixed, seconds, trim};
use crate::nav::Location;
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::page_tools::NoImport;

/// One run's line: its colour, and a stroke that keeps it visible where it runs on top of
/// another (no retries and the budget give the same numbers while the provider is fine).
fn style(policy: AmplificationPolicy) -> (Tone, Stroke) {
    match policy {
        AmplificationPolicy::None => (Tone::Grey, Stroke::Wide),
        AmplificationPolicy::Retries => (Tone::Red, Stroke::Solid),
        AmplificationPolicy::Budget => (Tone::Blue, Stroke::Dashed),
    }
}

/// The legend's name of a run: "no retries", "3 retries", "budget 10%".
pub fn policy_label(policy: AmplificationPolicy, config: &AmplificationConfig) -> String {
    match policy {
        AmplificationPolicy::None => "no retries".to_string(),
        AmplificationPolicy::Retries if config.retries == 1 => "1 retry".to_string(),
        AmplificationPolicy::Retries => format!("{} retries", config.retries),
        AmplificationPolicy::Budget => format!("budget {}%", trim(config.budget_percent)),
    }
}

fn series(
    runs: &[AmplificationRun; 3],
    config: &AmplificationConfig,
    value: fn(&AmplificationStep) -> u64,
) -> Vec<Series> {
    runs.iter()
        .map(|r| {
            let (tone, stroke) = style(r.policy);
            Series {
                label: policy_label(r.policy, config),
                tone,
                stroke,
                mark: None,
                points: r
                    .steps
                    .iter()
                    .map(|s| (s.t_ms as f64 / 1000.0, value(s) as f64))
                    .collect(),
            }
        })
        .collect()
}

/// A chart of one per-second quantity of the three runs over time, with the degradation
/// shaded and a reference line (the demand, the capacity) the runs are read against.
fn chart(
    config: &AmplificationConfig,
    runs: &[AmplificationRun; 3],
    value: fn(&AmplificationStep) -> u64,
    y_label: &'static str,
    reference: (f64, &'static str),
) -> ChartSpec {
    let series = series(runs, config, value);
    let highest = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(reference.0, f64::max);
    ChartSpec {
        x_label: "time (s)",
        y_label,
        x_min: 0.0,
        x_max: config.duration_ms as f64 / 1000.0,
        y_max: highest * 1.15,
        series,
        shade: Some((
            runs[0].degradation_start_ms as f64 / 1000.0,
            runs[0].degradation_end_ms as f64 / 1000.0,
            "degradation",
        )),
        reference: Some(reference),
    }
}

pub fn successes_chart(config: &AmplificationConfig, runs: &[AmplificationRun; 3]) -> ChartSpec {
    let demand = f64::from(config.demand_per_second);
    chart(
        config,
        runs,
        |s| s.succeeded,
        "successes per second",
        (demand, "demand"),
    )
}

pub fn offered_chart(config: &AmplificationConfig, runs: &[AmplificationRun; 3]) -> ChartSpec {
    let capacity = config.normal_capacity_per_second();
    chart(
        config,
        runs,
        |s| s.offered,
        "calls offered per second",
        (capacity, "normal capacity"),
    )
}

/// The sentence under the successes chart, one clause per run.
pub fn successes_summary(config: &AmplificationConfig, runs: &[AmplificationRun; 3]) -> String {
    let clauses: Vec<String> = runs
        .iter()
        .map(|run| {
            let label = policy_label(run.policy, config);
            let calls = fixed(run.amplification(), true);
            let share = run.success_percent_after_trigger(config.demand_per_second);
            match (run.recovered_at_ms, share) {
                (Some(at), Some(share)) => format!(
                    "With {label}, the provider recovers at {} s and successes average {} % of demand after the trigger ({calls} calls per request).",
                    seconds(at),
                    fixed(share, false)
                ),
                (None, Some(share)) => format!(
                    "With {label}, the provider never recovers: successes stay at {} % of demand after the trigger ends ({calls} calls per request).",
                    fixed(share, false)
                ),
                _ => format!(
                    "With {label}, the degradation lasts to the end of the run ({calls} calls per request)."
                ),
            }
        })
        .collect();
    clauses.join(" ")
}

pub fn offered_summary(config: &AmplificationConfig, runs: &[AmplificationRun; 3]) -> String {
    let clauses: Vec<String> = runs
        .iter()
        .map(|run| {
            format!(
                "{}: {} calls for {} requests.",
                policy_label(run.policy, config),
                run.totals.calls,
                run.totals.requests
            )
        })
        .collect();
    clauses.join(" ")
}

#[component]
pub fn AmplificationPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<AmplificationLab>(info.number);
    let session = state.session;
    let controls = bind_all(state);
    // The run, with the config it came from (the labels read it); recomputed only when the
    // model's config changes, not for the retry-layers widget.
    let config = Memo::new(move |_| session.with(|s| s.config().config.clone()));
    let run = Memo::new(move |_| {
        config.track();
        session.with_untracked(|s| s.run().clone().ok())
    });
    let chart = move |build: fn(&AmplificationConfig, &[AmplificationRun; 3]) -> ChartSpec| {
        Signal::from(Memo::new(move |_| {
            run.with(|r| match r {
                Some(runs) => config.with_untracked(|c| build(c, runs)),
                None => ChartSpec::empty(),
            })
        }))
    };
    let summary = move |write: fn(&AmplificationConfig, &[AmplificationRun; 3]) -> String| {
        Signal::derive(move || {
            run.with(|r| {
                r.as_ref()
                    .map(|runs| config.with_untracked(|c| write(c, runs)))
                    .unwrap_or_default()
            })
        })
    };
    let calls = move || session.with(|s| s.config().calls_on_provider());
    let widget = controls.clone();
    let layers = move || {
        view! {
            <section class="panel retry-layers" aria-labelledby="layers-heading">
                <h2 id="layers-heading">"Retry at one layer only"</h2>
                <div class="lab-controls"><ControlList controls=widget.clone() section=Section::Page /></div>
                <p class="layers-result" aria-live="polite">
                    "One click becomes "<strong data-testid="layers-calls">{calls}</strong>" calls on the provider."
                </p>
                <p class="muted">"Retry close to the failing dependency, with few attempts, inside the caller's deadline; let the other layers fail fast."</p>
            </section>
        }
    };
    view! {
        <LabFrame import=NoImport info=info text=&super::AMPLIFICATION_TEXT location=location tools=tools(info.number, state) controls=controls.clone() refused=state.refused
            reset=Callback::new(move |_| state.reset()) problems=problems after=Box::new(move || layers().into_any())>
            <Figure spec=chart(successes_chart) summary=summary(successes_summary)
                testid="amp-successes" title="Successes per second." />
            <Figure spec=chart(offered_chart) summary=summary(offered_summary)
                testid="amp-offered" title="Load offered to the provider." />
        </LabFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::scenario::lab_session::{LabModel, LabSession};

    fn spec_runs() -> (AmplificationConfig, [AmplificationRun; 3]) {
        let lab = AmplificationLab::default();
        (lab.config.clone(), lab.run().unwrap())
    }

    #[test]
    fn the_default_runs_tell_the_spec_story() {
        let (config, runs) = spec_runs();
        let summary = successes_summary(&config, &runs);
        assert!(
            summary.contains("With 3 retries, the provider never recovers"),
            "{summary}"
        );
        assert!(
            summary.contains("With no retries, the provider recovers at 15.0 s"),
            "{summary}"
        );
        assert!(
            summary.contains("With budget 10%, the provider recovers"),
            "{summary}"
        );
        let chart = successes_chart(&config, &runs);
        assert_eq!(chart.series.len(), 3);
        assert_eq!(chart.shade.map(|s| (s.0, s.1)), Some((10.0, 15.0)));
        assert_eq!(chart.reference, Some((1000.0, "demand")));
        assert_eq!(
            offered_chart(&config, &runs).reference,
            Some((1200.0, "normal capacity"))
        );
    }

    #[test]
    fn the_lines_that_can_coincide_are_drawn_so_both_show() {
        let (config, runs) = spec_runs();
        let chart = successes_chart(&config, &runs);
        let strokes: Vec<(Tone, Stroke)> =
            chart.series.iter().map(|s| (s.tone, s.stroke)).collect();
        assert_eq!(
            strokes,
            vec![
                (Tone::Grey, Stroke::Wide),
                (Tone::Red, Stroke::Solid),
                (Tone::Blue, Stroke::Dashed)
            ]
        );
        // They do coincide before the degradation: the reason for the strokes.
        let before = |s: &Series| s.points.iter().take(90).map(|p| p.1).collect::<Vec<_>>();
        assert_eq!(before(&chart.series[0]), before(&chart.series[2]));
    }

    #[test]
    fn labels_follow_the_controls() {
        let mut session = LabSession::<AmplificationLab>::default();
        session.set_text("retries", "1").unwrap();
        session.set_text("budgetPercent", "25").unwrap();
        let c = &session.config().config;
        assert_eq!(policy_label(AmplificationPolicy::Retries, c), "1 retry");
        assert_eq!(policy_label(AmplificationPolicy::Budget, c), "budget 25%");
    }
}
