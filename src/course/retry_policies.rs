//! Demo 15: which retry policy survives? The spec's two experiments for the policies the
//! learner shows (../shared/spec/05-retry-policies.md): attempts per request and success
//! against the failure rate, each policy's refusal onset marked; the metastability map of
//! the learner's own policy with their load and slowdown marked, and the verdict of that
//! exact system. The engine makes every figure ([`RetryPoliciesJob`], in slices between
//! frames: the default run is 505 runs of the small world, drawn policy by policy
//! as each comes in); this module turns the run into chart specs and sentences.

use std::time::Duration;

use leptos::prelude::*;
use resilience_sim::model::retry_policies::sweep::SweepPoint;
use resilience_sim::model::retry_policies::RetryPolicyKind;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::{ControlValue, LabSession};
use resilience_sim::scenario::retry_policies_lab::{
    policy_label, settings_prefix, RetryPoliciesJob, RetryPoliciesLab, RetryPoliciesRun,
};

use super::lab_frame::{deferred_lab_state, tools, LabFrame};
use crate::components::{bind_all, message, ControlBinding, Figure, LabControl, LabState};
use crate::format::fixed;
use crate::nav::Location;
use crate::tasks::{Step, Stepped};
use crate::views::chart::{self, ChartSpec, Series, Stroke, Tone};
use crate::views::map_chart::{self, MapSpec};
use crate::views::page_tools::NoImport;

/// Events one step of the job handles: about a millisecond in the browser, so a task of
/// [`crate::tasks`]'s budget makes a few steps and the page keeps answering.
const EVENTS_PER_STEP: u64 = 10_000;

/// Each policy's line: the colour, and the stroke that tells two lines of one colour apart.
fn style(policy: RetryPolicyKind) -> (Tone, Stroke) {
    match policy {
        RetryPolicyKind::None => (Tone::Grey, Stroke::Wide),
        RetryPolicyKind::Resilience4j => (Tone::Red, Stroke::Solid),
        RetryPolicyKind::RetryBudget => (Tone::Blue, Stroke::Solid),
        RetryPolicyKind::TokenBucket => (Tone::Green, Stroke::Solid),
        RetryPolicyKind::Finagle => (Tone::Purple, Stroke::Solid),
        RetryPolicyKind::Grpc => (Tone::Orange, Stroke::Solid),
        RetryPolicyKind::AwsStandard => (Tone::Blue, Stroke::Dashed),
        RetryPolicyKind::AdaptiveThrottling => (Tone::Green, Stroke::Dashed),
    }
}

/// A percentage of a share, whole: 0.09 → "9".
fn percent(share: f64) -> String {
    fixed((share * 100.0).round(), false)
}

/// A ratio with one decimal: 1.861 → "1.9".
fn one_decimal(v: f64) -> String {
    fixed(v, true)
}

/// A line per policy of `run`: `value` of each point against the failure rate (%), with
/// the refusal onset ringed when `ring_onset`.
fn curves(run: &RetryPoliciesRun, value: fn(&SweepPoint) -> f64, ring_onset: bool) -> Vec<Series> {
    run.results
        .iter()
        .map(|r| {
            let (tone, stroke) = style(r.policy);
            let point = |p: &SweepPoint| (p.failure_rate * 100.0, value(p));
            let onset = r.curve.refusal_onset.filter(|_| ring_onset);
            Series {
                label: policy_label(r.policy).to_string(),
                tone,
                stroke,
                points: r.curve.points.iter().map(point).collect(),
                mark: onset.and_then(|f| {
                    r.curve
                        .points
                        .iter()
                        .find(|p| p.failure_rate == f)
                        .map(point)
                }),
            }
        })
        .collect()
}

/// Attempts per request against the failure rate, each policy's refusal onset ringed.
pub fn amplification_chart(run: &RetryPoliciesRun) -> ChartSpec {
    let top = run
        .results
        .iter()
        .flat_map(|r| r.curve.points.iter().map(|p| p.amplification))
        .fold(2.0, f64::max);
    ChartSpec {
        x_label: "failure rate of each attempt (%)",
        y_label: "attempts per request",
        x_min: 0.0,
        x_max: 100.0,
        y_max: (top * 1.1).ceil(),
        series: curves(run, |p| p.amplification, true),
        shade: None,
        reference: None,
    }
}

/// The share of requests that eventually succeed against the failure rate.
pub fn success_chart(run: &RetryPoliciesRun) -> ChartSpec {
    ChartSpec {
        x_label: "failure rate of each attempt (%)",
        y_label: "requests that succeed (%)",
        x_min: 0.0,
        x_max: 100.0,
        y_max: 105.0,
        series: curves(run, |p| p.success * 100.0, false),
        shade: None,
        reference: None,
    }
}

/// The amplification of `policy` at failure rate `f`, if the run has it.
fn amplification_at(run: &RetryPoliciesRun, policy: RetryPolicyKind, f: f64) -> Option<f64> {
    run.result(policy)?
        .curve
        .points
        .iter()
        .find(|p| p.failure_rate == f)
        .map(|p| p.amplification)
}

/// The sentence under the first chart: what each policy sends when every call fails, and
/// where each starts refusing.
pub fn amplification_summary(run: &RetryPoliciesRun) -> String {
    let mut at_full = Vec::new();
    let mut onsets = Vec::new();
    for r in &run.results {
        if let Some(a) = amplification_at(run, r.policy, 1.0) {
            let mut figure = format!("{} {}", policy_label(r.policy), one_decimal(a));
            if a < 0.95 {
                figure.push_str(" (below 1: it drops requests before they are sent)");
            }
            at_full.push(figure);
        }
        if let Some(f) = r.curve.refusal_onset {
            // Adaptive throttling never retries: what it refuses are requests.
            let refuses = if r.policy == RetryPolicyKind::AdaptiveThrottling {
                " (it drops requests)"
            } else {
                ""
            };
            onsets.push(format!(
                "{} from {} %{refuses}",
                policy_label(r.policy),
                percent(f)
            ));
        }
    }
    let mut s = format!(
        "When every attempt fails, attempts per request: {}.",
        at_full.join(", ")
    );
    if onsets.is_empty() {
        s.push_str(" No policy shown refuses a retry.");
    } else {
        s.push_str(&format!(
            " Retries start being refused (ringed): {}.",
            onsets.join(", ")
        ));
    }
    s
}

/// The sentence under the second chart: who still succeeds at 50 % failures.
pub fn success_summary(run: &RetryPoliciesRun) -> String {
    let at_half: Vec<String> = run
        .results
        .iter()
        .filter_map(|r| {
            let p = r.curve.points.iter().find(|p| p.failure_rate == 0.5)?;
            Some(format!(
                "{} {} %",
                policy_label(r.policy),
                percent(p.success)
            ))
        })
        .collect();
    format!(
        "At 50 % failures, the requests that eventually succeed: {}. Every retry refused is a request that fails.",
        at_half.join(", ")
    )
}

/// The map of the learner's policy, their own system marked; empty when that policy is
/// not shown.
pub fn map_spec(run: &RetryPoliciesRun, lab: &RetryPoliciesLab) -> MapSpec {
    let Some(result) = run.result(lab.your_policy) else {
        return MapSpec::default();
    };
    let columns = run.triggers_s.len();
    let cells = result
        .row
        .cells
        .chunks(columns.max(1))
        .map(|row| row.iter().map(|c| c.recovered).collect())
        .collect();
    MapSpec {
        x_name: "slowdown: seconds of 3x service time",
        y_name: "load (% of capacity)",
        columns: run
            .triggers_s
            .iter()
            .map(|t| format!("{} s", fixed(*t, t.fract() != 0.0)))
            .collect(),
        rows: run.loads.iter().map(|l| percent(*l)).collect(),
        cells,
        mark: Some((
            map_chart::position(&run.triggers_s, f64::from(lab.your_trigger_s)),
            map_chart::position(&run.loads, lab.your_load()),
        )),
    }
}

/// Cells still down, of all, for one policy.
fn still_down(run: &RetryPoliciesRun, policy: RetryPolicyKind) -> Option<(usize, usize)> {
    let cells = &run.result(policy)?.row.cells;
    Some((cells.iter().filter(|c| !c.recovered).count(), cells.len()))
}

/// Why the run has nothing for `policy` yet: not shown, or not made yet.
fn not_in(lab: &RetryPoliciesLab, policy: RetryPolicyKind, to: &str) -> String {
    let name = policy_label(policy);
    if lab.shown().any(|p| p == policy) {
        format!("{name} is still being run.")
    } else {
        format!("{name} is not shown: switch it on under “The policies” {to}.")
    }
}

/// The sentence for the map: how much of it never recovers, and where.
pub fn map_summary(run: &RetryPoliciesRun, lab: &RetryPoliciesLab) -> String {
    let name = policy_label(lab.your_policy);
    let Some((down, all)) = still_down(run, lab.your_policy) else {
        return not_in(lab, lab.your_policy, "to see its map");
    };
    if down == 0 {
        return format!(
            "{name}: every one of the {all} cells recovers within 60 s of the slowdown's end."
        );
    }
    // The lowest load at which some slowdown leaves the server down.
    let lowest = run
        .result(lab.your_policy)
        .and_then(|r| {
            r.row
                .cells
                .iter()
                .filter(|c| !c.recovered)
                .map(|c| c.load)
                .min_by(f64::total_cmp)
        })
        .unwrap_or(0.0);
    format!(
        "{name}: {down} of {all} cells {} still down 60 s after the slowdown ends (crossed), from a load of {} % up.",
        if down == 1 { "is" } else { "are" },
        percent(lowest)
    )
}

/// The verdict on the learner's own system: the one cell run for it.
pub fn your_verdict(run: &RetryPoliciesRun, lab: &RetryPoliciesLab) -> String {
    let cell = &run.yours.cell;
    let what = format!(
        "{} at {} % of capacity through a {} s slowdown",
        policy_label(lab.your_policy),
        lab.your_load_percent,
        lab.your_trigger_s
    );
    let share = percent(cell.goodput);
    if cell.recovered {
        format!(
            "Your system, {what}: recovered. In the last 10 s of the 60 s after the slowdown, {share} % of requests succeed."
        )
    } else {
        format!(
            "Your system, {what}: still down 60 s after the slowdown ends. Only {share} % of requests succeed in the last 10 s, and over the whole run the server did {} calls for clients that had already given up.",
            cell.wasted
        )
    }
}

/// One row of the table of policies.
pub struct PolicyRow {
    pub policy: RetryPolicyKind,
    pub at_10: String,
    pub at_100: String,
    pub refuses_from: String,
    pub still_down: String,
}

pub fn policy_rows(run: &RetryPoliciesRun) -> Vec<PolicyRow> {
    run.results
        .iter()
        .map(|r| {
            let amp = |f| amplification_at(run, r.policy, f).map_or("–".into(), one_decimal);
            PolicyRow {
                policy: r.policy,
                at_10: amp(0.1),
                at_100: amp(1.0),
                refuses_from: r
                    .curve
                    .refusal_onset
                    .map_or("never".into(), |f| format!("{} %", percent(f))),
                still_down: still_down(run, r.policy)
                    .map_or(String::new(), |(d, all)| format!("{d} of {all}")),
            }
        })
        .collect()
}

/// The prediction's options: (policy, what the learner picks).
const PREDICT_OPTIONS: [(RetryPolicyKind, &str); 4] = [
    (
        RetryPolicyKind::Resilience4j,
        "Resilience4j Retry, maxAttempts 4",
    ),
    (RetryPolicyKind::TokenBucket, "the token bucket"),
    (RetryPolicyKind::Grpc, "gRPC retry throttling"),
    (RetryPolicyKind::AwsStandard, "the AWS SDK's standard mode"),
];

/// What the run says of the learner's pick: which policy still multiplies the load when
/// every call fails (the question of the page's "Predict").
pub fn prediction_verdict(
    run: &RetryPoliciesRun,
    lab: &RetryPoliciesLab,
    pick: RetryPolicyKind,
) -> String {
    let Some(picked) = amplification_at(run, pick, 1.0) else {
        return not_in(lab, pick, "to check your answer");
    };
    let figures: Vec<String> = PREDICT_OPTIONS
        .iter()
        .filter_map(|(p, _)| {
            amplification_at(run, *p, 1.0)
                .map(|a| format!("{} {}", policy_label(*p), one_decimal(a)))
        })
        .collect();
    let verdict = if picked >= 1.5 {
        "Yes: it keeps retrying however many calls fail."
    } else if pick == RetryPolicyKind::Resilience4j {
        "No, at these settings: maxAttempts leaves it few retries per request. It has no shared brake; raise maxAttempts and it multiplies the load again."
    } else {
        "No: its shared brake stops the retries once most calls fail."
    };
    format!(
        "{verdict} Attempts per request at 100 % failures: {}.",
        figures.join(", ")
    )
}

/// The page's state: the lab's session (config and run) and what the page adds to it.
#[derive(Clone, Copy)]
struct Page {
    state: LabState<RetryPoliciesLab>,
    /// The job under way: (runs made, runs to make).
    progress: RwSignal<Option<(usize, usize)>>,
    /// The policy the learner predicted.
    prediction: RwSignal<Option<RetryPolicyKind>>,
    runs: Stepped,
}

impl Page {
    /// A control's change: taken at once (checked by the model), its run made in slices.
    fn set(self, name: &'static str, value: ControlValue) {
        let mut result = Ok(());
        self.state
            .session
            .update(|s| result = s.set_deferred(name, value));
        self.state
            .refused
            .set(result.err().map(|e| message::<RetryPoliciesLab>(&e)));
        self.rerun();
    }

    /// Back to the spec's values, run in slices like any change.
    fn reset(self) {
        self.state.session.update(|s| {
            let _ = s.replace_deferred(RetryPoliciesLab::default());
        });
        self.state.refused.set(None);
        self.prediction.set(None);
        self.rerun();
    }

    /// Starts the job of the session's config, if its run is not there yet; a job under
    /// way for an earlier config is dropped.
    fn rerun(self) {
        let session = self.state.session;
        let job = session.with_untracked(|s: &LabSession<RetryPoliciesLab>| {
            s.is_pending().then(|| {
                (
                    s.config().clone(),
                    RetryPoliciesJob::new(s.config(), s.run().as_ref().ok()),
                )
            })
        });
        let Some((lab, job)) = job else { return };
        let mut job = match job {
            Ok(job) => Some(job),
            Err(e) => {
                self.state
                    .refused
                    .set(Some(message::<RetryPoliciesLab>(&e)));
                return;
            }
        };
        let progress = self.progress;
        progress.set(job.as_ref().map(RetryPoliciesJob::progress));
        let mut finished: Option<RetryPoliciesRun> = None;
        let mut so_far: Option<RetryPoliciesRun> = None;
        self.runs.start(Duration::ZERO, move || {
            // Shown and installed in tasks of their own: the redraw is a task's work.
            if let Some(run) = so_far.take() {
                session.try_update(|s| s.install_partial(&lab, run));
                return Step::MoreInNextTask;
            }
            if let Some(run) = finished.take() {
                session.try_update(|s| s.install_run(&lab, run));
                progress.try_set(None);
                return Step::Done;
            }
            let Some(under_way) = job.as_mut() else {
                return Step::Done;
            };
            match under_way.advance(EVENTS_PER_STEP) {
                Ok(false) => {
                    let now = under_way.progress();
                    if progress.try_get_untracked().flatten().map(|p| p.0) != Some(now.0) {
                        progress.try_set(Some(now));
                    }
                    // A policy is in: drawn at once, the others as they come.
                    so_far = under_way.snapshot();
                    if so_far.is_some() {
                        Step::MoreInNextTask
                    } else {
                        Step::More
                    }
                }
                Ok(true) => {
                    finished = job.take().and_then(RetryPoliciesJob::finish);
                    Step::MoreInNextTask
                }
                Err(_) => {
                    progress.try_set(None);
                    Step::Done
                }
            }
        });
    }
}

/// One policy: its toggle, what it is, and its settings.
#[component]
fn PolicyEntry(
    policy: RetryPolicyKind,
    toggle: Option<ControlBinding>,
    settings: Vec<ControlBinding>,
) -> impl IntoView {
    let (tone, stroke) = style(policy);
    let has_settings = !settings.is_empty();
    view! {
        <li class="policy-entry" data-testid=format!("policy-{}", policy.name())>
            <span class=format!("key {}{}", tone.class(), stroke.class()) aria-hidden="true"></span>
            {toggle.map(|binding| view! { <LabControl binding=binding /> })}
            {has_settings.then(|| view! {
                <details>
                    <summary>"Settings of " {policy_label(policy)}</summary>
                    {settings.into_iter().map(|binding| view! { <LabControl binding=binding /> }).collect_view()}
                </details>
            })}
        </li>
    }
}

/// The metastability map on a canvas, drawn in an effect like [`Figure`]'s charts.
#[component]
fn MapFigure(spec: Signal<MapSpec>, summary: Signal<String>) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let width = RwSignal::new(0);
    let resize = window_event_listener(leptos::ev::resize, move |_| width.update(|w| *w += 1));
    on_cleanup(move || resize.remove());
    let dark = chart::dark_mode();
    Effect::new(move |_| {
        width.track();
        if let Some(canvas) = canvas.get() {
            let css_width = canvas.client_width();
            spec.with(|spec| map_chart::draw(&canvas, spec, dark, css_width));
        }
    });
    view! {
        <figure class="chart" data-testid="policies-map">
            <canvas node_ref=canvas aria-hidden="true" data-testid="policies-map-canvas"></canvas>
            <ul class="legend" aria-hidden="true">
                <li><span class="key block map-recovered"></span>"recovered within 60 s"</li>
                <li><span class="key block map-down"></span>"still down (crossed)"</li>
                <li><span class="key ring"></span>"your load and slowdown"</li>
            </ul>
            <figcaption>
                <strong>"The metastability map of your policy."</strong>" "
                <span data-testid="policies-map-summary">{summary}</span>
            </figcaption>
        </figure>
    }
}

#[component]
pub fn RetryPoliciesPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = deferred_lab_state::<RetryPoliciesLab>(info.number);
    let page = Page {
        state,
        progress: RwSignal::new(None),
        prediction: RwSignal::new(None),
        runs: Stepped::new(),
    };
    let session = state.session;
    let mut controls = bind_all(state);
    for c in controls.iter_mut() {
        let name = c.name;
        c.change = Callback::new(move |value| page.set(name, value));
    }
    page.rerun();

    // The frame's panel: the learner's own system and the seed; each policy's toggle and
    // settings go with the policy.
    let (frame_controls, policy_controls): (Vec<_>, Vec<_>) =
        controls.into_iter().partition(|c| !c.name.contains('.'));
    let entries = RetryPolicyKind::ALL
        .into_iter()
        .map(|policy| {
            let toggle_name = format!("show.{}", settings_prefix(policy));
            let prefix = format!("{}.", settings_prefix(policy));
            let toggle = policy_controls
                .iter()
                .find(|c| c.name == toggle_name)
                .copied();
            let settings: Vec<ControlBinding> = policy_controls
                .iter()
                .filter(|c| c.name.starts_with(&prefix))
                .copied()
                .collect();
            view! { <PolicyEntry policy=policy toggle=toggle settings=settings /> }
        })
        .collect_view();

    let with_run = move |f: &dyn Fn(&RetryPoliciesRun, &RetryPoliciesLab) -> String| {
        session.with(|s| {
            s.run()
                .as_ref()
                .map(|r| f(r, s.config()))
                .unwrap_or_default()
        })
    };
    let amplification = Signal::from(Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .as_ref()
                .map_or_else(|_| ChartSpec::empty(), amplification_chart)
        })
    }));
    let success = Signal::from(Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .as_ref()
                .map_or_else(|_| ChartSpec::empty(), success_chart)
        })
    }));
    let map = Signal::from(Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .as_ref()
                .map(|r| map_spec(r, s.config()))
                .unwrap_or_default()
        })
    }));
    let amplification_text = Signal::derive(move || with_run(&|r, _| amplification_summary(r)));
    let success_text = Signal::derive(move || with_run(&|r, _| success_summary(r)));
    let map_text = Signal::derive(move || with_run(&map_summary));
    let verdict = move || with_run(&your_verdict);
    let busy = move || {
        page.progress.get().map_or(String::new(), |(done, all)| {
            format!("Running the experiments: {done} of {all} runs made…")
        })
    };
    let predicted = move || {
        page.prediction.get().map_or(String::new(), |pick| {
            session.with(|s| {
                s.run()
                    .as_ref()
                    .map(|r| prediction_verdict(r, s.config(), pick))
                    .unwrap_or_default()
            })
        })
    };
    let rows = move || {
        session.with(|s| {
            s.run()
                .as_ref()
                .map(policy_rows)
                .unwrap_or_default()
                .into_iter()
                .map(|row| {
                    view! {
                        <tr>
                            <th scope="row">{policy_label(row.policy)}</th>
                            <td>{row.at_10}</td>
                            <td>{row.at_100}</td>
                            <td>{row.refuses_from}</td>
                            <td>{row.still_down}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <LabFrame import=NoImport info=info text=&super::RETRY_POLICIES_TEXT location=location tools=tools(info.number, state)
            controls=frame_controls refused=state.refused
            reset=Callback::new(move |_| page.reset()) problems=problems>
            <section class="panel predict-panel" aria-labelledby="policies-predict-heading" data-testid="policies-predict">
                <h2 id="policies-predict-heading">"Predict first"</h2>
                <fieldset class="predict-choices">
                    <legend>"When every call fails, which of these still sends several attempts per request?"</legend>
                    {PREDICT_OPTIONS.iter().map(|(policy, words)| {
                        let policy = *policy;
                        view! {
                            <label>
                                <input type="radio" name="policies-predict" data-testid=format!("policies-pick-{}", policy.name())
                                    prop:checked=move || page.prediction.get() == Some(policy)
                                    on:change=move |_| page.prediction.set(Some(policy)) />
                                " " {*words}
                            </label>
                        }
                    }).collect_view()}
                </fieldset>
                <p data-testid="policies-verdict" aria-live="polite">{predicted}</p>
            </section>
            <p class="busy" data-testid="policies-busy" aria-live="polite">{busy}</p>
            <p class="verdict" data-testid="policies-yours" aria-live="polite">{verdict}</p>
            <Figure spec=amplification summary=amplification_text testid="policies-amplification"
                title="Attempts per request, as the server fails more." />
            <Figure spec=success summary=success_text testid="policies-success" quiet=true
                title="Requests that eventually succeed." />
            <MapFigure spec=map summary=map_text />
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="policies-table-caption">
                <table class="policies-table" data-testid="policies-table">
                    <caption id="policies-table-caption">"Each policy shown, in figures: attempts per request at 10 % and 100 % failures, the failure rate it starts refusing retries at (adaptive throttling: dropping requests), and the cells of its map still down."</caption>
                    <thead>
                        <tr>
                            <th scope="col">"policy"</th>
                            <th scope="col">"at 10 %"</th>
                            <th scope="col">"at 100 %"</th>
                            <th scope="col">"refuses from"</th>
                            <th scope="col">"still down"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <section class="panel policies-panel" aria-labelledby="policies-heading">
                <h2 id="policies-heading">"The policies"</h2>
                <p>"Switch each policy on or off, and change its settings: a change reruns only the policies it touches."</p>
                <ul class="policy-list">{entries}</ul>
            </section>
        </LabFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::scenario::retry_policies_lab;

    fn run_of(
        shown: [bool; 8],
        your_policy: RetryPolicyKind,
    ) -> (RetryPoliciesLab, RetryPoliciesRun) {
        let lab = RetryPoliciesLab {
            shown,
            your_policy,
            ..RetryPoliciesLab::default()
        };
        let run = retry_policies_lab::run(&lab, None).unwrap();
        (lab, run)
    }

    /// The spec: 3 retries send 1 + f + f^2 + f^3 attempts, 4.0 when every call fails,
    /// and gRPC's throttling stops near 1.0; the page says so and rings gRPC's onset.
    #[test]
    fn the_first_chart_says_what_each_policy_sends_when_every_call_fails() {
        let (_, run) = run_of(
            [false, true, false, false, false, true, false, false],
            RetryPolicyKind::Grpc,
        );
        let summary = amplification_summary(&run);
        assert!(
            summary.contains("Resilience4j Retry 4.0, gRPC retry throttling 1.0"),
            "{summary}"
        );
        let spec = amplification_chart(&run);
        let grpc = &spec.series[1];
        let (x, _) = grpc.mark.expect("gRPC refuses retries");
        // 0.1 x (1 - f) < f: about 9 %.
        assert!(x <= 10.0, "{x}");
        assert_eq!(spec.series[0].mark, None, "Resilience4j never refuses");
        let lab = RetryPoliciesLab::default();
        assert_eq!(
            prediction_verdict(&run, &lab, RetryPolicyKind::Grpc)
                .split(':')
                .next(),
            Some("No")
        );
        assert!(prediction_verdict(&run, &lab, RetryPolicyKind::Resilience4j).starts_with("Yes"));
        // Shown, but not in the run yet (a run still being made).
        assert_eq!(
            prediction_verdict(&run, &lab, RetryPolicyKind::AwsStandard),
            "AWS SDK standard mode is still being run."
        );
    }

    /// The map of gRPC recovers everywhere (the spec: the budgets shrink the region that
    /// never recovers); the learner's 70 % and 10 s fall between the rows and columns.
    #[test]
    fn the_map_marks_the_learners_own_system() {
        let (lab, run) = run_of(
            [false, false, false, false, false, true, false, false],
            RetryPolicyKind::Grpc,
        );
        let spec = map_spec(&run, &lab);
        assert_eq!(spec.rows.len(), 9);
        assert_eq!(spec.columns, ["1 s", "2 s", "5 s", "10 s", "20 s"]);
        assert_eq!(spec.mark, Some((3.0, 5.0)));
        assert!(your_verdict(&run, &lab).starts_with(
            "Your system, gRPC retry throttling at 70 % of capacity through a 10 s slowdown: recovered."
        ));
        let hidden = RetryPoliciesLab {
            your_policy: RetryPolicyKind::None,
            ..lab
        };
        assert!(map_summary(&run, &hidden).contains("is not shown"));
        // A share of requests: a backlog served in the judged window must not take it
        // over 100 % (gRPC at 70 % through 10 s once read 101 %).
        assert!(run.yours.cell.goodput <= 1.0);
        assert!(run
            .results
            .iter()
            .flat_map(|r| &r.row.cells)
            .all(|c| (0.0..=1.0).contains(&c.goodput)));
    }

    /// Resilience4j has no shared brake: with maxAttempts 1 it sends one attempt, and the
    /// verdict says why, not that a brake stopped it.
    #[test]
    fn the_prediction_names_a_per_request_limit_as_what_it_is() {
        let mut lab = RetryPoliciesLab {
            shown: [false, true, false, false, false, false, false, false],
            ..RetryPoliciesLab::default()
        };
        lab.settings.resilience4j.max_attempts = 1;
        let run = retry_policies_lab::run(&lab, None).unwrap();
        let verdict = prediction_verdict(&run, &lab, RetryPolicyKind::Resilience4j);
        assert!(verdict.starts_with("No, at these settings"), "{verdict}");
        assert!(!verdict.contains("brake stops"), "{verdict}");
        assert!(verdict.contains("Resilience4j Retry 1.0"), "{verdict}");
    }
}
