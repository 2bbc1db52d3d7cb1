//! The breaker sandbox: the session.

use super::*;

/// The rates as the page shows them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rates {
    /// DISABLED and FORCED_OPEN record nothing.
    NotRecording,
    /// "not enough calls: `buffered` of `minimum`".
    NotEnoughCalls { buffered: u32, minimum: u32 },
    /// Percentages of the calls in the window.
    Computed {
        failure_rate: f32,
        slow_call_rate: f32,
    },
}

impl Rates {
    pub fn describe(&self) -> String {
        match *self {
            Rates::NotRecording => "not recording".to_string(),
            Rates::NotEnoughCalls { buffered, minimum } => {
                format!("not enough calls: {buffered} of {minimum}")
            }
            Rates::Computed {
                failure_rate,
                slow_call_rate,
            } => format!(
                "failure rate {} %, slow-call rate {} %",
                rate_text(failure_rate),
                rate_text(slow_call_rate)
            ),
        }
    }
}

/// A learner's action, resolved (durations and exceptions fixed when it was taken), as the
/// session replays it.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    /// `acquire`, then, if permitted, the answer.
    Call {
        sent: SandboxCall,
        duration_ms: Millis,
        exception: Option<String>,
    },
    /// Any other breaker step, or a step of an imported script that is not a call.
    Step(BreakerStep),
    EmptyCache,
}

impl Action {
    /// Script steps it may take (a call: 2).
    fn weight(&self) -> usize {
        match self {
            Action::Call { .. } => 2,
            Action::Step(_) | Action::EmptyCache => 1,
        }
    }
}

/// What the actions produced: the breaker, the clock, the script so far, the fallback and
/// the page's lists.
#[derive(Debug, Clone)]
struct Live {
    breaker: CircuitBreaker,
    now: Millis,
    steps: Vec<BreakerStep>,
    cache: FallbackCache<(), ()>,
    degraded_default: bool,
    log: VecDeque<LogEntry>,
    logged: u64,
    records: VecDeque<CallRecord>,
    calls: u64,
    /// The session's timer budget, as a script's ([`MAX_TIMERS_PER_SCRIPT`]).
    timers_left: u32,
    /// Set when an advance spent the last of it: why the clock stopped short.
    clock_stopped: Option<String>,
}

impl Live {
    fn new(settings: &SandboxSettings) -> Result<Self, ConfigError> {
        settings.validate()?;
        Ok(Live {
            breaker: CircuitBreaker::new(settings.config.clone())?,
            now: 0,
            steps: Vec::new(),
            cache: FallbackCache::new(settings.cache_ttl_ms),
            degraded_default: settings.degraded_default,
            log: VecDeque::new(),
            logged: 0,
            records: VecDeque::new(),
            calls: 0,
            timers_left: MAX_TIMERS_PER_SCRIPT,
            clock_stopped: None,
        })
    }

    fn replay(settings: &SandboxSettings, actions: &[Action]) -> Result<Self, ConfigError> {
        let mut live = Live::new(settings)?;
        for action in actions {
            live.apply(action);
        }
        Ok(live)
    }

    fn apply(&mut self, action: &Action) {
        match action {
            Action::Call {
                sent,
                duration_ms,
                exception,
            } => {
                self.call(Some(*sent), Some((*duration_ms, exception.as_deref())));
            }
            Action::Step(step) => self.step(step),
            Action::EmptyCache => {
                self.cache = FallbackCache::new(self.cache.ttl());
                self.log(SandboxEvent::CacheEmptied { at: self.now });
            }
        }
        self.flush_events();
    }

    /// An `acquire` and, when permitted and given, the answer. A refusal is recorded as a
    /// call; a permitted `acquire` without an answer (a lone step of a script) is not.
    fn call(&mut self, sent: Option<SandboxCall>, answer: Option<(Millis, Option<&str>)>) -> bool {
        let before = self.breaker.state();
        self.steps.push(BreakerStep::Acquire {});
        if !self.breaker.try_acquire_permission(self.now) {
            let (rung, cache_age_ms) = self.fallback();
            self.record(CallRecord {
                number: 0,
                at: self.now,
                sent,
                permitted: false,
                duration_ms: None,
                exception: Some(NOT_PERMITTED_EXCEPTION.to_string()),
                class: CallClass::NotPermitted,
                counted: false,
                state_before: before,
                state_after: self.breaker.state(),
                rung,
                cache_age_ms,
            });
            return false;
        }
        let Some((duration, exception)) = answer else {
            return true;
        };
        let recording = self.breaker.state() != State::Disabled;
        self.answer(duration, exception);
        let class = CallClass::of(&mut self.breaker, duration, exception);
        let (rung, cache_age_ms) = match exception {
            None => {
                self.cache.put(self.now, (), ());
                (Rung::Live, None)
            }
            Some(e) if is_answer(e) => (Rung::Answer, None),
            Some(_) => self.fallback(),
        };
        self.record(CallRecord {
            number: 0,
            at: self.now,
            sent,
            permitted: true,
            duration_ms: Some(duration),
            exception: exception.map(str::to_string),
            class,
            counted: recording && class != CallClass::Ignored,
            state_before: before,
            state_after: self.breaker.state(),
            rung,
            cache_age_ms,
        });
        true
    }

    /// Reports an answer (`success` or `error` step) at the current instant.
    fn answer(&mut self, duration: Millis, exception: Option<&str>) {
        match exception {
            None => {
                self.steps.push(BreakerStep::Success {
                    duration_ms: duration,
                });
                self.breaker.on_success(self.now, duration);
            }
            Some(e) => {
                self.steps.push(BreakerStep::Error {
                    duration_ms: duration,
                    exception: e.to_string(),
                });
                self.breaker.on_error(self.now, duration, e);
            }
        }
    }

    /// A step applied as written (the CLI's semantics).
    fn step(&mut self, step: &BreakerStep) {
        match step {
            BreakerStep::Acquire {} => {
                self.call(None, None);
            }
            BreakerStep::Success { duration_ms } => self.answer(*duration_ms, None),
            BreakerStep::Error {
                duration_ms,
                exception,
            } => self.answer(*duration_ms, Some(exception)),
            BreakerStep::AdvanceMs(ms) => {
                self.steps.push(step.clone());
                self.advance(*ms);
            }
            BreakerStep::Transition(to) => {
                self.steps.push(step.clone());
                let from = self.breaker.state();
                if self.breaker.transition_to(*to, self.now).is_err() {
                    self.log(SandboxEvent::TransitionRefused {
                        at: self.now,
                        from,
                        to: *to,
                    });
                }
            }
            BreakerStep::Release {} => {
                self.steps.push(step.clone());
                self.breaker.release_permission();
            }
            BreakerStep::Reset {} => {
                self.steps.push(step.clone());
                self.breaker.reset(self.now);
            }
        }
    }

    /// Moves the clock within the session's timer budget, in slices so that the breaker's
    /// own event list stays short (the log keeps the last [`MAX_LOG`] anyway).
    fn advance(&mut self, ms: Millis) {
        const SLICE: u32 = 1024;
        let to = self.now.saturating_add(ms);
        loop {
            let mut slice = self.timers_left.min(SLICE);
            let given = slice;
            let result = self.breaker.advance_to_bounded(to, &mut slice);
            self.timers_left -= given - slice;
            self.flush_events();
            match result {
                Ok(()) => {
                    self.now = to;
                    return;
                }
                Err(stopped) if self.timers_left == 0 => {
                    self.now = stopped;
                    self.clock_stopped = Some(timers_spent(stopped));
                    return;
                }
                Err(_) => {}
            }
        }
    }

    /// The fallback ladder below the live answer.
    fn fallback(&mut self) -> (Rung, Option<Millis>) {
        if self.cache.get(self.now, &()).is_some() {
            let age = self
                .cache
                .stored_at(&())
                .map(|stored| self.now.saturating_sub(stored));
            (Rung::StaleCache, age)
        } else if self.degraded_default {
            (Rung::DegradedDefault, None)
        } else {
            (Rung::HonestError, None)
        }
    }

    fn flush_events(&mut self) {
        for event in self.breaker.drain_events() {
            self.log(SandboxEvent::Breaker(event));
        }
    }

    fn log(&mut self, event: SandboxEvent) {
        self.logged += 1;
        if self.log.len() == MAX_LOG {
            self.log.pop_front();
        }
        self.log.push_back(LogEntry {
            seq: self.logged,
            event,
        });
    }

    fn record(&mut self, mut record: CallRecord) {
        self.calls += 1;
        record.number = self.calls;
        if self.records.len() == MAX_RECORDS {
            self.records.pop_front();
        }
        self.records.push_back(record);
    }
}

/// Demo 10's session: one breaker driven by the learner's actions, with its fallback
/// ladder, its log and its script. See the module documentation.
#[derive(Debug, Clone)]
pub struct BreakerSandbox {
    settings: SandboxSettings,
    actions: Vec<Action>,
    /// Script steps the actions may take (a call counts 2), at most [`MAX_STEPS`].
    used: usize,
    live: Live,
    pending: VecDeque<SandboxStep>,
    scenario: Option<SandboxScenario>,
}

impl Default for BreakerSandbox {
    fn default() -> Self {
        let settings = SandboxSettings::default();
        let live = Live::new(&settings).expect("the sandbox's defaults are valid");
        Self::with(settings, Vec::new(), 0, live)
    }
}

impl BreakerSandbox {
    /// A fresh session (t = 0, no calls) on `settings`, refused if they are invalid.
    pub fn new(settings: SandboxSettings) -> Result<Self, ConfigError> {
        let live = Live::new(&settings)?;
        Ok(Self::with(settings, Vec::new(), 0, live))
    }

    fn with(settings: SandboxSettings, actions: Vec<Action>, used: usize, live: Live) -> Self {
        Self {
            settings,
            actions,
            used,
            live,
            pending: VecDeque::new(),
            scenario: None,
        }
    }

    // --- actions ---------------------------------------------------------------------

    /// Sends one call of the button's kind (see [`SandboxCall`] for its duration and
    /// exception) and returns its record.
    pub fn send(&mut self, kind: SandboxCall) -> Result<CallRecord, String> {
        let duration = kind.duration(&self.settings.config);
        self.send_timed(kind, duration)
    }

    /// Sends a call that takes `duration_ms` (a scenario's 2 s success).
    pub fn send_timed(
        &mut self,
        kind: SandboxCall,
        duration_ms: Millis,
    ) -> Result<CallRecord, String> {
        self.push(Action::Call {
            sent: kind,
            duration_ms,
            exception: kind.exception().map(str::to_string),
        })?;
        self.live
            .records
            .back()
            .cloned()
            .ok_or_else(|| "the call left no record".to_string())
    }

    /// Moves the clock forward (firing the breaker's timers), saturating at
    /// [`MAX_CLOCK_MS`]; returns the new time. Consecutive advances are one script step.
    pub fn advance(&mut self, ms: Millis) -> Result<Millis, String> {
        let ms = ms.min(MAX_CLOCK_MS.saturating_sub(self.live.now));
        if ms == 0 {
            return Ok(self.live.now);
        }
        if let Some(Action::Step(BreakerStep::AdvanceMs(previous))) = self.actions.last_mut() {
            if let Some(BreakerStep::AdvanceMs(step)) = self.live.steps.last_mut() {
                *previous = previous.saturating_add(ms);
                *step = *previous;
                self.live.advance(ms);
                self.live.flush_events();
                return self
                    .live
                    .clock_stopped
                    .take()
                    .map_or(Ok(self.live.now), Err);
            }
        }
        self.push(Action::Step(BreakerStep::AdvanceMs(ms)))?;
        self.live
            .clock_stopped
            .take()
            .map_or(Ok(self.live.now), Err)
    }

    /// A manual transition (`transitionToXxxState`). One that Resilience4j's table forbids
    /// (CLOSED -> HALF_OPEN; METRICS_ONLY -> OPEN or HALF_OPEN) is refused and changes
    /// nothing.
    pub fn transition(&mut self, to: State) -> Result<(), String> {
        let from = self.live.breaker.state();
        if !from.can_transition_to(to) {
            return Err(format!(
                "illegal transition {from} -> {to}: Resilience4j refuses it (IllegalStateTransitionException)"
            ));
        }
        self.push(Action::Step(BreakerStep::Transition(to)))
    }

    /// The breaker's `reset()`: CLOSED with a fresh window, from any state.
    pub fn reset(&mut self) -> Result<(), String> {
        self.push(Action::Step(BreakerStep::Reset {}))
    }

    /// Empties the fallback cache (a sandbox step: in the log, not in the exported script).
    pub fn empty_cache(&mut self) -> Result<(), String> {
        self.push(Action::EmptyCache)
    }

    /// Starts over: t = 0, no calls, the same settings; no scenario pending.
    pub fn clear(&mut self) {
        if let Ok(live) = Live::new(&self.settings) {
            *self = Self::with(self.settings.clone(), Vec::new(), 0, live);
        }
    }

    /// Applies one step, as a scenario queues it.
    pub fn apply(&mut self, step: SandboxStep) -> Result<(), String> {
        match step {
            SandboxStep::Send(call) => self.send(call).map(|_| ()),
            SandboxStep::SendTimed(call, ms) => self.send_timed(call, ms).map(|_| ()),
            SandboxStep::Advance(ms) => self.advance(ms).map(|_| ()),
            SandboxStep::Transition(to) => self.transition(to),
            SandboxStep::Reset => self.reset(),
            SandboxStep::EmptyCache => self.empty_cache(),
        }
    }

    fn push(&mut self, action: Action) -> Result<(), String> {
        let used = self.used + action.weight();
        if used > MAX_STEPS {
            return Err(format!(
                "the session holds its limit of {MAX_STEPS} steps: export it, or start over"
            ));
        }
        self.live.apply(&action);
        self.actions.push(action);
        self.used = used;
        Ok(())
    }

    // --- scenarios -------------------------------------------------------------------

    /// Starts over on the scenario's settings and queues its steps (none applied yet).
    pub fn load_scenario(&mut self, scenario: SandboxScenario) {
        if let Ok(mut fresh) = Self::new(scenario.settings()) {
            fresh.pending = scenario.steps().into();
            fresh.scenario = Some(scenario);
            *self = fresh;
        }
    }

    /// The scenario loaded last, if any.
    pub fn scenario(&self) -> Option<SandboxScenario> {
        self.scenario
    }

    /// The scenario whose steps have all run with its misconfiguration still in place:
    /// the moment to offer its fix.
    pub fn fix_to_offer(&self) -> Option<SandboxScenario> {
        self.scenario
            .filter(|sc| self.pending.is_empty() && sc.misconfigured(self.config()))
    }

    /// Applies the fix of [`Self::fix_to_offer`]'s scenario: the session replays with it.
    pub fn apply_fix(&mut self) -> Result<(), ConfigError> {
        match self.fix_to_offer() {
            Some(scenario) => {
                let (name, value, _) = scenario.fix();
                self.set_text(name, value)
            }
            None => Ok(()),
        }
    }

    /// Applies the next pending step; returns it, or `None` when nothing is pending. A
    /// refused step stays pending.
    pub fn step(&mut self) -> Result<Option<SandboxStep>, String> {
        let Some(&next) = self.pending.front() else {
            return Ok(None);
        };
        self.apply(next)?;
        self.pending.pop_front();
        Ok(Some(next))
    }

    /// Applies every pending step; returns how many were applied.
    pub fn run_pending(&mut self) -> Result<usize, String> {
        let mut applied = 0;
        while self.step()?.is_some() {
            applied += 1;
        }
        Ok(applied)
    }

    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The steps still to apply, next first.
    pub fn pending(&self) -> impl Iterator<Item = &SandboxStep> {
        self.pending.iter()
    }

    // --- settings --------------------------------------------------------------------

    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    pub fn config(&self) -> &CircuitBreakerConfig {
        &self.settings.config
    }

    pub fn controls() -> &'static [Control<SandboxSettings>] {
        &SANDBOX_CONTROLS
    }

    pub fn control(name: &str) -> Option<&'static Control<SandboxSettings>> {
        LabSession::<SandboxSettings>::control(name)
    }

    /// The current value of control `name`.
    pub fn control_value(&self, name: &str) -> Option<ControlValue> {
        Self::control(name).map(|c| (c.get)(&self.settings))
    }

    /// Sets control `name` (checked against its range or options, then the engine's
    /// validation) and replays. A refusal names the control and changes nothing.
    pub fn set(&mut self, name: &str, value: ControlValue) -> Result<(), ConfigError> {
        let control = Self::known_control(name)?;
        let value = control.check(value)?;
        let mut next = self.settings.clone();
        (control.set)(&mut next, value);
        self.set_settings(next)
    }

    /// [`Self::set`] from text, as a link writes it (`10s`, `TIME_BASED`, `true`).
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let control = Self::known_control(name)?;
        let value = control.parse(text)?;
        self.set(name, value)
    }

    /// The control named `name`, or the lab sessions' message for an unknown name.
    fn known_control(name: &str) -> Result<&'static Control<SandboxSettings>, ConfigError> {
        Self::control(name).ok_or_else(|| {
            crate::scenario::lab_session::not_a_control(
                SandboxSettings::NAME,
                name,
                SANDBOX_CONTROLS.iter().map(|c| c.name),
            )
        })
    }

    /// New settings: validated, then every action replayed from t = 0 on a new breaker
    /// (Resilience4j's config is immutable per breaker). Invalid: the session is unchanged.
    pub fn set_settings(&mut self, settings: SandboxSettings) -> Result<(), ConfigError> {
        if settings == self.settings {
            return Ok(());
        }
        self.live = Live::replay(&settings, &self.actions)?;
        self.settings = settings;
        Ok(())
    }

    /// [`Self::set_settings`] with a new breaker config, the fallback's settings kept.
    pub fn set_config(&mut self, config: CircuitBreakerConfig) -> Result<(), ConfigError> {
        self.set_settings(SandboxSettings {
            config,
            ..self.settings.clone()
        })
    }

    /// Sets the settings the claims give (the others kept) and replays; returns them with
    /// their claims.
    pub fn apply_claims(&mut self, claims: &Claims) -> Result<Vec<ClaimedSetting>, ConfigError> {
        let settings = claims.settings()?;
        let config = claims.apply_to(&self.settings.config)?;
        self.set_config(config)?;
        Ok(settings)
    }

    // --- import / export -------------------------------------------------------------

    /// The breaker part of the session as a script: the config and the steps applied.
    pub fn script(&self) -> BreakerScript {
        BreakerScript {
            config: self.settings.config.clone(),
            steps: self.live.steps.clone(),
        }
    }

    /// [`Self::script`] as pretty JSON, the file `resilience-sim breaker FILE` reads.
    pub fn export_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(&self.script()).map_err(|e| e.to_string())
    }

    /// Replaces the session by a breaker script (the fallback's settings kept): parsed,
    /// validated, bounded ([`MAX_STEPS`] steps, [`MAX_CLOCK_MS`], the sandbox's window
    /// limits), then replayed. An `acquire` the breaker permits, followed at once by its
    /// answer, becomes a sandbox call; other steps apply as the CLI applies them. A refusal
    /// is one line and changes nothing.
    pub fn import_json(&mut self, json: &str) -> Result<(), String> {
        self.import_script(parse_breaker_script(json)?)
    }

    /// [`Self::import_json`] for a script already read (the browser reads the JSON with its
    /// own parser).
    pub fn import_script(&mut self, script: BreakerScript) -> Result<(), String> {
        // The CLI's checks first: a thrown name must be a known or declared class.
        script.validate().map_err(|e| e.to_string())?;
        if script.steps.len() > MAX_STEPS {
            return Err(format!(
                "the script has {} steps; the sandbox replays at most {MAX_STEPS}",
                script.steps.len()
            ));
        }
        let settings = SandboxSettings {
            config: script.config,
            ..self.settings.clone()
        };
        let mut live = Live::new(&settings).map_err(|e| e.to_string())?;
        let mut actions = Vec::with_capacity(script.steps.len());
        let mut steps = script.steps.iter().enumerate().peekable();
        while let Some((index, step)) = steps.next() {
            let answer = match (step, steps.peek().map(|(_, next)| next)) {
                (BreakerStep::Acquire {}, Some(BreakerStep::Success { duration_ms })) => {
                    Some((*duration_ms, None))
                }
                (
                    BreakerStep::Acquire {},
                    Some(BreakerStep::Error {
                        duration_ms,
                        exception,
                    }),
                ) => Some((*duration_ms, Some(exception.as_str()))),
                _ => None,
            };
            let action = match answer {
                Some((duration, exception)) => {
                    let sent = SandboxCall::of_answer(&settings.config, duration, exception);
                    if live.call(Some(sent), Some((duration, exception))) {
                        steps.next();
                        Action::Call {
                            sent,
                            duration_ms: duration,
                            exception: exception.map(str::to_string),
                        }
                    } else {
                        // Refused: the answer that follows applies as written, as in the
                        // CLI, and the script does not say what was meant to be sent.
                        if let Some(last) = live.records.back_mut() {
                            last.sent = None;
                        }
                        Action::Step(BreakerStep::Acquire {})
                    }
                }
                None => {
                    live.step(step);
                    if let Some(why) = live.clock_stopped.take() {
                        return Err(format!("steps[{index}]: {why}"));
                    }
                    Action::Step(step.clone())
                }
            };
            live.flush_events();
            actions.push(action);
        }
        let used = actions.iter().map(Action::weight).sum();
        *self = Self::with(settings, actions, used, live);
        Ok(())
    }

    // --- what the page reads ---------------------------------------------------------

    pub fn state(&self) -> State {
        self.live.breaker.state()
    }

    /// The sandbox's clock.
    pub fn now(&self) -> Millis {
        self.live.now
    }

    pub fn metrics(&self) -> Metrics {
        self.live.breaker.metrics()
    }

    /// The rates, or why there are none yet.
    pub fn rates(&self) -> Rates {
        let breaker = &self.live.breaker;
        if breaker.window_kind() == WindowKind::Empty {
            return Rates::NotRecording;
        }
        let m = breaker.metrics();
        if m.failure_rate < 0.0 {
            Rates::NotEnoughCalls {
                buffered: m.buffered,
                minimum: breaker.minimum_number_of_calls(),
            }
        } else {
            Rates::Computed {
                failure_rate: m.failure_rate,
                slow_call_rate: m.slow_call_rate,
            }
        }
    }

    /// Outcomes the current window needs before its rates count.
    pub fn minimum_calls(&self) -> u32 {
        self.live.breaker.minimum_number_of_calls()
    }

    /// The window's shape (COUNT_BASED in HALF_OPEN; empty when DISABLED or FORCED_OPEN).
    pub fn window_kind(&self) -> WindowKind {
        self.live.breaker.window_kind()
    }

    /// The outcomes in the window, oldest first (TIME_BASED: grouped per second).
    pub fn window_cells(&self) -> Vec<WindowCell> {
        self.live.breaker.window_cells()
    }

    /// TIME_BASED: the window's seconds, oldest first; empty otherwise.
    pub fn window_buckets(&self) -> Vec<Bucket> {
        self.live.breaker.window_buckets()
    }

    /// OPEN: milliseconds left in the wait (at 0 the next call is still refused; the first
    /// one after it is the first trial).
    pub fn open_wait_remaining(&self) -> Option<Millis> {
        self.live.breaker.open_wait_remaining(self.live.now)
    }

    /// HALF_OPEN: (trial permits handed out, permitted).
    pub fn half_open_trials(&self) -> Option<(u32, u32)> {
        self.live.breaker.half_open_trials()
    }

    /// When a timer will change the state by itself, if one is armed.
    pub fn next_timer(&self) -> Option<Millis> {
        self.live.breaker.next_timer()
    }

    /// A timer `reset()` left armed (Resilience4j's reset does not cancel the timers of the
    /// state it replaces) that will move the breaker when it fires: the first whose
    /// transition the state now allows, with the milliseconds until it fires.
    pub fn left_armed_timer_ahead(&self) -> Option<(Millis, State)> {
        self.live
            .breaker
            .next_left_armed_timer(self.state())
            .map(|(due, to)| (due.saturating_sub(self.live.now), to))
    }

    /// The breaker itself, for anything else the page wants to read.
    pub fn breaker(&self) -> &CircuitBreaker {
        &self.live.breaker
    }

    /// The last [`MAX_LOG`] events, oldest first.
    pub fn events(&self) -> impl DoubleEndedIterator<Item = &LogEntry> + ExactSizeIterator {
        self.live.log.iter()
    }

    /// Events logged since the session began (kept or not).
    pub fn events_total(&self) -> u64 {
        self.live.logged
    }

    /// The last [`MAX_RECORDS`] calls, oldest first.
    pub fn records(&self) -> impl DoubleEndedIterator<Item = &CallRecord> + ExactSizeIterator {
        self.live.records.iter()
    }

    /// Calls since the session began (kept or not).
    pub fn calls_total(&self) -> u64 {
        self.live.calls
    }

    /// The age of the cached answer, if the cache holds one (fresh or not).
    pub fn cache_age(&self) -> Option<Millis> {
        self.live
            .cache
            .stored_at(&())
            .map(|stored| self.live.now.saturating_sub(stored))
    }

    /// Whether the cache could answer now (its answer is younger than the TTL).
    pub fn cache_fresh(&self) -> bool {
        self.live.cache.peek(self.live.now, &()).is_some()
    }

    /// Script steps used so far, of [`MAX_STEPS`].
    pub fn steps_used(&self) -> usize {
        self.used
    }
}
