//! The brownout: what a run reports.

use super::*;

/// How each submission ended for its user, counted by the second it arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Users {
    /// A live price, in time.
    pub live: u32,
    /// A cached price from the fallback, in time.
    pub cached: u32,
    /// An error page, in time (no fresh price in the cache, or no room in `order`).
    pub error: u32,
    /// Nothing before the user gave up.
    pub gave_up: u32,
}

impl Users {
    pub fn total(&self) -> u32 {
        self.live + self.cached + self.error + self.gave_up
    }

    /// Users who got a price, live or cached.
    pub fn answered(&self) -> u32 {
        self.live + self.cached
    }

    fn add(&mut self, other: &Users) {
        self.live += other.live;
        self.cached += other.cached;
        self.error += other.error;
        self.gave_up += other.gave_up;
    }
}

/// One second of the incident, `t_s` being its end relative to 09:00 (`t_s` = 1 is
/// [09:00:00, 09:00:01); -9 is the first second shown, from 08:59:50). Counts are that
/// second's events; `queued`, `order_threads`, the breaker and the other levels are
/// snapshots at the second's end; `users` and `history_*` count the requests that arrived
/// in the second, by how they ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrownoutSecond {
    pub t_s: i32,
    /// Order submissions that arrived.
    pub submissions: u32,
    /// Pricing calls started on a bulkhead thread (sent to pricing).
    pub admitted: u32,
    /// Calls in the bulkhead's queue at the second's end.
    pub queued: u32,
    /// `BulkheadFullException`s.
    pub rejected: u32,
    /// Retry attempts (second and later attempts).
    pub retries: u32,
    /// Every attempt offered to the stack: first attempts plus retries.
    pub attempts: u32,
    /// `CallNotPermittedException`s.
    pub not_permitted: u32,
    /// Fix 1's timeouts (read timeouts or time-limiter timeouts).
    pub timeouts: u32,
    /// Retries the retry budget refused.
    pub budget_refused: u32,
    /// The breaker's state at the second's end.
    pub breaker: State,
    /// Its failure rate in percent, `None` below `minimumNumberOfCalls`.
    pub failure_rate: Option<f32>,
    /// Its slow-call rate in percent, `None` below `minimumNumberOfCalls`.
    pub slow_call_rate: Option<f32>,
    /// Answers from the fallback path.
    pub fallbacks: u32,
    /// Fallbacks that found a fresh price.
    pub cache_hits: u32,
    /// `order` threads in use at the second's end.
    pub order_threads: u32,
    /// Of those, threads waiting on a pricing call (queued or running).
    pub order_threads_on_pricing: u32,
    /// Of those, threads sleeping between two attempts.
    pub order_threads_in_retry_wait: u32,
    /// Requests waiting for an `order` thread at the second's end.
    pub accept_queue: u32,
    /// Bulkhead threads busy (calls in flight at pricing) at the second's end.
    pub pricing_in_flight: u32,
    /// Bulkhead tasks (queued or running) whose caller stopped waiting: a time limiter's
    /// timeouts, which do not free the bulkhead thread.
    pub abandoned: u32,
    /// Calls pricing still works on after a read timeout closed their connection (their
    /// bulkhead thread is free): wasted work.
    pub pricing_wasted: u32,
    /// Whether pricing was in its fault during the second (answering in `pricingSlowMs`).
    pub pricing_slow: bool,
    /// Little's law: submissions/s x pricing's latency at the second's end.
    pub concurrency_needed: u32,
    pub history_ok: u32,
    pub history_total: u32,
    pub users: Users,
}

/// A run: its seconds and what the page and the CLI summarise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrownoutRun {
    pub seconds: Vec<BrownoutSecond>,
    /// When the breaker first opened, in seconds after 09:00 (negative before), if it did.
    pub breaker_first_open_s: Option<f64>,
    pub fixes: u8,
    /// Seconds after 09:00 that pricing stayed slow.
    pub fault_seconds: u32,
    /// Fix 1's kind of timeout.
    pub timeout_kind: TimeoutKind,
    pub bulkhead_threads: u32,
    pub queue_capacity: u32,
    pub order_threads: u32,
}

/// A run's headline figures after 09:00: the fix ladder's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    pub fixes: u8,
    /// Submissions after 09:00, by how their users saw them.
    pub users: Users,
    /// Attempts offered to the stack per submission while pricing was slow.
    pub attempts_per_submission: f64,
    /// Calls sent to pricing per second while it was slow.
    pub pricing_calls_per_second: f64,
    /// The most `order` threads in use at a second's end.
    pub peak_order_threads: u32,
    /// Order-history requests served in time, in percent.
    pub history_ok_percent: f64,
    pub breaker_first_open_s: Option<f64>,
    /// Once pricing is healthy again: the first second (after 09:00) from which at least
    /// 90 % of the submissions get a live price in every second to the run's end; `None`
    /// if the run ends before that.
    pub users_recovered_s: Option<i32>,
}

/// The share of a second's submissions that must get a live price for users to count as
/// recovered.
pub const RECOVERED_LIVE_SHARE: f64 = 0.9;

impl BrownoutRun {
    /// The rows from 09:00 on.
    pub fn after_incident(&self) -> impl Iterator<Item = &BrownoutSecond> {
        self.seconds.iter().filter(|s| s.t_s > 0)
    }

    /// The rows while pricing was slow (from 09:00 to the fault's end).
    pub fn during_fault(&self) -> impl Iterator<Item = &BrownoutSecond> {
        self.after_incident().filter(|s| s.pricing_slow)
    }

    /// See [`Headline::users_recovered_s`].
    pub fn users_recovered_s(&self) -> Option<i32> {
        let live = |s: &BrownoutSecond| {
            f64::from(s.users.live) >= RECOVERED_LIVE_SHARE * f64::from(s.submissions)
        };
        let after: Vec<&BrownoutSecond> = self
            .after_incident()
            .filter(|s| s.t_s > self.fault_seconds as i32 && s.submissions > 0)
            .collect();
        let last_bad = after.iter().rposition(|s| !live(s));
        match last_bad {
            None => after.first().map(|s| s.t_s),
            Some(i) => after.get(i + 1).map(|s| s.t_s),
        }
    }

    pub fn headline(&self) -> Headline {
        let mut users = Users::default();
        let (mut attempts, mut first, mut admitted, mut history_ok, mut history) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut peak = 0;
        for s in self.after_incident() {
            users.add(&s.users);
            history_ok += u64::from(s.history_ok);
            history += u64::from(s.history_total);
            peak = peak.max(s.order_threads);
        }
        let mut n = 0u32;
        for s in self.during_fault() {
            attempts += u64::from(s.attempts);
            first += u64::from(s.attempts - s.retries);
            admitted += u64::from(s.admitted);
            n += 1;
        }
        Headline {
            fixes: self.fixes,
            users,
            attempts_per_submission: ratio(attempts, first),
            pricing_calls_per_second: ratio(admitted, n.into()),
            peak_order_threads: peak,
            history_ok_percent: 100.0 * ratio(history_ok, history),
            breaker_first_open_s: self.breaker_first_open_s,
            users_recovered_s: self.users_recovered_s(),
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The four mechanisms of the stack as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mechanism {
    Bulkhead,
    Breaker,
    Retry,
    Cache,
}

impl Mechanism {
    pub const ALL: [Mechanism; 4] = [
        Mechanism::Bulkhead,
        Mechanism::Breaker,
        Mechanism::Retry,
        Mechanism::Cache,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Mechanism::Bulkhead => "bulkhead",
            Mechanism::Breaker => "breaker",
            Mechanism::Retry => "retry",
            Mechanism::Cache => "cache",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// What each mechanism did while pricing was slow, measured on a run, and which one made
/// the outage worse: the answer to the lab's prediction question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MechanismEffects {
    /// Bulkhead: calls sent to pricing per second, against the demand's concurrency
    /// (Little's law) and the bulkhead's threads.
    pub pricing_calls_per_second: f64,
    pub concurrency_needed: u32,
    /// The most `order` threads waiting on the bulkhead (queued or running) at a second's
    /// end, and whether `order` ran out of threads (requests waited for one).
    pub peak_threads_on_pricing: u32,
    pub order_ran_out: bool,
    /// Breaker: when it first opened, and the highest failure rate it measured.
    pub breaker_first_open_s: Option<f64>,
    pub max_failure_rate: Option<f32>,
    /// Retry: attempts per submission while pricing was slow, and the most threads asleep
    /// between attempts.
    pub attempts_per_submission: f64,
    pub peak_threads_in_retry_wait: u32,
    /// Cache: hit rate among fallbacks in the first and the last 10 s of the fault.
    pub hit_rate_first: Option<f64>,
    pub hit_rate_last: Option<f64>,
    /// The mechanism that made things worse than the slow dependency alone: the bulkhead
    /// when its queue held `order`'s threads until they ran out, else the retry when it
    /// multiplied the attempts (1.5 or more per submission); `None` when neither did.
    pub worse: Option<Mechanism>,
}

/// Reads a run for [`MechanismEffects`].
pub fn mechanism_effects(run: &BrownoutRun) -> MechanismEffects {
    let after: Vec<&BrownoutSecond> = run.during_fault().collect();
    let headline = run.headline();
    let hit_rate = |rows: &[&BrownoutSecond]| {
        let (hits, fallbacks) = rows.iter().fold((0u64, 0u64), |(h, f), s| {
            (h + u64::from(s.cache_hits), f + u64::from(s.fallbacks))
        });
        (fallbacks > 0).then(|| hits as f64 / fallbacks as f64)
    };
    let first = &after[..after.len().min(10)];
    let last = &after[after.len().saturating_sub(10)..];
    let peak_on_pricing = after
        .iter()
        .map(|s| s.order_threads_on_pricing)
        .max()
        .unwrap_or(0);
    let order_ran_out = after
        .iter()
        .any(|s| s.order_threads >= run.order_threads && s.accept_queue > 0);
    let attempts_per_submission = headline.attempts_per_submission;
    let peak_retry_wait = after
        .iter()
        .map(|s| s.order_threads_in_retry_wait)
        .max()
        .unwrap_or(0);
    let worse = if order_ran_out && peak_on_pricing > peak_retry_wait {
        Some(Mechanism::Bulkhead)
    } else if attempts_per_submission >= 1.5 {
        Some(Mechanism::Retry)
    } else {
        None
    };
    MechanismEffects {
        pricing_calls_per_second: headline.pricing_calls_per_second,
        concurrency_needed: after.last().map_or(0, |s| s.concurrency_needed),
        peak_threads_on_pricing: peak_on_pricing,
        order_ran_out,
        breaker_first_open_s: run.breaker_first_open_s,
        max_failure_rate: after
            .iter()
            .filter_map(|s| s.failure_rate)
            .fold(None, |m: Option<f32>, r| Some(m.map_or(r, |m| m.max(r)))),
        attempts_per_submission,
        peak_threads_in_retry_wait: peak_retry_wait,
        hit_rate_first: hit_rate(first),
        hit_rate_last: hit_rate(last),
        worse,
    }
}

/// The fix ladder: the headline of each step (0 to 4) with every other control as set.
pub fn ladder(config: &BrownoutConfig) -> Result<Vec<Headline>, ConfigError> {
    (0..=4u8)
        .map(|fixes| {
            run(&BrownoutConfig {
                fixes,
                ..config.clone()
            })
            .map(|r| r.headline())
        })
        .collect()
}
