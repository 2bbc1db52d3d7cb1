//! The brownout: the simulation, event by event.

use super::*;

/// Event classes at the same millisecond, in the order they are handled: an answer that
/// comes exactly at the time limit is in time (the time limiter's boundary rule).
const TASK_DONE: u8 = 0;
const TIMEOUT: u8 = 1;
const WORK_DONE: u8 = 2;
const RETRY: u8 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Live,
    Cached,
    Error,
}

#[derive(Debug, Clone)]
struct Request {
    arrival: Millis,
    history: bool,
    product: u32,
    /// Set once it answered: how and when.
    answer: Option<(Answer, Millis)>,
    /// The current attempt's start, for the breaker's duration.
    attempt_started: Millis,
    /// Its retry context in [`Sim::contexts`], while it calls pricing.
    retry: u32,
}

/// No retry context (an order-history request, or a submission not calling pricing).
const NO_CONTEXT: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Task {
    request: u32,
    /// The caller stopped waiting (a timeout of either kind).
    abandoned: bool,
    /// Its bulkhead thread was given back before pricing answered (a read timeout).
    freed: bool,
    done: bool,
}

/// Counters of the second being simulated.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    admitted: u32,
    rejected: u32,
    retries: u32,
    attempts: u32,
    not_permitted: u32,
    timeouts: u32,
    budget_refused: u32,
    fallbacks: u32,
    cache_hits: u32,
}

/// Jittered-uniform arrivals of one stream: one request at a uniform instant of each of
/// `rps` equal slots of every second.
struct Arrivals {
    rps: u64,
    next_slot: u64,
    end_ms: Millis,
    rng: Pcg64Mcg,
    peeked: Option<Millis>,
}

impl Arrivals {
    fn new(rps: u32, end_ms: Millis, rng: Pcg64Mcg) -> Self {
        let mut a = Self {
            rps: rps.into(),
            next_slot: 0,
            end_ms,
            rng,
            peeked: None,
        };
        a.peeked = a.generate();
        a
    }

    fn generate(&mut self) -> Option<Millis> {
        if self.rps == 0 {
            return None;
        }
        let offset = self.rng.random_range(0..1_000_000_u64);
        let at = (self.next_slot * 1_000_000 + offset) / self.rps / 1_000;
        self.next_slot += 1;
        (at < self.end_ms).then_some(at)
    }

    fn take(&mut self) -> Option<Millis> {
        let next = self.peeked;
        if next.is_some() {
            self.peeked = self.generate();
        }
        next
    }
}

/// The wheel's length: a power of two longer than any delay the config can schedule.
fn wheel_len(config: &BrownoutConfig) -> usize {
    let jittered_max = |ms: Millis| ms + ms * JITTER_PERCENT / 100;
    let longest = [
        jittered_max(config.local_work_ms),
        jittered_max(config.pricing_ms),
        jittered_max(config.pricing_slow_ms),
        config.timeout_ms,
        // Resilience4j's randomized wait stays below interval x (1 + factor) + 1.
        config.retry_wait_ms * 2 + 1,
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    (longest as usize + 2).next_power_of_two()
}

/// Zipf popularity over `products` ranks, drawn by inverting its cumulative table. A guide
/// table (Chen and Asau) says where to start looking for each of `products` equal slices
/// of `[0, 1)`, so a draw takes one or two steps instead of a binary search, with the same
/// result.
pub(super) struct Catalogue {
    pub(super) cumulative: Vec<f64>,
    guide: Vec<u32>,
}

impl Catalogue {
    pub(super) fn new(products: u32, exponent: f64) -> Self {
        let mut total = 0.0;
        let mut cumulative = (1..=products)
            .map(|k| {
                total += (f64::from(k)).powf(-exponent);
                total
            })
            .collect::<Vec<_>>();
        for c in &mut cumulative {
            *c /= total;
        }
        let n = cumulative.len();
        let mut guide = Vec::with_capacity(n);
        let mut i = 0;
        for j in 0..n {
            let u = j as f64 / n as f64;
            while i + 1 < n && cumulative[i] <= u {
                i += 1;
            }
            guide.push(i as u32);
        }
        Self { cumulative, guide }
    }

    /// The first rank whose cumulative probability exceeds a uniform draw.
    pub(super) fn draw(&self, rng: &mut Pcg64Mcg) -> u32 {
        let u: f64 = rng.random();
        let n = self.cumulative.len();
        let mut i = self.guide[((u * n as f64) as usize).min(n - 1)] as usize;
        while i + 1 < n && self.cumulative[i] <= u {
            i += 1;
        }
        i as u32
    }
}

struct Sim {
    config: BrownoutConfig,
    end_ms: Millis,
    requests: Vec<Request>,
    tasks: Vec<Task>,
    /// A timing wheel: the events due at `t` wait in slot `t & mask` as `class << 32 | id`
    /// (no event is ever scheduled further ahead than the wheel is long). Sorting a slot
    /// handles its events in class order, then by id: the same order as a priority queue
    /// of (time, class, id), at a constant cost per event.
    wheel: Vec<Vec<u64>>,
    mask: Millis,
    pending: usize,
    // order
    order_busy: u32,
    accept: VecDeque<u32>,
    on_pricing: u32,
    in_retry_wait: u32,
    // the stack
    bulkhead: ThreadPoolBulkhead,
    bulkhead_queue: VecDeque<u32>,
    breaker: CircuitBreaker,
    retry: Retry,
    /// Retry contexts of the submissions calling pricing, reused once they answer: memory
    /// follows the requests in flight, not the length of the run.
    contexts: Vec<RetryContext>,
    free_contexts: Vec<u32>,
    budget: Option<RetryBudget>,
    timeout: Option<Timeout>,
    cache: FallbackCache<u32, ()>,
    catalogue: Catalogue,
    in_flight: u32,
    abandoned: u32,
    /// Calls pricing still works on after a read timeout dropped their connection.
    wasted: u32,
    first_open: Option<Millis>,
    // randomness
    products: Pcg64Mcg,
    latencies: Pcg64Mcg,
    waits: Pcg64Mcg,
    // reporting
    counts: Counts,
    rows: Vec<BrownoutSecond>,
}

impl Sim {
    fn new(config: &BrownoutConfig) -> Result<Self, ConfigError> {
        let mut breaker = CircuitBreaker::new(config.breaker_config())?;
        breaker.set_event_recording(false);
        let out_of_band = config.out_of_band_cache();
        let mut cache = FallbackCache::new(if out_of_band {
            OUT_OF_BAND_TTL_MS
        } else {
            config.cache_ttl_ms
        });
        if out_of_band {
            // Last night's export of the whole catalogue.
            for product in 0..config.products {
                cache.put(0, product, ());
            }
        }
        let arrivals = (u64::from(config.submissions_per_second)
            + u64::from(config.history_per_second))
            * (config.end_ms() / 1_000 + 1);
        Ok(Self {
            config: config.clone(),
            end_ms: config.end_ms(),
            requests: Vec::with_capacity(arrivals as usize),
            tasks: Vec::new(),
            wheel: vec![Vec::new(); wheel_len(config)],
            mask: wheel_len(config) as Millis - 1,
            pending: 0,
            order_busy: 0,
            accept: VecDeque::new(),
            on_pricing: 0,
            in_retry_wait: 0,
            bulkhead: ThreadPoolBulkhead::new(config.bulkhead_config())?,
            bulkhead_queue: VecDeque::new(),
            breaker,
            retry: Retry::new(config.retry_config())?,
            contexts: Vec::new(),
            free_contexts: Vec::new(),
            budget: config.budget_config().map(RetryBudget::new).transpose()?,
            timeout: config.fix_timeout(),
            cache,
            catalogue: Catalogue::new(config.products, config.zipf_exponent),
            in_flight: 0,
            abandoned: 0,
            wasted: 0,
            first_open: None,
            products: stream_rng(config.seed, 3),
            latencies: stream_rng(config.seed, 4),
            waits: stream_rng(config.seed, 5),
            counts: Counts::default(),
            rows: Vec::new(),
        })
    }

    fn schedule(&mut self, at: Millis, class: u8, id: u32) {
        self.pending += 1;
        self.wheel[(at & self.mask) as usize].push(u64::from(class) << 32 | u64::from(id));
    }

    /// Handles every event due at `now`, those it schedules for `now` included.
    fn handle_events(&mut self, now: Millis) {
        let slot = (now & self.mask) as usize;
        while !self.wheel[slot].is_empty() {
            let mut batch = std::mem::take(&mut self.wheel[slot]);
            batch.sort_unstable();
            self.pending -= batch.len();
            for &key in &batch {
                let id = key as u32;
                match (key >> 32) as u8 {
                    TASK_DONE => self.task_done(now, id),
                    TIMEOUT => self.timed_out(now, id),
                    WORK_DONE => self.work_done(now, id),
                    _ => {
                        self.in_retry_wait -= 1;
                        self.attempt(now, id);
                    }
                }
            }
            if self.wheel[slot].is_empty() {
                // Keep the allocation for the next turn of the wheel.
                batch.clear();
                self.wheel[slot] = batch;
            }
        }
    }

    /// Simulates up to `span` more milliseconds of model time (events, arrivals and the
    /// ends of seconds); true once the run is over.
    fn advance(&mut self, run: &mut Progress, span: Millis) -> bool {
        let until = run.now.saturating_add(span).min(run.stop);
        while run.now < until {
            while run.now >= run.boundary {
                self.close_second(run.boundary);
                run.boundary += 1_000;
            }
            let now = run.now;
            self.handle_events(now);
            // Arrivals come after every other event of their millisecond.
            while run.submissions.peeked == Some(now) {
                run.submissions.take();
                self.arrive(now, false);
            }
            while run.history.peeked == Some(now) {
                run.history.take();
                self.arrive(now, true);
            }
            run.now = if self.pending > 0 {
                now + 1
            } else {
                // Nothing scheduled: jump to the next arrival, if any.
                match (run.submissions.peeked, run.history.peeked) {
                    (Some(a), Some(b)) => a.min(b),
                    (a, b) => a.or(b).unwrap_or(run.stop),
                }
            };
        }
        run.now >= run.stop
    }

    fn into_run(mut self, mut run: Progress) -> BrownoutRun {
        while !self.advance(&mut run, Millis::MAX) {}
        while run.boundary <= self.end_ms {
            self.close_second(run.boundary);
            run.boundary += 1_000;
        }
        self.tally_users();
        let config = &self.config;
        BrownoutRun {
            breaker_first_open_s: self
                .first_open
                .map(|at| (at as f64 - INCIDENT_MS as f64) / 1_000.0),
            fixes: config.fixes,
            fault_seconds: config.fault_seconds,
            timeout_kind: config.timeout_kind,
            bulkhead_threads: config.bulkhead_threads,
            queue_capacity: config.queue_capacity,
            order_threads: config.order_threads,
            seconds: self.rows,
        }
    }

    /// Ends the second `[boundary - 1000, boundary)`: a row if it is shown.
    fn close_second(&mut self, boundary: Millis) {
        let counts = std::mem::take(&mut self.counts);
        if boundary <= WARMUP_MS {
            return;
        }
        self.breaker.advance_to(boundary);
        self.purge_accept(boundary);
        let metrics = self.breaker.metrics();
        let rate = |r: f32| (r >= 0.0).then_some(r);
        let latency = self.config.pricing_latency_at(boundary - 1);
        self.rows.push(BrownoutSecond {
            t_s: ((boundary as i64 - INCIDENT_MS as i64) / 1_000) as i32,
            submissions: 0,
            admitted: counts.admitted,
            queued: self.bulkhead.queue_depth(),
            rejected: counts.rejected,
            retries: counts.retries,
            attempts: counts.attempts,
            not_permitted: counts.not_permitted,
            timeouts: counts.timeouts,
            budget_refused: counts.budget_refused,
            breaker: self.breaker.state(),
            failure_rate: rate(metrics.failure_rate),
            slow_call_rate: rate(metrics.slow_call_rate),
            fallbacks: counts.fallbacks,
            cache_hits: counts.cache_hits,
            order_threads: self.order_busy,
            order_threads_on_pricing: self.on_pricing,
            order_threads_in_retry_wait: self.in_retry_wait,
            accept_queue: self.accept.len() as u32,
            pricing_in_flight: self.in_flight,
            abandoned: self.abandoned,
            pricing_wasted: self.wasted,
            pricing_slow: (INCIDENT_MS..self.config.fault_end_ms()).contains(&(boundary - 1)),
            concurrency_needed: (u64::from(self.config.submissions_per_second) * latency / 1_000)
                as u32,
            history_ok: 0,
            history_total: 0,
            users: Users::default(),
        });
    }

    /// Drops from the front of the accept queue the requests whose users have left (they
    /// all wait the same timeout, so those are a prefix).
    fn purge_accept(&mut self, now: Millis) {
        let timeout = self.config.user_timeout_ms;
        while let Some(&front) = self.accept.front() {
            if self.requests[front as usize].arrival + timeout <= now {
                self.accept.pop_front();
            } else {
                break;
            }
        }
    }

    fn arrive(&mut self, now: Millis, history: bool) {
        let product = if history {
            0
        } else {
            self.catalogue.draw(&mut self.products)
        };
        let id = self.requests.len() as u32;
        self.requests.push(Request {
            arrival: now,
            history,
            product,
            answer: None,
            attempt_started: now,
            retry: NO_CONTEXT,
        });
        if self.order_busy < self.config.order_threads {
            self.start(now, id);
            return;
        }
        self.purge_accept(now);
        if (self.accept.len() as u32) < self.config.accept_count {
            self.accept.push_back(id);
        } else {
            // Connection refused: the user sees an error page at once.
            self.requests[id as usize].answer = Some((Answer::Error, now));
        }
    }

    /// A request gets an `order` thread and starts its local work.
    fn start(&mut self, now: Millis, id: u32) {
        self.order_busy += 1;
        let work = vary(
            self.config.local_work_ms,
            JITTER_PERCENT,
            &mut self.latencies,
        );
        self.schedule(now + work, WORK_DONE, id);
    }

    /// The request answered: its thread takes the next waiting request.
    fn finish(&mut self, now: Millis, id: u32, answer: Answer) {
        let request = &mut self.requests[id as usize];
        request.answer = Some((answer, now));
        if request.retry != NO_CONTEXT {
            self.free_contexts.push(request.retry);
            request.retry = NO_CONTEXT;
        }
        self.order_busy -= 1;
        self.purge_accept(now);
        if let Some(next) = self.accept.pop_front() {
            self.start(now, next);
        }
    }

    fn work_done(&mut self, now: Millis, id: u32) {
        let request = &mut self.requests[id as usize];
        if request.history {
            self.finish(now, id, Answer::Live);
            return;
        }
        let context = self.retry.start();
        request.retry = match self.free_contexts.pop() {
            Some(slot) => {
                self.contexts[slot as usize] = context;
                slot
            }
            None => {
                self.contexts.push(context);
                self.contexts.len() as u32 - 1
            }
        };
        if let Some(budget) = &mut self.budget {
            budget.deposit(now);
        }
        self.attempt(now, id);
    }

    /// One attempt through `CircuitBreaker(TimeLimiter(Bulkhead(call)))`.
    fn attempt(&mut self, now: Millis, id: u32) {
        self.counts.attempts += 1;
        let request = &mut self.requests[id as usize];
        if request.retry != NO_CONTEXT && self.contexts[request.retry as usize].attempts() > 0 {
            self.counts.retries += 1;
        }
        request.attempt_started = now;
        if !self.breaker.try_acquire_permission(now) {
            self.counts.not_permitted += 1;
            self.failed(now, id, Outcome::CallNotPermitted);
            return;
        }
        let admission = self.bulkhead.submit(now);
        if admission == ThreadPoolAdmission::Rejected {
            self.counts.rejected += 1;
            self.breaker.on_error(now, 0, "BulkheadFullException");
            self.note_breaker(now);
            self.failed(now, id, Outcome::BulkheadFull);
            return;
        }
        let task = self.tasks.len() as u32;
        self.tasks.push(Task {
            request: id,
            abandoned: false,
            freed: false,
            done: false,
        });
        self.on_pricing += 1;
        if admission == ThreadPoolAdmission::Running {
            self.send(now, task);
        } else {
            self.bulkhead_queue.push_back(task);
        }
        // A time limiter around the bulkhead starts its clock now, queue included.
        if let Some(t) = self.timeout.filter(|t| !t.releases_resource()) {
            self.schedule(t.deadline(now), TIMEOUT, task);
        }
    }

    /// A bulkhead thread sends the task's call to pricing.
    fn send(&mut self, now: Millis, task: u32) {
        self.counts.admitted += 1;
        self.in_flight += 1;
        let nominal = self.config.pricing_latency_at(now);
        let latency = vary(nominal, JITTER_PERCENT, &mut self.latencies);
        self.schedule(now + latency, TASK_DONE, task);
        // The HTTP client's read timeout starts when the request is sent.
        if let Some(t) = self.timeout.filter(|t| t.releases_resource()) {
            self.schedule(t.deadline(now), TIMEOUT, task);
        }
    }

    /// A bulkhead thread is free: it takes the next queued call, if any.
    fn thread_freed(&mut self, now: Millis) {
        if self.bulkhead.complete(now) {
            if let Some(next) = self.bulkhead_queue.pop_front() {
                self.send(now, next);
            }
        }
    }

    fn task_done(&mut self, now: Millis, task: u32) {
        let t = &mut self.tasks[task as usize];
        t.done = true;
        if t.freed {
            // Work nobody waits for, on a connection already closed: pricing's waste.
            self.wasted -= 1;
            return;
        }
        self.in_flight -= 1;
        self.thread_freed(now);
        let t = &self.tasks[task as usize];
        if t.abandoned {
            // Nobody waits for this answer: it is thrown away.
            self.abandoned -= 1;
            return;
        }
        let id = t.request;
        self.on_pricing -= 1;
        let request = &mut self.requests[id as usize];
        let duration = now - request.attempt_started;
        let product = request.product;
        if let Some(ctx) = self.contexts.get_mut(request.retry as usize) {
            self.retry
                .on_outcome(ctx, Outcome::Success, &mut self.waits);
        }
        self.breaker.on_success(now, duration);
        self.note_breaker(now);
        self.cache.put(now, product, ());
        self.finish(now, id, Answer::Live);
    }

    fn timed_out(&mut self, now: Millis, task: u32) {
        let t = &mut self.tasks[task as usize];
        if t.done {
            return;
        }
        t.abandoned = true;
        let id = t.request;
        let read_timeout = self.timeout.is_some_and(|t| t.releases_resource());
        self.on_pricing -= 1;
        self.counts.timeouts += 1;
        let (exception, outcome) = if read_timeout {
            // The client closes the connection: the bulkhead thread is free at once, and
            // pricing goes on working on a call nobody will read.
            self.tasks[task as usize].freed = true;
            self.in_flight -= 1;
            self.wasted += 1;
            self.thread_freed(now);
            (READ_TIMEOUT_EXCEPTION, Outcome::ReadTimeout)
        } else {
            self.abandoned += 1;
            (TIMEOUT_EXCEPTION, Outcome::TimeLimited)
        };
        let duration = now - self.requests[id as usize].attempt_started;
        self.breaker.on_error(now, duration, exception);
        self.note_breaker(now);
        // The retry sees the same exception as the breaker.
        self.failed(now, id, outcome);
    }

    fn note_breaker(&mut self, now: Millis) {
        if self.first_open.is_none() && self.breaker.state() == State::Open && now >= WARMUP_MS {
            self.first_open = Some(now);
        }
    }

    /// An attempt failed: retry after a wait, or fall back.
    fn failed(&mut self, now: Millis, id: u32, outcome: Outcome) {
        let slot = self.requests[id as usize].retry as usize;
        let Some(ctx) = self.contexts.get_mut(slot) else {
            return;
        };
        match self.retry.on_outcome(ctx, outcome, &mut self.waits) {
            RetryDecision::RetryAfter { wait, .. } => {
                let allowed = self.budget.as_mut().is_none_or(|b| b.try_withdraw(now));
                if allowed {
                    self.in_retry_wait += 1;
                    self.schedule(now + wait, RETRY, id);
                } else {
                    self.counts.budget_refused += 1;
                    self.retry.give_up(ctx);
                    self.fall_back(now, id);
                }
            }
            _ => self.fall_back(now, id),
        }
    }

    fn fall_back(&mut self, now: Millis, id: u32) {
        self.counts.fallbacks += 1;
        let product = self.requests[id as usize].product;
        let answer = if self.cache.get(now, &product).is_some() {
            self.counts.cache_hits += 1;
            Answer::Cached
        } else {
            Answer::Error
        };
        self.finish(now, id, answer);
    }

    /// Every request shown, by its arrival second and how its user saw it.
    fn tally_users(&mut self) {
        let first = WARMUP_MS;
        let timeout = self.config.user_timeout_ms;
        for request in &self.requests {
            if request.arrival < first {
                continue;
            }
            let index = ((request.arrival - first) / 1_000) as usize;
            let Some(row) = self.rows.get_mut(index) else {
                continue;
            };
            let in_time = request
                .answer
                .filter(|(_, at)| *at < request.arrival + timeout)
                .map(|(answer, _)| answer);
            if request.history {
                row.history_total += 1;
                if in_time == Some(Answer::Live) {
                    row.history_ok += 1;
                }
                continue;
            }
            row.submissions += 1;
            match in_time {
                Some(Answer::Live) => row.users.live += 1,
                Some(Answer::Cached) => row.users.cached += 1,
                Some(Answer::Error) => row.users.error += 1,
                None => row.users.gave_up += 1,
            }
        }
    }
}

/// Where a run is: the model clock, the next second to close, the arrivals to come.
struct Progress {
    now: Millis,
    stop: Millis,
    boundary: Millis,
    submissions: Arrivals,
    history: Arrivals,
}

/// A run of Lab C made in slices, for a page that must not hold the browser for a whole
/// run while a slider moves: each [`advance`](Self::advance) simulates a span of model
/// time, and [`finish`](Self::finish) gives the run, the same as [`run`]'s.
pub struct BrownoutSim {
    sim: Sim,
    progress: Progress,
}

impl BrownoutSim {
    /// Validates `config` and sets up its run at 08:59:20.
    pub fn new(config: &BrownoutConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let sim = Sim::new(config)?;
        let progress = Progress {
            now: 0,
            stop: sim.end_ms + config.user_timeout_ms,
            boundary: 1_000,
            submissions: Arrivals::new(
                config.submissions_per_second,
                sim.end_ms,
                stream_rng(config.seed, 1),
            ),
            history: Arrivals::new(
                config.history_per_second,
                sim.end_ms,
                stream_rng(config.seed, 2),
            ),
        };
        Ok(Self { sim, progress })
    }

    /// The config being run.
    pub fn config(&self) -> &BrownoutConfig {
        &self.sim.config
    }

    /// Simulates up to `span` more milliseconds of model time; true once it is all done.
    pub fn advance(&mut self, span: Millis) -> bool {
        self.sim.advance(&mut self.progress, span)
    }

    /// The run (simulating what is left, if anything).
    pub fn finish(self) -> BrownoutRun {
        self.sim.into_run(self.progress)
    }
}

/// Runs Lab C (validates first; never panics on a valid config).
pub fn run(config: &BrownoutConfig) -> Result<BrownoutRun, ConfigError> {
    Ok(BrownoutSim::new(config)?.finish())
}
