//! Demo 14: the BoxOffice playground. A shipped scenario and one of its protections, run by
//! the engine in slices (a flash sale is about 3 million events); the system at the second
//! shown (each client population, the door, the waiting room, every replica's threads as
//! cells with its probes and breakers, each dependency), a clock to play and scrub; each
//! class of users second by second; the scenario's question answered by the run; and every
//! protection of the scenario on the same seed, side by side.
//!
//! The engine computes every number (`resilience_sim::model::boxoffice`); this module turns
//! a run into chart specs, sentences and HTML text. The page's own state (the second shown,
//! the clock, the prediction, the comparison) is one struct, [`BoxOfficeView`].

use std::time::Duration;

use leptos::prelude::*;
use resilience_sim::model::boxoffice::edit::Edit;
use resilience_sim::model::boxoffice::report::Second;
use resilience_sim::model::boxoffice::topology::Topology;
use resilience_sim::model::boxoffice::{scenarios, BoxOfficeRun, Sim};
use resilience_sim::scenario::boxoffice_lab::{BoxOfficeLab, ScenarioInfo, MAX_IMPORT_BYTES};
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::{ControlValue, LabSession};
use wasm_bindgen::JsCast;

use super::boxoffice_diagram::{self as diagram, NodeKind, SystemDiagram};
use super::boxoffice_edit::{entry_id, show_entry, SystemEditor};
use super::lab_frame::{deferred_lab_state, tools_with_instances, LabFrame};
use crate::components::{bind_all, message, Figure, LabState};
use crate::format::trim;
use crate::nav::Location;
use crate::tasks::{in_next_task, Step, Stepped};
use crate::url_state::encode;
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::html::{aria_bool, click, live, live_attr};
use crate::views::page_tools::NoImport;

// ---- figures from a run (pure: tested natively) ---------------------------------------------

/// The seconds `from..to` of a run.
fn window(run: &BoxOfficeRun, from: u32, to: u32) -> impl Iterator<Item = &Second> {
    run.seconds
        .iter()
        .filter(move |s| s.t_s >= from && s.t_s < to)
}

/// Users of the named client populations answered in time over users offered in
/// `from..to`, in percent; `None` when none were offered.
pub fn in_time_percent(run: &BoxOfficeRun, clients: &[&str], from: u32, to: u32) -> Option<f64> {
    let (mut ok, mut offered) = (0u64, 0u64);
    for s in window(run, from, to) {
        for c in clients {
            if let Some(row) = s.clients.get(*c) {
                ok += row.in_time;
                offered += row.offered;
            }
        }
    }
    (offered > 0).then(|| (100.0 * ok as f64 / offered as f64).min(100.0))
}

fn mean_goodput(run: &BoxOfficeRun, from: u32, to: u32) -> f64 {
    let seconds: Vec<&Second> = window(run, from, to).collect();
    if seconds.is_empty() {
        return 0.0;
    }
    seconds.iter().map(|s| s.goodput as f64).sum::<f64>() / seconds.len() as f64
}

/// A share rounded down to one decimal, so a figure never shows a threshold the answer
/// says was not reached (94.98 reads 94.9, not 95).
fn percent(p: Option<f64>) -> String {
    p.map_or("no users".to_string(), |p| {
        format!("{} %", trim((p * 10.0).floor() / 10.0))
    })
}

/// Whether the scenario has an incident at all (the rate limiter's has none: its bot is
/// there from the start).
fn has_incident(run: &BoxOfficeRun) -> bool {
    run.summary.trigger_s.is_some()
}

/// When the trouble starts and ends, from the run (the scenario's trigger); the whole run
/// when it has none.
fn trigger(run: &BoxOfficeRun) -> (u32, u32) {
    let end = run.seconds.len() as u32;
    let from = run.summary.trigger_s.unwrap_or(0).min(end);
    (from, run.summary.trigger_end_s.unwrap_or(end).min(end))
}

/// A question before the run, its three answers, and the answer the run gives.
pub struct Question {
    pub text: &'static str,
    pub options: [&'static str; 3],
}

pub fn question(info: &ScenarioInfo) -> Question {
    match info.name {
        "cascading-failure" => Question {
            text: "At 20 s payment starts answering in 4 s, without errors. What happens to seat holds and catalog pages, which never call payment?",
            options: [
                "They stay in time (95 % or more)",
                "They slow down, but most are in time",
                "They fail too (under half in time)",
            ],
        },
        "retry-storm" => Question {
            text: "Payment is 3x slower from 20 s to 30 s. When are purchases served in time again?",
            options: [
                "Within about 10 s of the end",
                "Later, but before the run ends",
                "Never, in this run",
            ],
        },
        "rate-limiter" => Question {
            text: "500 people refresh the seat map while one bot key sends 300 requests a second. What share of people's requests is answered in time?",
            options: [
                "Nearly all (99 % or more)",
                "Between half and nearly all",
                "Under half",
            ],
        },
        "payment-system" => Question {
            text: "Payment is slow from 40 s, then down from 100 s to 180 s. What happens to seat holds and catalog pages meanwhile?",
            options: [
                "They stay in time (95 % or more)",
                "They suffer, but most are in time",
                "They go down too (under half in time at the worst)",
            ],
        },
        _ => Question {
            text: "At 30 s demand jumps to ten times the usual on every class. What share of purchases is answered in time during the sale?",
            options: [
                "95 % or more",
                "Some of them",
                "Almost none (under 5 %)",
            ],
        },
    }
}

/// The option the run makes right (0, 1 or 2), and the evidence in a sentence.
pub fn answer(lab: &BoxOfficeLab, run: &BoxOfficeRun) -> (usize, String) {
    let (from, to) = trigger(run);
    let end = run.seconds.len() as u32;
    let three = |p: f64, high: f64, low: f64| {
        if p >= high {
            0
        } else if p >= low {
            1
        } else {
            2
        }
    };
    match lab.scenario {
        "cascading-failure" => {
            let p = in_time_percent(run, &["holds", "catalog"], from + 5, end).unwrap_or(0.0);
            let busy = run.summary.max_threads_busy;
            let on_payment = run.summary.max_threads_on_payment;
            (
                three(p, 95.0, 50.0),
                format!(
                    "From {} s on, {} of holds and catalog pages were answered in time. At most {busy} of the replica's threads were busy in a second, and at most {on_payment} waiting on payment.",
                    from + 5,
                    percent(Some(p))
                ),
            )
        }
        "retry-storm" => {
            let recovered = (to..end.saturating_sub(5)).find(|&t| {
                (t..end.saturating_sub(5))
                    .step_by(5)
                    .all(|w| in_time_percent(run, &["purchases"], w, w + 5).unwrap_or(0.0) >= 90.0)
            });
            let offered: u64 = window(run, to + 5, end).map(|s| s.payment.offered).sum();
            let per_second = offered as f64 / f64::from(end.saturating_sub(to + 5).max(1));
            match recovered {
                Some(t) if t <= to + 10 => (
                    0,
                    format!(
                        "Purchases were 90 % in time again from {t} s, {} s after the slowdown ended; payment then got {} calls a second.",
                        t - to,
                        trim(per_second.round())
                    ),
                ),
                Some(t) => (
                    1,
                    format!("Purchases were 90 % in time again only from {t} s."),
                ),
                None => (
                    2,
                    format!(
                        "Purchases never recovered: after the slowdown ended payment still got {} calls a second for 100 users a second, and its queue held {} calls at the end.",
                        trim(per_second.round()),
                        run.seconds.last().map_or(0, |s| s.payment.queue)
                    ),
                ),
            }
        }
        "rate-limiter" => {
            let p = in_time_percent(run, &["people"], 10, end).unwrap_or(0.0);
            let bot = run
                .summary
                .classes
                .important
                .by_key
                .get("bot")
                .map_or(0, |b| b.admitted);
            let openings: u32 = run.summary.breaker_openings.values().sum();
            let mut evidence = format!(
                "From 10 s on, {} of people's requests were answered in time; the door let {bot} of the bot's requests in.",
                percent(Some(p))
            );
            if lab.variant.starts_with("client-limiter") {
                evidence.push_str(&format!(
                    " Our breaker on payment opened {openings} time{} on a provider that never failed.",
                    if openings == 1 { "" } else { "s" }
                ));
            }
            (three(p, 99.0, 50.0), evidence)
        }
        "payment-system" => {
            let worst = (from..to)
                .filter_map(|t| in_time_percent(run, &["holds", "catalog"], t, t + 1))
                .fold(100.0_f64, f64::min);
            let overall = in_time_percent(run, &["holds", "catalog"], from, to).unwrap_or(0.0);
            let restarts: u32 = run.summary.restarts.iter().sum();
            let pick = if worst < 50.0 {
                2
            } else if overall >= 95.0 {
                0
            } else {
                1
            };
            (
                pick,
                format!(
                    "Holds and catalog: {} in time from {from} s to {to} s, {} in the worst second; the replicas restarted {restarts} time{} in all.",
                    percent(Some(overall)),
                    percent(Some(worst)),
                    if restarts == 1 { "" } else { "s" }
                ),
            )
        }
        _ => {
            let p = in_time_percent(run, &["purchases"], from + 30, to).unwrap_or(0.0);
            let goodput = mean_goodput(run, from + 30, to);
            (
                three(p, 95.0, 5.0),
                format!(
                    "From {} s to {to} s, {} of purchases were answered in time; all classes together got {} answers in time a second, for a capacity of about {} at the start.",
                    from + 30,
                    percent(Some(p)),
                    trim(goodput.round()),
                    trim(run.summary.capacity_rps.round())
                ),
            )
        }
    }
}

const CLASS_NAMES: [(&str, Tone); 3] = [
    ("critical", Tone::Blue),
    ("important", Tone::Orange),
    ("sheddable", Tone::Purple),
];

/// Each class's share of users answered in time, second by second.
pub fn classes_chart(run: &BoxOfficeRun) -> ChartSpec {
    let (from, to) = trigger(run);
    let series = CLASS_NAMES
        .iter()
        .enumerate()
        .filter(|(i, _)| run.summary.classes.get(*i).offered > 0)
        .map(|(i, (name, tone))| Series {
            label: name.to_string(),
            tone: *tone,
            stroke: if i == 0 { Stroke::Wide } else { Stroke::Solid },
            mark: None,
            points: run
                .seconds
                .iter()
                .filter_map(|s| {
                    let row = s.classes.get(i);
                    (row.offered > 0).then(|| {
                        let p = 100.0 * row.in_time as f64 / row.offered as f64;
                        (f64::from(s.t_s), p.min(100.0))
                    })
                })
                .collect(),
        })
        .collect();
    ChartSpec {
        x_label: "time (s)",
        y_label: "answered in time (%)",
        x_min: 0.0,
        x_max: run.seconds.len() as f64,
        y_max: 105.0,
        series,
        shade: (has_incident(run) && from < to).then_some((
            f64::from(from),
            f64::from(to),
            "the incident",
        )),
        reference: None,
    }
}

/// What all users got each second: in time, late, failed, fallback, 429, 503.
pub fn outcomes_chart(run: &BoxOfficeRun) -> ChartSpec {
    let (from, to) = trigger(run);
    type Pick = fn(&Second) -> u64;
    let lines: [(&str, Tone, Stroke, Pick); 6] = [
        ("in time", Tone::Green, Stroke::Wide, |s| s.goodput),
        ("late", Tone::Orange, Stroke::Solid, |s| {
            (0..3).map(|i| s.classes.get(i).late).sum()
        }),
        ("failed", Tone::Red, Stroke::Solid, |s| {
            (0..3).map(|i| s.classes.get(i).failed).sum()
        }),
        ("fallback", Tone::Blue, Stroke::Dashed, |s| {
            (0..3).map(|i| s.classes.get(i).fallback).sum()
        }),
        ("429", Tone::Purple, Stroke::Dashed, |s| {
            (0..3).map(|i| s.classes.get(i).rate_limited).sum()
        }),
        ("503", Tone::Grey, Stroke::Dashed, |s| {
            (0..3).map(|i| s.classes.get(i).shed).sum()
        }),
    ];
    let mut top = 1.0_f64;
    let series = lines
        .iter()
        .filter(|(_, _, _, pick)| run.seconds.iter().any(|s| pick(s) > 0))
        .map(|(label, tone, stroke, pick)| {
            let points: Vec<(f64, f64)> = run
                .seconds
                .iter()
                .map(|s| (f64::from(s.t_s), pick(s) as f64))
                .collect();
            top = points.iter().map(|p| p.1).fold(top, f64::max);
            Series {
                label: label.to_string(),
                tone: *tone,
                stroke: *stroke,
                mark: None,
                points,
            }
        })
        .collect();
    ChartSpec {
        x_label: "time (s)",
        y_label: "users a second",
        x_min: 0.0,
        x_max: run.seconds.len() as f64,
        y_max: top * 1.1,
        series,
        shade: (has_incident(run) && from < to).then_some((
            f64::from(from),
            f64::from(to),
            "the incident",
        )),
        reference: None,
    }
}

/// The classes chart in words.
pub fn classes_summary(run: &BoxOfficeRun) -> String {
    let (from, to) = trigger(run);
    let end = run.seconds.len() as u32;
    let incident = has_incident(run) && from < to;
    let mut text = if incident {
        format!("The incident runs from {from} s to {to} s.")
    } else {
        format!("The run lasts {end} s, with no incident in it.")
    };
    for (i, (name, _)) in CLASS_NAMES.iter().enumerate() {
        let (mut ok, mut offered) = (0u64, 0u64);
        let (mut ok_during, mut offered_during) = (0u64, 0u64);
        for s in &run.seconds {
            let row = s.classes.get(i);
            if s.t_s < from {
                ok += row.in_time;
                offered += row.offered;
            } else if s.t_s < to {
                ok_during += row.in_time;
                offered_during += row.offered;
            }
        }
        if offered + offered_during == 0 {
            continue;
        }
        let p = |ok: u64, n: u64| (n > 0).then(|| 100.0 * ok as f64 / n as f64);
        if incident {
            text.push_str(&format!(
                " {name}: {} in time before, {} during.",
                percent(p(ok, offered)),
                percent(p(ok_during, offered_during))
            ));
        } else {
            text.push_str(&format!(
                " {name}: {} in time.",
                percent(p(ok + ok_during, offered + offered_during))
            ));
        }
    }
    text
}

/// The outcomes chart in words.
pub fn outcomes_summary(run: &BoxOfficeRun) -> String {
    let c = &run.summary.classes;
    let total = |f: fn(&resilience_sim::model::boxoffice::report::ClassRow) -> u64| {
        f(&c.critical) + f(&c.important) + f(&c.sheddable)
    };
    let mut text = format!(
        "Over the run: {} users, {} answered in time, {} late (they gave up), {} failed, {} fell back, {} refused with 429 and {} with 503.",
        total(|r| r.offered),
        total(|r| r.in_time),
        total(|r| r.late),
        total(|r| r.failed),
        total(|r| r.fallback),
        total(|r| r.rate_limited),
        total(|r| r.shed)
    );
    // Users who arrived near the end have neither an answer nor a passed deadline yet: said,
    // so the figures add up to the users.
    let unfinished: u64 = run.summary.unfinished.iter().sum();
    if unfinished > 0 {
        text.push_str(&format!(
            " {unfinished} were still waiting when the run ended."
        ));
    }
    text
}

// ---- the system at one second ---------------------------------------------------------------

// ---- comparing every variant ------------------------------------------------------------------

/// One variant's run in the comparison table.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    pub variant: &'static str,
    pub label: &'static str,
    /// Per class, in time over offered from the incident to the end (percent): the
    /// aftermath is where protections differ most (a retry storm outlives its cause).
    pub in_time: [Option<f64>; 3],
    pub goodput: f64,
    pub max_threads_on_payment: u32,
    pub breaker_openings: u32,
    pub restarts: u32,
    pub wasted: u64,
}

pub fn compare_row(variant: &'static str, label: &'static str, run: &BoxOfficeRun) -> CompareRow {
    let (from, _) = trigger(run);
    let to = run.seconds.len() as u32;
    let mut in_time = [None; 3];
    for (i, slot) in in_time.iter_mut().enumerate() {
        let (ok, offered) = window(run, from, to).fold((0, 0), |(ok, n), s| {
            let row = s.classes.get(i);
            (ok + row.in_time, n + row.offered)
        });
        *slot = (offered > 0).then(|| (100.0 * ok as f64 / offered as f64).min(100.0));
    }
    CompareRow {
        variant,
        label,
        in_time,
        goodput: mean_goodput(run, from, to),
        max_threads_on_payment: run.summary.max_threads_on_payment,
        breaker_openings: run.summary.breaker_openings.values().sum(),
        restarts: run.summary.restarts.iter().sum(),
        wasted: run.summary.payment.wasted,
    }
}

// ---- the page ------------------------------------------------------------------------------

/// The page's own state: what is shown of the run, and what the learner did with it.
#[derive(Clone, Copy)]
pub struct BoxOfficeView {
    /// The second the system shows.
    second: RwSignal<u32>,
    playing: RwSignal<bool>,
    /// Seconds of the run per second of wall time.
    speed: RwSignal<u32>,
    /// The answer picked to the scenario's question, and whether it was checked.
    pick: RwSignal<Option<usize>>,
    checked: RwSignal<bool>,
    /// Seconds made of the run under way, of all.
    progress: RwSignal<Option<(u32, u32)>>,
    compare: RwSignal<Vec<CompareRow>>,
    comparing: RwSignal<bool>,
    /// Why the last edit or import was refused.
    edit_note: RwSignal<Option<String>>,
    /// What the last drag in the diagram did (or why it did nothing).
    drag_note: RwSignal<Option<String>>,
    /// The id of the field that had the focus when an edit redrew the list.
    refocus: StoredValue<Option<String>>,
    /// The system the session's config describes, read once per change of it: the page
    /// draws it, opens a scenario a few seconds into its incident and runs it.
    system: Memo<Option<Topology>>,
    /// The second to show once the run under way is in: a new scenario opens a few seconds
    /// into its incident, and until then the page shows the last run where it was.
    opens_at: StoredValue<Option<u32>>,
}

impl BoxOfficeView {
    fn new(session: RwSignal<LabSession<BoxOfficeLab>>) -> Self {
        Self {
            system: Memo::new(move |_| session.with(|s| s.config().topology().ok())),
            opens_at: StoredValue::new(None),
            second: RwSignal::new(0),
            playing: RwSignal::new(false),
            speed: RwSignal::new(5),
            pick: RwSignal::new(None),
            checked: RwSignal::new(false),
            progress: RwSignal::new(None),
            compare: RwSignal::new(Vec::new()),
            comparing: RwSignal::new(false),
            edit_note: RwSignal::new(None),
            drag_note: RwSignal::new(None),
            refocus: StoredValue::new(None),
        }
    }

    /// A new scenario or protection: the clock stops, the question and the comparison
    /// start again.
    fn restart(self) {
        self.playing.set(false);
        self.pick.set(None);
        self.checked.set(false);
        self.compare.set(Vec::new());
        self.comparing.set(false);
        self.drag_note.set(None);
    }
}

/// Makes the session's pending run in slices (one virtual second a step, a few ms of
/// work in the browser even during a flash sale), then installs it.
fn run_in_slices(state: LabState<BoxOfficeLab>, runs: Stepped, view: BoxOfficeView) {
    let session = state.session;
    let pending = session.with_untracked(|s| s.is_pending().then(|| s.config().clone()));
    let Some(lab) = pending else {
        return;
    };
    let mut sim = view.system.get_untracked().and_then(|t| lab.sim_of(t).ok());
    let mut finished = None;
    runs.start(Duration::ZERO, move || {
        if let Some(run) = finished.take() {
            session.try_update(|s| s.install_run(&lab, run));
            if let Some(second) = view.opens_at.try_update_value(Option::take).flatten() {
                view.second.set(second);
            }
            view.progress.set(None);
            return Step::Done;
        }
        let Some(under_way) = sim.as_mut() else {
            view.progress.set(None);
            return Step::Done;
        };
        under_way.advance_to(under_way.now() + 1_000);
        let total = (under_way.end_ms() / 1_000) as u32;
        view.progress
            .set(Some((under_way.seconds().len() as u32, total)));
        if !under_way.is_finished() {
            return Step::More;
        }
        finished = sim.take().map(Sim::finish);
        Step::MoreInNextTask
    });
}

fn set_deferred(
    state: LabState<BoxOfficeLab>,
    runs: Stepped,
    view: BoxOfficeView,
    name: &'static str,
    value: ControlValue,
) {
    let mut result = Ok(());
    let before = state.session.with_untracked(|s| s.config().clone());
    state
        .session
        .update(|s| result = s.set_deferred(name, value));
    state
        .refused
        .set(result.err().map(|e| message::<BoxOfficeLab>(&e)));
    let after = state.session.with_untracked(|s| s.config().clone());
    if after != before {
        view.restart();
        if after.scenario != before.scenario {
            view.opens_at.set_value(Some(opening_second(view)));
        }
    }
    run_in_slices(state, runs, view);
}

/// The second a scenario opens on: a few seconds into its incident.
fn opening_second(view: BoxOfficeView) -> u32 {
    view.system
        .with_untracked(|t| t.as_ref().and_then(|t| t.trigger_s))
        .map_or(0, |t| t + 3)
}

/// Runs every variant of the scenario on the session's seed, in slices, filling the table.
fn compare_all(state: LabState<BoxOfficeLab>, runs: Stepped, view: BoxOfficeView) {
    let lab = state.session.with_untracked(|s| s.config().clone());
    let info = lab.info();
    view.compare.set(Vec::new());
    view.comparing.set(true);
    let mut next = 0;
    let mut sim: Option<(usize, Sim)> = None;
    runs.start(Duration::ZERO, move || {
        if sim.is_none() {
            let Some(&(variant, _)) = info.variants.get(next) else {
                view.comparing.set(false);
                return Step::Done;
            };
            // The scenario's own system: edits are a patch on one variant.
            let one = BoxOfficeLab {
                variant,
                edits: None,
                ..lab.clone()
            };
            sim = one.sim().ok().map(|s| (next, s));
            next += 1;
            if sim.is_none() {
                return Step::More;
            }
        }
        let Some((_, under_way)) = sim.as_mut() else {
            return Step::More;
        };
        under_way.advance_to(under_way.now() + 1_000);
        if under_way.is_finished() {
            if let Some((i, done)) = sim.take() {
                let run = done.finish();
                let (variant, label) = info.variants[i];
                view.compare
                    .update(|rows| rows.push(compare_row(variant, label, &run)));
            }
            return Step::MoreInNextTask;
        }
        Step::More
    });
}

/// The scenario's file as shipped (every variant in it), or the learner's system as a
/// file of its own.
fn file_href(lab: &BoxOfficeLab) -> String {
    let text = if lab.is_edited() {
        lab.file_text().unwrap_or_default()
    } else {
        scenarios::file(lab.scenario)
            .unwrap_or_default()
            .to_string()
    };
    format!("data:application/json;charset=utf-8,{}", encode(&text))
}

fn file_name(lab: &BoxOfficeLab) -> String {
    if lab.is_edited() {
        format!("{}-mine.json", lab.scenario)
    } else {
        format!("{}.json", lab.scenario)
    }
}

/// The command that runs the same run.
fn cli_command(lab: &BoxOfficeLab) -> String {
    if lab.is_edited() {
        format!(
            "resilience-sim lab boxoffice --file {} --seed {}",
            file_name(lab),
            lab.seed
        )
    } else {
        format!(
            "resilience-sim lab boxoffice --file {} --variant {} --seed {}",
            file_name(lab),
            lab.variant,
            lab.seed
        )
    }
}

/// Puts `lab` (an edited or imported system) in the session and runs it in slices.
fn install(state: LabState<BoxOfficeLab>, runs: Stepped, view: BoxOfficeView, lab: BoxOfficeLab) {
    let mut result = Ok(());
    state.session.update(|s| result = s.replace_deferred(lab));
    match result {
        Ok(()) => {
            view.edit_note.set(None);
            view.restart();
            run_in_slices(state, runs, view);
        }
        Err(e) => view.edit_note.set(Some(message::<BoxOfficeLab>(&e))),
    }
}

/// Reads a scenario file the learner picked, at most the import's size.
fn import_file(
    file: web_sys::File,
    state: LabState<BoxOfficeLab>,
    runs: Stepped,
    view: BoxOfficeView,
) {
    if file.size() > MAX_IMPORT_BYTES as f64 {
        view.edit_note.set(Some(format!(
            "The file is {} KB; a scenario file is at most {} KB.",
            (file.size() / 1024.0).round(),
            MAX_IMPORT_BYTES / 1024
        )));
        return;
    }
    leptos::task::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|v| v.as_string());
        let Some(text) = text else {
            view.edit_note
                .set(Some("The file could not be read as text.".to_string()));
            return;
        };
        let next = state
            .session
            .with_untracked(|s| s.config().with_file(&text));
        match next {
            Ok(lab) => {
                install(state, runs, view, lab);
                if let Some(note) = BoxOfficeLab::file_note(&text) {
                    view.edit_note.set(Some(note));
                }
            }
            Err(e) => view.edit_note.set(Some(format!(
                "Not imported: {}",
                message::<BoxOfficeLab>(&e)
            ))),
        }
    });
}

#[component]
pub fn BoxOfficePage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = deferred_lab_state::<BoxOfficeLab>(info.number);
    let session = state.session;
    let view = BoxOfficeView::new(session);
    view.second.set(opening_second(view));
    let runs = Stepped::new();
    let comparisons = Stepped::new();
    let mut controls = bind_all(state);
    for c in &mut controls {
        let name = c.name;
        c.change = Callback::new(move |value| set_deferred(state, runs, view, name, value));
    }
    run_in_slices(state, runs, view);
    let reset = Callback::new(move |_| {
        session.set(LabSession::deferred(BoxOfficeLab::default()));
        state.refused.set(None);
        view.restart();
        view.opens_at.set_value(Some(opening_second(view)));
        run_in_slices(state, runs, view);
    });

    let lab = Memo::new(move |_| session.with(|s| s.config().clone()));
    // The system's diagram and list view are drawn in tasks of their own after a change:
    // a new scenario redraws its text and controls in one task, the diagram in the next
    // and the list in the one after (measured: scripts/interaction-timing.mjs).
    let topology = in_next_task(move || view.system.get());
    let listed = in_next_task(move || topology.get());
    let seconds = move || session.with(|s| s.run().as_ref().map_or(0, |r| r.seconds.len() as u32));
    let last = move || seconds().saturating_sub(1);
    let shown = move || view.second.get().min(last());

    // The clock: while playing, the second shown moves on `speed` times a wall second.
    let ticker = StoredValue::new(None::<IntervalHandle>);
    let stop = move || {
        if let Some(handle) = ticker.get_value() {
            handle.clear();
        }
        ticker.set_value(None);
    };
    Effect::new(move |_| {
        let playing = view.playing.get();
        let speed = view.speed.get().max(1);
        stop();
        if !playing {
            return;
        }
        let handle = set_interval_with_handle(
            move || {
                let end = last();
                if view.second.get_untracked() >= end {
                    view.playing.set(false);
                } else {
                    view.second.update(|s| *s += 1);
                }
            },
            Duration::from_millis(u64::from(1_000 / speed)),
        );
        ticker.set_value(handle.ok());
    });
    on_cleanup(stop);

    // Sized by the system alone (as many replicas as its run ever has), so the drawing
    // keeps its shape when the run comes in.
    let layout = Memo::new(move |_| {
        topology.with(|t| {
            t.as_ref()
                .map(|t| diagram::layout(t, t.most_replicas() as usize))
        })
    });
    // The dots the diagram needs room for (as many on each edge as it ever carries) in the
    // run that is in. While the next run is made, the last run's stay if the drawing keeps
    // its shape (an edit of the timeline, another protection), and go if not. Drawn in a
    // task of their own, as starting their animations takes a few ms.
    let dot_plan = Memo::new(move |before: Option<&Option<diagram::DotPlan>>| {
        layout.with(|l| {
            let l = l.as_ref()?;
            if session.with(|s| s.is_pending()) {
                return before.cloned().flatten().filter(|p| p.layout == *l);
            }
            session.with(|s| {
                s.run()
                    .as_ref()
                    .ok()
                    .map(|r| diagram::DotPlan::new(l, &r.seconds))
            })
        })
    });
    let dot_plan = in_next_task(move || dot_plan.get());
    let second = Memo::new(move |_| {
        let t = shown();
        session.with(|s| {
            s.run()
                .as_ref()
                .ok()
                .and_then(|r| r.seconds.get(t as usize).cloned())
        })
    });
    let second_text = live(move || {
        let total = seconds();
        second.with(|s| {
            s.as_ref().map_or(String::new(), |s| {
                format!(
                    "Second {} of {total}: {} users answered in time",
                    s.t_s, s.goodput
                )
            })
        })
    });
    // A box clicked: its entry in the list view.
    let pick = Callback::new(move |kind: NodeKind| {
        if let Some(id) = topology.with_untracked(|t| t.as_ref().map(|t| entry_id(t, &kind))) {
            show_entry(&id);
        }
    });
    let on_edit = Callback::new(move |edit: Edit| {
        let next = session.with_untracked(|s| s.config().with_edit(&edit));
        match next {
            Ok(lab) => {
                let focused = document().active_element().map(|e| e.id());
                view.refocus.set_value(focused.filter(|id| !id.is_empty()));
                install(state, runs, view, lab);
            }
            Err(e) => view.edit_note.set(Some(message::<BoxOfficeLab>(&e))),
        }
    });
    // A box dragged onto a dependency: the connection is an edit like the list's, and
    // what became of it is said under the diagram, where the learner is looking.
    let on_connect = Callback::new(move |asked: Result<Edit, String>| match asked {
        Ok(edit) => {
            let done = match &edit {
                Edit::Connect {
                    endpoint,
                    dependency,
                    ..
                } => format!("{endpoint} now calls {dependency}: the run is made again."),
                _ => String::new(),
            };
            on_edit.run(edit);
            // Refused by the engine after all: its reason, as the list view would say it.
            let said = view.edit_note.get_untracked().unwrap_or(done);
            view.drag_note.set(Some(said));
        }
        Err(why) => view.drag_note.set(Some(why)),
    });
    // The list is drawn again after an edit: the focus goes back to the field it was on.
    Effect::new(move |_| {
        listed.track();
        if let Some(id) = view.refocus.try_update_value(Option::take).flatten() {
            request_animation_frame(move || {
                if let Some(e) = document()
                    .get_element_by_id(&id)
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = e.focus();
                }
            });
        }
    });
    let on_file = move |ev: leptos::ev::Event| {
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            import_file(file, state, runs, view);
        }
    };
    let back_to_scenario = move |_| {
        let lab = session.with_untracked(|s| BoxOfficeLab {
            edits: None,
            ..s.config().clone()
        });
        install(state, runs, view, lab);
    };
    let edited = move || lab.with(BoxOfficeLab::is_edited);
    let edit_summary = move || {
        lab.with(|l| {
            if !l.is_edited() {
                "You are looking at the scenario's own system. Change anything below: the run is made again at once, and the link follows.".to_string()
            } else if l.edits_fit_in_link() {
                "Your own system: its changes are in the link (share it), and its file can be downloaded below.".to_string()
            } else {
                "Your own system: too many changes for a link, so the link opens the scenario's system. Download its file to keep or share it.".to_string()
            }
        })
    };
    // The charts are drawn in tasks of their own after a run is installed.
    let classes = in_next_task(move || {
        session.with(|s| {
            s.run()
                .as_ref()
                .map_or_else(|_| ChartSpec::empty(), classes_chart)
        })
    });
    let classes_text = Signal::derive(move || {
        session.with(|s| s.run().as_ref().map(classes_summary).unwrap_or_default())
    });
    let outcomes = in_next_task(move || {
        session.with(|s| {
            s.run()
                .as_ref()
                .map_or_else(|_| ChartSpec::empty(), outcomes_chart)
        })
    });
    let outcomes_text = Signal::derive(move || {
        session.with(|s| s.run().as_ref().map(outcomes_summary).unwrap_or_default())
    });
    let status = live(move || match view.progress.get() {
        Some((done, total)) => format!("Running the scenario: {done} of {total} s simulated…"),
        None => session.with(|s| match s.run() {
            Ok(run) => format!(
                "{} s simulated, {} events.",
                run.seconds.len(),
                run.summary.events
            ),
            Err(e) => message::<BoxOfficeLab>(e),
        }),
    });

    // The question, its answers, and the run's answer.
    let scenario_info = move || lab.with(|l| l.info());
    let lesson = live(move || scenario_info().lesson.to_string());
    let question_text = live(move || question(scenario_info()).text.to_string());
    let verdict = move || {
        if !view.checked.get() || view.progress.get().is_some() {
            return None;
        }
        let pick = view.pick.get()?;
        session.with(|s| {
            let run = s.run().as_ref().ok()?;
            let (right, evidence) = answer(s.config(), run);
            let (class, head, said) = if pick == right {
                ("verdict right", "Yes.", String::new())
            } else {
                (
                    "verdict wrong",
                    "Not this time.",
                    format!(
                        "The run says: “{}”. ",
                        question(s.config().info()).options[right]
                    ),
                )
            };
            Some(view! { <p class=class><b>{head}</b>" "{said}{evidence}</p> })
        })
    };
    let options = move || {
        let q = question(scenario_info());
        q.options
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let text = *text;
                view! {
                    <label class="box-option">
                        <input type="radio" name="box-predict" data-testid="box-predict-option"
                            prop:checked=move || view.pick.get() == Some(i)
                            on:change=move |_| { view.pick.set(Some(i)); view.checked.set(false); } />
                        {text}
                    </label>
                }
            })
            .collect_view()
    };

    // The protections of the scenario, as radio buttons next to the controls.
    let variants = move || {
        let info = scenario_info();
        info.variants
            .iter()
            .map(|&(name, label)| {
                view! {
                    <label class="box-variant">
                        <input type="radio" name="box-variant" data-testid="box-variant" value=name
                            prop:checked=move || lab.with(|l| l.variant == name)
                            on:change=move |_| set_deferred(state, runs, view, "variant", ControlValue::Choice(name)) />
                        {label}
                    </label>
                }
            })
            .collect_view()
    };

    let compare_rows = move || {
        view.compare
            .get()
            .into_iter()
            .map(|row| {
                let cells = row.in_time.map(percent);
                let current = lab.with(|l| l.variant == row.variant);
                view! {
                    <tr data-variant=row.variant class=if current { "current" } else { "" }>
                        <th scope="row">{row.label}</th>
                        <td>{cells[0].clone()}</td>
                        <td>{cells[1].clone()}</td>
                        <td>{cells[2].clone()}</td>
                        <td>{trim(row.goodput.round())}</td>
                        <td>{row.max_threads_on_payment}</td>
                        <td>{row.breaker_openings}</td>
                        <td>{row.restarts}</td>
                        <td>{row.wasted}</td>
                    </tr>
                }
            })
            .collect_view()
    };

    let scrub = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
            view.playing.set(false);
            view.second.set(v);
        }
    };
    let set_speed = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
            if [1, 5, 20].contains(&v) {
                view.speed.set(v);
            }
        }
    };
    let href = move || lab.with(file_href);
    let download_name = move || lab.with(file_name);

    view! {
        <LabFrame import=NoImport info=info text=&super::BOXOFFICE_TEXT location=location tools=tools_with_instances(info.number, state) controls=controls.clone() refused=state.refused
            reset=reset problems=problems
            side=Box::new(move || view! {
                <fieldset class="box-variants" data-testid="box-variants">
                    <legend>"Protection"</legend>
                    {variants}
                </fieldset>
            }.into_any())>
            <section class="panel box-question" aria-labelledby="box-question-heading">
                <h2 id="box-question-heading">"Predict"</h2>
                <p class="box-lesson">{lesson}</p>
                <p>{question_text}</p>
                <fieldset class="box-options">
                    <legend class="visually-hidden">"Your answer"</legend>
                    {options}
                </fieldset>
                <button type="button" data-testid="box-check"
                    disabled=move || view.pick.get().is_none() || view.progress.get().is_some()
                    on:click=click(move |_| view.checked.set(true))>
                    "Check against the run"
                </button>
                <div aria-live="polite" data-testid="box-verdict">{verdict}</div>
            </section>
            <section class="panel box-panel" aria-labelledby="box-system-heading">
                <h2 id="box-system-heading">"The system, second by second"</h2>
                <p class="muted" role="status" data-testid="box-status">{status}</p>
                <div class="box-clock">
                    <button type="button" data-testid="box-play"
                        aria-pressed=live_attr(move || aria_bool(view.playing.get()))
                        disabled=move || seconds() == 0
                        on:click=click(move |_| {
                            if view.second.get_untracked() >= last() {
                                view.second.set(0);
                            }
                            view.playing.set(!view.playing.get_untracked());
                        })>
                        {live(move || if view.playing.get() { "Pause" } else { "Play" }.to_string())}
                    </button>
                    <button type="button" data-testid="box-back" aria-label="−1 s (one second back)"
                        on:click=click(move |_| { view.playing.set(false); view.second.set(shown().saturating_sub(1)); })>
                        "−1 s"
                    </button>
                    <button type="button" data-testid="box-forward" aria-label="+1 s (one second on)"
                        on:click=click(move |_| { view.playing.set(false); view.second.set((shown() + 1).min(last())); })>
                        "+1 s"
                    </button>
                    <label>"Speed "
                        <select data-testid="box-speed" on:change=set_speed>
                            <option value="1">"1 s a second"</option>
                            <option value="5" selected>"5 s a second"</option>
                            <option value="20">"20 s a second"</option>
                        </select>
                    </label>
                    <label class="box-scrubber">"Second shown"
                        <input type="range" data-testid="box-scrubber" min="0"
                            max=live(move || last().to_string()) step="1"
                            prop:value=live(move || shown().to_string())
                            aria-valuetext=live(move || format!("second {}", shown()))
                            on:input=scrub />
                    </label>
                </div>
                <p class="box-second" data-testid="box-second">{second_text}</p>
                <SystemDiagram topology=topology layout=layout second=second dots=dot_plan on_pick=pick on_connect=on_connect />
                <p class="muted box-drag-note" role="status" data-testid="box-drag-note">{move || view.drag_note.get()}</p>
                <p class="muted box-legend">
                    <span class="key dot-ok">"in time"</span>
                    <span class="key dot-late">"late or fallback"</span>
                    <span class="key dot-failed">"failed"</span>
                    <span class="key dot-refused">"refused (429, 503)"</span>
                    " A dot is a sample of the requests on its way; the number by an edge is how many a second. Thread cells: "
                    <span class="key cell-payment">"waiting on payment"</span>
                    <span class="key cell-local">"local work"</span>
                    <span class="key cell-free">"free"</span>
                    " To connect an endpoint to a dependency, drag from its clients to the dependency with a mouse or pen (or tick it in the list below)."
                </p>
            </section>
            <Figure spec=classes summary=classes_text testid="box-classes"
                title="Each class: users answered in time, per second." />
            <Figure spec=outcomes summary=outcomes_text testid="box-outcomes" quiet=true
                title="What users got, per second (all classes)." />
            <section class="panel box-compare" aria-labelledby="box-compare-heading">
                <h2 id="box-compare-heading">"Every protection, same seed"</h2>
                <p>"Runs each protection of this scenario on the same seed and puts them side by side: users in time per class and goodput from the start of the incident to the end of the run (the whole run when there is none), and what the system did."
                    {move || edited().then_some(" Your changes to the system are set aside here: each protection runs on the scenario's own system.")}
                </p>
                <button type="button" data-testid="box-compare"
                    disabled=move || view.comparing.get()
                    on:click=click(move |_| compare_all(state, comparisons, view))>
                    {live(move || if view.comparing.get() { "Running every protection…" } else { "Compare every protection" }.to_string())}
                </button>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Every protection, same seed (scrolls sideways)">
                    <table data-testid="box-compare-table">
                        <caption class="visually-hidden">"Every protection of the scenario on the same seed"</caption>
                        <thead><tr>
                            <th scope="col">"Protection"</th>
                            <th scope="col">"Critical in time"</th>
                            <th scope="col">"Important in time"</th>
                            <th scope="col">"Sheddable in time"</th>
                            <th scope="col">"Goodput (a second)"</th>
                            <th scope="col">"Most threads on payment"</th>
                            <th scope="col">"Breaker openings"</th>
                            <th scope="col">"Restarts"</th>
                            <th scope="col">"Payment work wasted"</th>
                        </tr></thead>
                        <tbody>{compare_rows}</tbody>
                    </table>
                </div>
            </section>
            <section class="panel box-edit" aria-labelledby="box-edit-heading">
                <h2 id="box-edit-heading">"Change the system"</h2>
                <p data-testid="box-edit-summary">{edit_summary}</p>
                <p class="error" role="alert" data-testid="box-edit-note" hidden=move || view.edit_note.with(Option::is_none)>
                    {move || view.edit_note.get()}
                </p>
                <SystemEditor topology=listed on_edit=on_edit problem=view.edit_note />
                <div class="box-files">
                    <button type="button" class="secondary" data-testid="box-back-to-scenario" hidden=move || !edited()
                        on:click=back_to_scenario>
                        "Back to the scenario's system"
                    </button>
                    <a class="button secondary" data-testid="box-download" href=href download=download_name>
                        {move || if edited() { "Download your system's file" } else { "Download this scenario's file" }}
                    </a>
                    <label class="box-import">"Open a scenario file "
                        <input type="file" accept=".json,application/json" data-testid="box-import" on:change=on_file />
                    </label>
                </div>
                <p class="muted">
                    "The engine's scenario format (docs/boxoffice.md): "
                    <code data-testid="box-command">{move || lab.with(cli_command)}</code>
                    " runs the same run. Every stack exports as Resilience4j configuration with “Show as Resilience4j config” below."
                </p>
            </section>
        </LabFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(scenario: &'static str, variant: &'static str) -> (BoxOfficeLab, BoxOfficeRun) {
        let lab = BoxOfficeLab {
            scenario,
            variant,
            seed: 1,
            edits: None,
        };
        let run = lab.sim().unwrap().finish();
        (lab, run)
    }

    /// The spec's cascading failure: unprotected, holds and catalog fail too; with the
    /// bulkhead of 50 they stay in time.
    #[test]
    fn the_cascading_failures_answer_follows_the_protection() {
        let (lab, run) = run_of("cascading-failure", "unprotected");
        let (right, evidence) = answer(&lab, &run);
        assert_eq!(right, 2, "{evidence}");
        assert!(evidence.contains("From 25 s on"), "{evidence}");
        assert!(
            evidence.contains("At most 200 of the replica's threads"),
            "{evidence}"
        );
        let (lab, run) = run_of("cascading-failure", "bulkhead");
        let (right, evidence) = answer(&lab, &run);
        assert_eq!(right, 0, "{evidence}");
        assert!(
            evidence.contains("at most 50 waiting on payment"),
            "{evidence}"
        );
    }

    #[test]
    fn the_retry_storms_answer_says_never_for_naive_retries_and_soon_for_a_budget() {
        let (lab, run) = run_of("retry-storm", "naive-retries");
        assert_eq!(answer(&lab, &run).0, 2);
        let (lab, run) = run_of("retry-storm", "retry-budget");
        let (right, evidence) = answer(&lab, &run);
        assert_eq!(right, 0, "{evidence}");
    }

    #[test]
    fn the_flash_sales_answer_follows_shedding() {
        let (lab, run) = run_of("flash-sale", "no-shedding");
        assert_eq!(answer(&lab, &run).0, 2);
        let (lab, run) = run_of("flash-sale", "priority-shedding");
        assert_eq!(answer(&lab, &run).0, 0);
    }

    #[test]
    fn the_comparison_row_reads_the_incident() {
        let (_, run) = run_of("retry-storm", "breaker");
        let row = compare_row("breaker", "A circuit breaker", &run);
        assert!(row.breaker_openings >= 1);
        assert!(row.in_time[0].is_some_and(|p| p > 50.0), "{row:?}");
        let (_, naive) = run_of("retry-storm", "naive-retries");
        let naive = compare_row("naive-retries", "3 retries at once", &naive);
        assert!(naive.in_time[0].is_some_and(|p| p < 20.0), "{naive:?}");
        assert!(naive.wasted > row.wasted);
        assert_eq!(row.in_time[1], None, "no important users in this scenario");
    }

    #[test]
    fn the_charts_shade_the_incident_and_say_it() {
        let (_, run) = run_of("retry-storm", "naive-retries");
        let chart = classes_chart(&run);
        assert_eq!(chart.shade, Some((20.0, 30.0, "the incident")));
        assert_eq!(chart.series.len(), 1, "only critical users");
        let text = classes_summary(&run);
        assert!(
            text.starts_with("The incident runs from 20 s to 30 s."),
            "{text}"
        );
        assert!(
            text.contains(" critical: ") && text.contains(" in time before, "),
            "{text}"
        );
        assert!(!text.contains("important"), "no important users: {text}");
        let outcomes = outcomes_chart(&run);
        assert!(outcomes.series.iter().any(|s| s.label == "failed"));
        assert!(outcomes_summary(&run).starts_with("Over the run: "));
    }

    /// The outcomes sentence accounts for every user: its figures after the first add up to
    /// the first (the default run ends with users still waiting, who were left out).
    #[test]
    fn the_outcomes_sentence_adds_up_to_the_users() {
        let lab = BoxOfficeLab::default();
        let run = lab.sim().unwrap().finish();
        let text = outcomes_summary(&run);
        let figures: Vec<u64> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            // 429 and 503 are the answers' codes, not counts.
            .filter(|&n| n != 429 && n != 503)
            .collect();
        assert!(text.contains("still waiting when the run ended"), "{text}");
        assert_eq!(figures[0], figures[1..].iter().sum::<u64>(), "{text}");
    }

    /// The rate limiter's scenario has no incident (the bot is there from the start): no
    /// shading, no "before" and "during", one share per class over the run.
    #[test]
    fn a_scenario_without_an_incident_says_so() {
        let (_, run) = run_of("rate-limiter", "token-bucket");
        assert_eq!(run.summary.trigger_s, None);
        assert_eq!(classes_chart(&run).shade, None);
        assert_eq!(outcomes_chart(&run).shade, None);
        let text = classes_summary(&run);
        assert!(
            text.starts_with("The run lasts 60 s, with no incident in it."),
            "{text}"
        );
        assert!(!text.contains("before"), "{text}");
    }

    /// Shares are rounded down: 94.98 % must not read as the 95 % an answer says was
    /// not reached.
    #[test]
    fn a_share_never_reads_as_a_threshold_it_missed() {
        assert_eq!(percent(Some(94.976)), "94.9 %");
        assert_eq!(percent(Some(99.978)), "99.9 %");
        assert_eq!(percent(Some(100.0)), "100 %");
        assert_eq!(percent(Some(0.4)), "0.4 %");
        assert_eq!(percent(None), "no users");
    }
}
