//! Demo 15 as a [`LabModel`]: which retry policy survives
//! (../shared/spec/05-retry-policies.md). The config is which policies are shown, each
//! policy's settings, and the learner's own system (a policy, a load, a slowdown); the run
//! is the spec's two experiments for the shown policies on their default grids
//! ([`SweepConfig::default`], [`MapConfig::default`]) plus one map cell for the learner's
//! own system. A setting's name is its path in [`RetryPolicySettings`]
//! (`grpc.maxTokens`): the link and the CLI spell it the same.
//!
//! The run is many runs of the small world of [`Sim`] (18 failure rates and 45 map cells
//! per policy), so a page makes it in slices ([`RetryPoliciesJob`]), and a change reruns
//! only the policies it touches: a policy's results are kept while the settings it reads
//! ([`RetryPolicySettings::of_policy`]) and the seed stay the same.

use std::collections::VecDeque;

use super::lab_session::{
    choice, number, slider, Control, ControlKind, ControlValue, LabModel, Section, Unit,
};
use crate::error::ConfigError;
use crate::model::retry_policies::map::{self, MapCell, MapConfig, MapRow};
use crate::model::retry_policies::sim::{RunSpec, Sim};
use crate::model::retry_policies::sweep::{self, SweepConfig, SweepCurve, SweepPoint};
use crate::model::retry_policies::{ClientPolicy, RetryPolicyKind, RetryPolicySettings};

/// Demo 15's config.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPoliciesLab {
    /// Whether each policy of [`RetryPolicyKind::ALL`] is run and drawn.
    pub shown: [bool; 8],
    pub settings: RetryPolicySettings,
    /// The learner's own system: its policy, its load as a percentage of the server's
    /// capacity, and the slowdown it must survive (seconds of 3x service time).
    pub your_policy: RetryPolicyKind,
    pub your_load_percent: u32,
    pub your_trigger_s: u32,
    pub seed: u64,
}

impl Default for RetryPoliciesLab {
    fn default() -> Self {
        Self {
            shown: [true; 8],
            settings: RetryPolicySettings::default(),
            your_policy: RetryPolicyKind::Resilience4j,
            your_load_percent: 70,
            your_trigger_s: 10,
            seed: 1,
        }
    }
}

impl RetryPoliciesLab {
    /// The shown policies, in the chart's order.
    pub fn shown(&self) -> impl Iterator<Item = RetryPolicyKind> + '_ {
        RetryPolicyKind::ALL
            .into_iter()
            .zip(self.shown)
            .filter_map(|(p, on)| on.then_some(p))
    }

    /// The failure sweep this config runs (the spec's grid).
    pub fn sweep_config(&self) -> SweepConfig {
        SweepConfig {
            policies: self.shown().collect(),
            settings: self.settings.clone(),
            seed: self.seed,
            ..SweepConfig::default()
        }
    }

    /// The metastability map this config runs (the spec's grid).
    pub fn map_config(&self) -> MapConfig {
        MapConfig {
            policies: self.shown().collect(),
            settings: self.settings.clone(),
            seed: self.seed,
            ..MapConfig::default()
        }
    }

    /// The learner's load as a share of capacity.
    pub fn your_load(&self) -> f64 {
        f64::from(self.your_load_percent) / 100.0
    }
}

/// One policy's two experiments, with the settings they were run with.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyResult {
    pub policy: RetryPolicyKind,
    /// [`RetryPolicySettings::of_policy`] of the run's settings.
    pub key: RetryPolicySettings,
    pub seed: u64,
    pub curve: SweepCurve,
    pub row: MapRow,
}

/// The learner's own system: one map cell.
#[derive(Debug, Clone, PartialEq)]
pub struct YourCell {
    pub policy: RetryPolicyKind,
    pub key: RetryPolicySettings,
    pub seed: u64,
    pub cell: MapCell,
}

/// Demo 15's run.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPoliciesRun {
    /// The shown policies, in the chart's order.
    pub results: Vec<PolicyResult>,
    pub yours: YourCell,
    /// The grids the results were run on.
    pub failure_rates: Vec<f64>,
    pub loads: Vec<f64>,
    pub triggers_s: Vec<f64>,
}

impl RetryPoliciesRun {
    pub fn result(&self, policy: RetryPolicyKind) -> Option<&PolicyResult> {
        self.results.iter().find(|r| r.policy == policy)
    }
}

/// One run of the job: a sweep point, a map cell, or the learner's cell.
#[derive(Debug, Clone, Copy)]
enum Task {
    Point {
        policy: usize,
        rate: usize,
    },
    Cell {
        policy: usize,
        load: usize,
        trigger: usize,
    },
    Yours,
}

/// A policy's results being made.
struct Partial {
    policy: RetryPolicyKind,
    points: Vec<Option<SweepPoint>>,
    cells: Vec<Option<MapCell>>,
    /// Results that need no run: unchanged since the previous run, or made by this job.
    done: Option<PolicyResult>,
    /// The previous run's results for a changed policy: shown until its own are made.
    stale: Option<PolicyResult>,
    runs_left: usize,
}

impl Partial {
    /// Its results once its last run is in.
    fn complete(&mut self, settings: &RetryPolicySettings, seed: u64) {
        let points: Option<Vec<SweepPoint>> = self.points.iter().cloned().collect();
        let cells: Option<Vec<MapCell>> = self.cells.iter().cloned().collect();
        let (Some(points), Some(cells)) = (points, cells) else {
            return;
        };
        self.done = Some(PolicyResult {
            policy: self.policy,
            key: settings.of_policy(self.policy),
            seed,
            curve: SweepCurve {
                policy: self.policy,
                refusal_onset: sweep::refusal_onset(&points),
                points,
            },
            row: MapRow {
                policy: self.policy,
                cells,
            },
        });
    }
}

/// Demo 15's run made a slice at a time: [`RetryPoliciesJob::advance`] handles a bounded
/// number of events, so a page can make the run between frames. Results of a previous run
/// whose policy, settings and seed are unchanged are kept, not run again.
pub struct RetryPoliciesJob {
    lab: RetryPoliciesLab,
    sweep: SweepConfig,
    map: MapConfig,
    partial: Vec<Partial>,
    yours: Option<YourCell>,
    /// The previous run's cell of the learner's system, shown until its own is made.
    stale_yours: Option<YourCell>,
    tasks: VecDeque<Task>,
    under_way: Option<(Task, Sim)>,
    runs: usize,
    runs_done: usize,
    /// A policy's results (or the learner's cell) came in since [`Self::snapshot`].
    fresh: bool,
}

impl RetryPoliciesJob {
    /// The job of `lab`'s run, keeping what `previous` already has.
    pub fn new(
        lab: &RetryPoliciesLab,
        previous: Option<&RetryPoliciesRun>,
    ) -> Result<Self, ConfigError> {
        lab.validate()?;
        let sweep = lab.sweep_config();
        let map = lab.map_config();
        // The learner's own cell first: the page's verdict comes with the first policy.
        let your_key = lab.settings.of_policy(lab.your_policy);
        let previous_yours = previous.map(|p| &p.yours);
        let yours = previous_yours.filter(|y| {
            y.policy == lab.your_policy
                && y.key == your_key
                && y.seed == lab.seed
                && y.cell.load == lab.your_load()
                && y.cell.trigger_s == f64::from(lab.your_trigger_s)
        });
        let mut tasks = VecDeque::new();
        if yours.is_none() {
            tasks.push_back(Task::Yours);
        }
        let mut partial = Vec::new();
        for (i, policy) in lab.shown().enumerate() {
            let key = lab.settings.of_policy(policy);
            let before = previous.and_then(|p| p.result(policy));
            let kept = before
                .filter(|r| r.key == key && r.seed == lab.seed)
                .cloned();
            let before_tasks = tasks.len();
            if kept.is_none() {
                tasks.extend(
                    (0..sweep.failure_rates.len()).map(|rate| Task::Point { policy: i, rate }),
                );
                for load in 0..map.loads.len() {
                    tasks.extend((0..map.triggers_s.len()).map(|trigger| Task::Cell {
                        policy: i,
                        load,
                        trigger,
                    }));
                }
            }
            partial.push(Partial {
                policy,
                points: vec![None; sweep.failure_rates.len()],
                cells: vec![None; map.loads.len() * map.triggers_s.len()],
                stale: if kept.is_none() {
                    before.cloned()
                } else {
                    None
                },
                done: kept,
                runs_left: tasks.len() - before_tasks,
            });
        }
        let runs = tasks.len();
        Ok(Self {
            lab: lab.clone(),
            sweep,
            map,
            partial,
            stale_yours: if yours.is_none() {
                previous_yours.cloned()
            } else {
                None
            },
            yours: yours.cloned(),
            tasks,
            under_way: None,
            runs,
            runs_done: 0,
            fresh: false,
        })
    }

    /// (runs made, runs to make): what a page's progress shows.
    pub fn progress(&self) -> (usize, usize) {
        (self.runs_done, self.runs)
    }

    fn start(&self, task: Task) -> Result<(RunSpec, ClientPolicy), ConfigError> {
        match task {
            Task::Point { policy, rate } => sweep::point_run(
                &self.sweep,
                self.partial[policy].policy,
                self.sweep.failure_rates[rate],
            ),
            Task::Cell {
                policy,
                load,
                trigger,
            } => map::cell_run(
                &self.map,
                self.partial[policy].policy,
                self.map.loads[load],
                self.map.triggers_s[trigger],
            ),
            Task::Yours => map::cell_run(
                &self.map,
                self.lab.your_policy,
                self.lab.your_load(),
                f64::from(self.lab.your_trigger_s),
            ),
        }
    }

    /// Handles at most about `events` events of the runs left; whether the job is done.
    pub fn advance(&mut self, events: u64) -> Result<bool, ConfigError> {
        let mut left = events.max(1);
        while left > 0 {
            let (task, mut sim) = match self.under_way.take() {
                Some(under_way) => under_way,
                None => {
                    let Some(task) = self.tasks.pop_front() else {
                        return Ok(true);
                    };
                    let (spec, client) = self.start(task)?;
                    (task, Sim::new(spec, client))
                }
            };
            let before = sim.events();
            let done = sim.advance(left);
            // A run that is not over has spent the whole allowance.
            if !done {
                self.under_way = Some((task, sim));
                return Ok(false);
            }
            left = left.saturating_sub((sim.events() - before).max(1));
            self.finished(task, &sim.finish());
        }
        Ok(self.under_way.is_none() && self.tasks.is_empty())
    }

    fn finished(&mut self, task: Task, stats: &crate::model::retry_policies::sim::RunStats) {
        self.runs_done += 1;
        match task {
            Task::Point { policy, rate } => {
                let f = self.sweep.failure_rates[rate];
                self.partial[policy].points[rate] = Some(sweep::point_of(f, stats));
                self.one_run_of(policy);
            }
            Task::Cell {
                policy,
                load,
                trigger,
            } => {
                let at = load * self.map.triggers_s.len() + trigger;
                let cell = map::cell_of(
                    &self.map,
                    self.map.loads[load],
                    self.map.triggers_s[trigger],
                    stats,
                );
                self.partial[policy].cells[at] = Some(cell);
                self.one_run_of(policy);
            }
            Task::Yours => {
                let cell = map::cell_of(
                    &self.map,
                    self.lab.your_load(),
                    f64::from(self.lab.your_trigger_s),
                    stats,
                );
                self.yours = Some(YourCell {
                    policy: self.lab.your_policy,
                    key: self.lab.settings.of_policy(self.lab.your_policy),
                    seed: self.lab.seed,
                    cell,
                });
                self.fresh = true;
            }
        }
    }

    /// One more run of policy `i` is in; its results once it was the last.
    fn one_run_of(&mut self, i: usize) {
        let part = &mut self.partial[i];
        part.runs_left = part.runs_left.saturating_sub(1);
        if part.runs_left == 0 {
            part.complete(&self.lab.settings, self.lab.seed);
            part.stale = None;
            self.fresh = true;
        }
    }

    /// What the run shows so far, when something came in since the last call: each
    /// policy's new results where made, else its previous ones, else nothing; `None` until
    /// the learner's cell is known (made or previous).
    pub fn snapshot(&mut self) -> Option<RetryPoliciesRun> {
        if !std::mem::take(&mut self.fresh) {
            return None;
        }
        Some(RetryPoliciesRun {
            results: self
                .partial
                .iter()
                .filter_map(|p| p.done.clone().or_else(|| p.stale.clone()))
                .collect(),
            yours: self.yours.clone().or_else(|| self.stale_yours.clone())?,
            failure_rates: self.sweep.failure_rates.clone(),
            loads: self.map.loads.clone(),
            triggers_s: self.map.triggers_s.clone(),
        })
    }

    /// The run, once [`RetryPoliciesJob::advance`] said done (`None` before).
    pub fn finish(self) -> Option<RetryPoliciesRun> {
        if self.under_way.is_some() || !self.tasks.is_empty() {
            return None;
        }
        Some(RetryPoliciesRun {
            results: self
                .partial
                .into_iter()
                .map(|p| p.done)
                .collect::<Option<_>>()?,
            yours: self.yours?,
            failure_rates: self.sweep.failure_rates,
            loads: self.map.loads,
            triggers_s: self.map.triggers_s,
        })
    }
}

/// The run of `lab` at once (the CLI, the tests), keeping what `previous` has.
pub fn run(
    lab: &RetryPoliciesLab,
    previous: Option<&RetryPoliciesRun>,
) -> Result<RetryPoliciesRun, ConfigError> {
    let mut job = RetryPoliciesJob::new(lab, previous)?;
    while !job.advance(u64::MAX)? {}
    job.finish()
        .ok_or_else(|| ConfigError::new("runs", "the job ended without its results"))
}

const POLICY_OPTIONS: [(&str, &str); 8] = [
    ("none", "No retries"),
    ("resilience4j", "Resilience4j Retry"),
    ("retry-budget", "Retry budget"),
    ("token-bucket", "Token bucket"),
    ("finagle", "Finagle RetryBudget"),
    ("grpc", "gRPC retry throttling"),
    ("aws-standard", "AWS SDK standard mode"),
    ("adaptive-throttling", "Adaptive throttling"),
];

/// The label of `policy` on the page (the options of "Your policy").
pub fn policy_label(policy: RetryPolicyKind) -> &'static str {
    POLICY_OPTIONS
        .iter()
        .find(|(name, _)| *name == policy.name())
        .map_or("", |(_, label)| label)
}

/// The prefix of `policy`'s settings in a control's name (`grpc.` for `grpc.maxTokens`),
/// and of its toggle (`show.grpc`).
pub const fn settings_prefix(policy: RetryPolicyKind) -> &'static str {
    match policy {
        RetryPolicyKind::None => "none",
        RetryPolicyKind::Resilience4j => "resilience4j",
        RetryPolicyKind::RetryBudget => "retryBudget",
        RetryPolicyKind::TokenBucket => "tokenBucket",
        RetryPolicyKind::Finagle => "finagle",
        RetryPolicyKind::Grpc => "grpc",
        RetryPolicyKind::AwsStandard => "awsStandard",
        RetryPolicyKind::AdaptiveThrottling => "adaptiveThrottling",
    }
}

const fn count(min: u32, max: u32, unit: &'static str) -> ControlKind {
    slider(min as f64, max as f64, 1.0, unit)
}

const fn millis(min: u64, max: u64, step: f64) -> ControlKind {
    ControlKind::Number {
        min: min as f64,
        max: max as f64,
        step,
        unit: Unit::Millis,
    }
}

type L = RetryPoliciesLab;

/// A policy's toggle: whether the page runs and draws it; its help says what the policy is.
macro_rules! shown {
    ($i:expr, $name:expr, $label:expr) => {
        Control {
            name: $name,
            label: $label,
            help: RetryPolicyKind::ALL[$i].describe(),
            kind: ControlKind::Toggle,
            section: Section::Page,
            get: |l: &L| ControlValue::Toggle(l.shown[$i]),
            set: |l: &mut L, v| l.shown[$i] = v == ControlValue::Toggle(true),
        }
    };
}

const CONTROLS: [Control<L>; 36] = [
    Control {
        name: "yourPolicy",
        label: "Your policy",
        help: "The retry policy of your own clients: the map shows it, and your system is run with it.",
        kind: ControlKind::Choice {
            options: &POLICY_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.your_policy.name()),
        set: |l, v| {
            l.your_policy = RetryPolicyKind::from_name(choice(v)).unwrap_or(RetryPolicyKind::None)
        },
    },
    Control {
        name: "yourLoad",
        label: "Your load",
        help: "Your traffic as a share of what the server completes when healthy (100 calls/s).",
        kind: slider(5.0, 150.0, 5.0, "% of capacity"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.your_load_percent)),
        set: |l, v| l.your_load_percent = number(v) as u32,
    },
    Control {
        name: "yourTrigger",
        label: "Your slowdown",
        help: "How long the server runs 3x slower (the trigger): the worst your system must survive.",
        kind: slider(0.0, 60.0, 1.0, "s"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.your_trigger_s)),
        set: |l, v| l.your_trigger_s = number(v) as u32,
    },
    shown!(0, "show.none", "No retries"),
    shown!(1, "show.resilience4j", "Resilience4j Retry"),
    shown!(2, "show.retryBudget", "Retry budget"),
    shown!(3, "show.tokenBucket", "Token bucket"),
    shown!(4, "show.finagle", "Finagle RetryBudget"),
    shown!(5, "show.grpc", "gRPC retry throttling"),
    shown!(6, "show.awsStandard", "AWS SDK standard mode"),
    shown!(7, "show.adaptiveThrottling", "Adaptive throttling"),
    Control {
        name: "resilience4j.maxAttempts",
        label: "maxAttempts",
        help: "Attempts per request, the first included (Resilience4j's default is 3; the spec's 3 retries are 4). The budget, token bucket and Finagle lines retry the same way.",
        kind: count(1, 10, "attempts"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.resilience4j.max_attempts)),
        set: |l, v| l.settings.resilience4j.max_attempts = number(v) as u32,
    },
    Control {
        name: "resilience4j.waitDuration",
        label: "waitDuration",
        help: "The wait before each retry.",
        kind: millis(0, 10_000, 50.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.resilience4j.wait_duration as f64),
        set: |l, v| l.settings.resilience4j.wait_duration = number(v) as u64,
    },
    Control {
        name: "retryBudget.retryPercent",
        label: "Retries allowed",
        help: "Retries as a percentage of the requests over the window.",
        kind: slider(1.0, 100.0, 1.0, "% of requests"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.retry_budget.retry_percent),
        set: |l, v| l.settings.retry_budget.retry_percent = number(v),
    },
    Control {
        name: "retryBudget.ttl",
        label: "Window",
        help: "How long a request counts towards the budget.",
        kind: millis(1_000, 60_000, 1_000.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.retry_budget.ttl as f64),
        set: |l, v| l.settings.retry_budget.ttl = number(v) as u64,
    },
    Control {
        name: "tokenBucket.capacity",
        label: "Bucket size",
        help: "The most tokens the bucket holds; it starts full.",
        kind: slider(1.0, 1_000.0, 1.0, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.token_bucket.capacity),
        set: |l, v| l.settings.token_bucket.capacity = number(v),
    },
    Control {
        name: "tokenBucket.successReward",
        label: "Earned per success",
        help: "Tokens a successful attempt adds (nothing else earns any).",
        kind: slider(0.0, 1.0, 0.01, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.token_bucket.success_reward),
        set: |l, v| l.settings.token_bucket.success_reward = number(v),
    },
    Control {
        name: "tokenBucket.retryCost",
        label: "Cost of a retry",
        help: "Tokens a retry takes, at most the bucket's size; with fewer left, the retry is refused.",
        kind: slider(0.1, 10.0, 0.1, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.token_bucket.retry_cost),
        set: |l, v| l.settings.token_bucket.retry_cost = number(v),
    },
    Control {
        name: "finagle.retryPercent",
        label: "percentCanRetry",
        help: "Each request deposits this share of a retry (Finagle's default 20 %).",
        kind: slider(1.0, 100.0, 1.0, "% of requests"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.finagle.retry_percent),
        set: |l, v| l.settings.finagle.retry_percent = number(v),
    },
    Control {
        name: "finagle.minRetriesPerSecond",
        label: "minRetriesPerSec",
        help: "A reserve whatever the traffic: this many retries for each second of the ttl, which a burst may spend at once (Finagle's default 10).",
        kind: count(0, 1_000, "retries/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.finagle.min_retries_per_second)),
        set: |l, v| l.settings.finagle.min_retries_per_second = number(v) as u32,
    },
    Control {
        name: "finagle.ttl",
        label: "ttl",
        help: "How long a deposit lasts (Finagle's default 10 s).",
        kind: millis(1_000, 60_000, 1_000.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.finagle.ttl as f64),
        set: |l, v| l.settings.finagle.ttl = number(v) as u64,
    },
    Control {
        name: "grpc.maxAttempts",
        label: "maxAttempts",
        help: "Attempts per call, the first included (gRPC allows at most 5).",
        kind: count(2, 5, "attempts"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.grpc.max_attempts)),
        set: |l, v| l.settings.grpc.max_attempts = number(v) as u32,
    },
    Control {
        name: "grpc.maxTokens",
        label: "maxTokens",
        help: "Where the token count starts and its cap; retries stop at half of it or below.",
        kind: slider(1.0, 1_000.0, 1.0, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.grpc.max_tokens),
        set: |l, v| l.settings.grpc.max_tokens = number(v),
    },
    Control {
        name: "grpc.tokenRatio",
        label: "tokenRatio",
        help: "Tokens a successful call adds; a failed call takes 1.",
        kind: slider(0.01, 1.0, 0.01, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.grpc.token_ratio),
        set: |l, v| l.settings.grpc.token_ratio = number(v),
    },
    Control {
        name: "awsStandard.maxAttempts",
        label: "max_attempts",
        help: "Attempts per request, the first included (the SDKs' default is 3).",
        kind: count(1, 10, "attempts"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.aws_standard.max_attempts)),
        set: |l, v| l.settings.aws_standard.max_attempts = number(v) as u32,
    },
    Control {
        name: "awsStandard.initialRetryTokens",
        label: "Retry quota",
        help: "The tokens the client starts with (500).",
        kind: count(1, 10_000, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.aws_standard.initial_retry_tokens)),
        set: |l, v| l.settings.aws_standard.initial_retry_tokens = number(v) as u32,
    },
    Control {
        name: "awsStandard.retryCost",
        label: "Cost of a retry",
        help: "Tokens a retry after an error takes (14 since 2026, 5 before); a success gives them back.",
        kind: count(1, 100, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.aws_standard.retry_cost)),
        set: |l, v| l.settings.aws_standard.retry_cost = number(v) as u32,
    },
    Control {
        name: "awsStandard.timeoutRetryCost",
        label: "Cost after a timeout",
        help: "Tokens a retry after a timeout takes (14 since 2026, like any error; 10 before).",
        kind: count(1, 100, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.aws_standard.timeout_retry_cost)),
        set: |l, v| l.settings.aws_standard.timeout_retry_cost = number(v) as u32,
    },
    Control {
        name: "awsStandard.noRetryIncrement",
        label: "Refund per first-try success",
        help: "Tokens a success without a retry gives back (1).",
        kind: count(0, 100, "tokens"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.settings.aws_standard.no_retry_increment)),
        set: |l, v| l.settings.aws_standard.no_retry_increment = number(v) as u32,
    },
    Control {
        name: "adaptiveThrottling.k",
        label: "K",
        help: "Requests allowed per accepted one before the client drops its own (2: up to twice what the server accepts).",
        kind: slider(1.0, 10.0, 0.1, ""),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.adaptive_throttling.k),
        set: |l, v| l.settings.adaptive_throttling.k = number(v),
    },
    Control {
        name: "adaptiveThrottling.window",
        label: "Window",
        help: "How far back requests and accepts are counted (two minutes).",
        kind: millis(6_000, 600_000, 1_000.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.adaptive_throttling.window as f64),
        set: |l, v| l.settings.adaptive_throttling.window = number(v) as u64,
    },
    Control {
        name: "grpc.initialBackoff",
        label: "initialBackoff",
        help: "The first retry's backoff before jitter.",
        kind: millis(10, 60_000, 10.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.grpc.initial_backoff as f64),
        set: |l, v| l.settings.grpc.initial_backoff = number(v) as u64,
    },
    Control {
        name: "grpc.maxBackoff",
        label: "maxBackoff",
        help: "The cap on a backoff before jitter.",
        kind: millis(100, 600_000, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.grpc.max_backoff as f64),
        set: |l, v| l.settings.grpc.max_backoff = number(v) as u64,
    },
    Control {
        name: "awsStandard.baseBackoff",
        label: "Backoff base",
        help: "The first retry's longest wait, doubled for each later one (50 ms since 2026, 1 s before).",
        kind: millis(10, 10_000, 10.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.aws_standard.base_backoff as f64),
        set: |l, v| l.settings.aws_standard.base_backoff = number(v) as u64,
    },
    Control {
        name: "awsStandard.maxBackoff",
        label: "Backoff cap",
        help: "The longest wait before jitter: b x min(base x 2^(i-1), cap) (20 s).",
        kind: millis(1_000, 600_000, 1_000.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.settings.aws_standard.max_backoff as f64),
        set: |l, v| l.settings.aws_standard.max_backoff = number(v) as u64,
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of every run's arrivals and failures: the same seed gives the same figures, here and in the CLI.",
        kind: ControlKind::Whole {
            min: 0,
            max: super::lab_session::MAX_SEED,
        },
        section: Section::More,
        get: |l| ControlValue::Number(l.seed as f64),
        set: |l, v| l.seed = number(v) as u64,
    },
];

impl LabModel for RetryPoliciesLab {
    type Run = RetryPoliciesRun;
    const NAME: &'static str = "retry-policies";

    fn controls() -> &'static [Control<Self>] {
        &CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if !self.shown.contains(&true) {
            return Err(ConfigError::new("show.none", "show at least one policy"));
        }
        self.sweep_config().validate()?;
        self.map_config().validate()?;
        // The learner's cell within the map's own bounds.
        MapConfig {
            loads: vec![self.your_load()],
            triggers_s: vec![f64::from(self.your_trigger_s)],
            ..self.map_config()
        }
        .validate()
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        run(self, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::lab_session::LabSession;

    /// Only the shown policies run, and a changed setting reruns only the policies that
    /// read it: gRPC's tokens leave the Resilience4j line as it was.
    #[test]
    fn a_change_reruns_only_the_policies_it_touches() {
        let mut lab = RetryPoliciesLab {
            shown: [false, true, false, false, false, true, false, false],
            ..RetryPoliciesLab::default()
        };
        let first = run(&lab, None).unwrap();
        assert_eq!(first.results.len(), 2);
        lab.settings.grpc.max_tokens = 100.0;
        let job = RetryPoliciesJob::new(&lab, Some(&first)).unwrap();
        // One policy: 18 failure rates and 45 map cells; the learner's cell (Resilience4j)
        // is unchanged.
        assert_eq!(job.progress(), (0, 18 + 45));
        let second = run(&lab, Some(&first)).unwrap();
        assert_eq!(second.results[0], first.results[0]);
        assert_ne!(second.results[1].curve, first.results[1].curve);
        assert_eq!(second.yours, first.yours);
    }

    /// Made in slices or at once, the run is the same, and its figures are the
    /// experiments' own: a point of the sweep and a cell of the map as `sweep::point` and
    /// `map::cell` give them.
    #[test]
    fn a_run_in_slices_is_the_run_at_once() {
        let lab = RetryPoliciesLab {
            shown: [false, false, false, false, false, true, false, false],
            your_policy: RetryPolicyKind::Grpc,
            ..RetryPoliciesLab::default()
        };
        let mut job = RetryPoliciesJob::new(&lab, None).unwrap();
        let mut slices = 0;
        while !job.advance(5_000).unwrap() {
            slices += 1;
        }
        assert!(slices > 50, "{slices}");
        let sliced = job.finish().unwrap();
        assert_eq!(sliced, run(&lab, None).unwrap());
        let grpc = &sliced.results[0];
        let point = sweep::point(&lab.sweep_config(), RetryPolicyKind::Grpc, 0.5).unwrap();
        assert_eq!(
            grpc.curve.points.iter().find(|p| p.failure_rate == 0.5),
            Some(&point)
        );
        let cell = map::cell(&lab.map_config(), RetryPolicyKind::Grpc, 0.7, 10.0).unwrap();
        assert_eq!(sliced.yours.cell, cell);
    }

    /// The spec's sweep: with Resilience4j's 4 attempts the amplification is
    /// 1 + f + f^2 + f^3 (4 at 100 %), and gRPC's throttling stops retrying at high
    /// failure rates (near 1.0 at 100 %).
    #[test]
    fn the_lab_shows_the_specs_amplification() {
        let lab = RetryPoliciesLab {
            shown: [false, true, false, false, false, true, false, false],
            ..RetryPoliciesLab::default()
        };
        let run = run(&lab, None).unwrap();
        let at = |policy, f: f64| {
            run.result(policy)
                .and_then(|r| r.curve.points.iter().find(|p| p.failure_rate == f))
                .map(|p| p.amplification)
                .unwrap()
        };
        for f in [0.1, 0.5, 1.0] {
            let expected = 1.0 + f + f * f + f * f * f;
            let got = at(RetryPolicyKind::Resilience4j, f);
            assert!((got - expected).abs() < 0.03 * expected, "{f}: {got}");
        }
        assert!((at(RetryPolicyKind::Grpc, 1.0) - 1.0).abs() < 0.01);
        // 0.1 x (1 - f) < f: retries stop by about 9 %.
        let onset = run
            .result(RetryPolicyKind::Grpc)
            .unwrap()
            .curve
            .refusal_onset;
        assert!(onset.is_some_and(|f| f <= 0.1), "{onset:?}");
    }

    /// A run in slices shows what it has as it comes: the learner's cell with the first
    /// snapshot, then one policy more each time, the last snapshot the whole run; after a
    /// change, the changed policy's previous results stand in until its own are made.
    #[test]
    fn snapshots_show_each_policy_as_it_is_made() {
        let mut lab = RetryPoliciesLab {
            shown: [true, false, false, false, false, true, false, false],
            ..RetryPoliciesLab::default()
        };
        let mut job = RetryPoliciesJob::new(&lab, None).unwrap();
        let mut shown = Vec::new();
        while !job.advance(20_000).unwrap() {
            if let Some(snapshot) = job.snapshot() {
                shown.push(
                    snapshot
                        .results
                        .iter()
                        .map(|r| r.policy)
                        .collect::<Vec<_>>(),
                );
            }
        }
        let last = job.snapshot();
        let run = job.finish().unwrap();
        assert_eq!(last.as_ref(), Some(&run));
        assert_eq!(
            shown,
            vec![vec![], vec![RetryPolicyKind::None]],
            "the learner's cell, then no retries; gRPC with the whole run"
        );
        lab.settings.grpc.max_tokens = 100.0;
        let mut job = RetryPoliciesJob::new(&lab, Some(&run)).unwrap();
        job.advance(1).unwrap();
        assert_eq!(job.snapshot(), None, "nothing new yet");
        job.fresh = true;
        assert_eq!(
            job.snapshot().as_ref(),
            Some(&run),
            "the previous figures stand in"
        );
    }

    #[test]
    fn a_link_names_each_setting_by_its_path_and_refuses_bad_values() {
        let (lab, problems) = LabSession::<RetryPoliciesLab>::read_pairs([
            ("grpc.maxTokens", "20"),
            ("show.none", "false"),
            ("yourPolicy", "finagle"),
            ("grpc.maxAttempts", "9"),
            ("yourLoad", "1e9"),
        ]);
        assert_eq!(lab.settings.grpc.max_tokens, 20.0);
        assert!(!lab.shown[0]);
        assert_eq!(lab.your_policy, RetryPolicyKind::Finagle);
        assert_eq!(lab.settings.grpc.max_attempts, 4);
        assert_eq!(lab.your_load_percent, 70);
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    /// Each control takes its own default (a step that misses the minimum's grid would
    /// refuse the spec's values: a default of 100 ms on a grid of 1, 11, 21 ms…).
    #[test]
    fn every_control_takes_its_default() {
        let lab = RetryPoliciesLab::default();
        for control in RetryPoliciesLab::controls() {
            let value = (control.get)(&lab);
            assert_eq!(control.check(value), Ok(value), "{}", control.name);
        }
    }

    #[test]
    fn hiding_every_policy_is_refused() {
        let lab = RetryPoliciesLab {
            shown: [false; 8],
            ..RetryPoliciesLab::default()
        };
        assert!(lab.validate().is_err());
        assert!(RetryPoliciesJob::new(&lab, None).is_err());
    }
}
