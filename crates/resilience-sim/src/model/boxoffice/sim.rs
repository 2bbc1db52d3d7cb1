//! The assembly: the components wired on the kernel, event by event.
//!
//! This file owns no policy and no component's rules; it routes. A user arrives (clients),
//! passes the door, waits in the room or goes straight to a replica the balancer picks,
//! does its local work on a thread, calls each dependency through that dependency's stack,
//! and answers. Every timer is a kernel event naming the object it concerns by a slab key,
//! so a timer whose object has gone is ignored.

use std::collections::BTreeMap;

use rand_pcg::Pcg64Mcg;

use super::balancer::{Balancer, Candidate};
use super::clients::{Answer, Fate, Population, User};
use super::dependency::{self, Arrival, Dependency, Health};
use super::door::{Door, Verdict};
use super::kernel::{Kernel, Key, Slab};
use super::probes::{Consequence, ProbeKind};
use super::replica::{Entry, Phase, Replica};
use super::report::*;
use super::topology::{Action, Class, ProbeCheck, StackSpec, Topology};
use super::waiting_room::{Waiting, WaitingRoom};
use crate::model::{stream_rng, vary};
use crate::policy::bulkhead::WaiterId;
use crate::policy::retry::{RetryContext, RetryDecision};
use crate::{ConfigError, Millis, Outcome};

const NONE: u16 = u16::MAX;

#[derive(Debug, Clone, Copy)]
enum Ev {
    Arrive(u16, u32),
    ClientRetry(Key),
    AttemptTimeout(Key, u32),
    WorkDone(Key),
    StackRetry(Key),
    LimiterWaited(Key, u32),
    TimeLimit(Key, u32),
    BulkheadExpiry(u16, u16, u32),
    ReadTimeout(Key),
    CallEnd(Key),
    Probe(u16, u8, u32),
    AppUp(u16, u32),
    Restarted(u16, u32),
    Timeline(u16),
}

/// Where a job's current stack attempt is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Idle,
    LimiterWait,
    BulkheadWait(WaiterId),
    InCall(Key),
    Backoff,
}

/// One attempt on the server side: from the door to the answer.
struct Job {
    user: Key,
    attempt: u32,
    class: Class,
    purchase: u64,
    deadline: Millis,
    admitted_at: Millis,
    admitted: bool,
    endpoint: u16,
    replica: u16,
    incarnation: u32,
    running: bool,
    call_index: u8,
    retry: Option<RetryContext>,
    attempt_seq: u32,
    attempt_start: Millis,
    pending: Pending,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallResult {
    Pending,
    Refused,
    QueueFull,
    Done(dependency::Result),
}

/// One HTTP call to a dependency.
struct Call {
    job: Key,
    seq: u32,
    dep: u16,
    replica: u16,
    incarnation: u32,
    permit: bool,
    job_waiting: bool,
    caller_gone: bool,
    in_dependency: bool,
    purchase: u64,
    idempotent: bool,
    result: CallResult,
}

/// How one stack attempt ended, as the stack's layers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attempt {
    Ok,
    Declined,
    Failure(Outcome),
    RequestNotPermitted,
    TimeLimited,
}

struct Endpoint {
    work: Millis,
    calls: Vec<u16>,
}

#[derive(Default)]
struct Acc {
    row: ClassRow,
    latencies: Vec<u32>,
}

/// A BoxOffice run in progress: advance it in slices with [`Sim::advance_to`].
pub struct Sim {
    topology: Topology,
    scenario: String,
    variant: String,
    seed: u64,
    kernel: Kernel<Ev>,
    pops: Vec<Population>,
    arrival_gen: Vec<u32>,
    users: Slab<User>,
    jobs: Slab<Job>,
    calls: Slab<Call>,
    door: Door,
    room: Option<WaitingRoom>,
    balancer: Balancer,
    replicas: Vec<Replica>,
    deps: Vec<Dependency>,
    stacks: Vec<Option<StackSpec>>,
    endpoints: Vec<Endpoint>,
    key_names: Vec<String>,
    work_rng: Pcg64Mcg,
    retry_rng: Pcg64Mcg,
    end_ms: Millis,
    boundary: Millis,
    acc: [Acc; 3],
    keys_acc: Vec<KeyRow>,
    /// Per client population, this second and the whole run.
    clients_acc: Vec<KeyRow>,
    clients_total: Vec<KeyRow>,
    clients_latencies: Vec<Vec<u32>>,
    totals: Classes,
    total_latencies: [Vec<u32>; 3],
    door_rate_limited: u64,
    door_shed: u64,
    seconds: Vec<Second>,
    purchases: u64,
    payment: Option<usize>,
    max_busy: u32,
    max_on_payment: u32,
    truncated: bool,
    stale: Vec<Waiting>,
    dropped_calls: Vec<Key>,
}

fn class_index(c: Class) -> usize {
    c.index()
}

impl Sim {
    /// A run of `seconds` seconds (the topology's length by default).
    pub fn new(
        topology: Topology,
        scenario: &str,
        variant: &str,
        seed: u64,
        seconds: Option<u32>,
    ) -> Result<Self, ConfigError> {
        // A longer run is checked like a longer file: its expected requests stay bounded.
        let mut topology = topology;
        if let Some(seconds) = seconds {
            topology.seconds = seconds;
        }
        topology.validate()?;
        let seconds = topology.seconds;
        let dep_names: Vec<&String> = topology.dependencies.keys().collect();
        let dep_index = |name: &str| dep_names.iter().position(|d| *d == name).map(|i| i as u16);
        let endpoint_names: Vec<&String> = topology.replicas.endpoints.keys().collect();
        let endpoints = topology
            .replicas
            .endpoints
            .values()
            .map(|e| Endpoint {
                work: e.local_work_ms,
                calls: e.calls.iter().filter_map(|c| dep_index(c)).collect(),
            })
            .collect();
        let deps: Vec<Dependency> = topology
            .dependencies
            .iter()
            .enumerate()
            .map(|(i, (name, spec))| {
                Dependency::new(name, spec.clone(), stream_rng(seed, 200 + i as u64))
            })
            .collect();
        let stacks: Vec<Option<StackSpec>> = dep_names
            .iter()
            .map(|d| topology.replicas.stacks.get(*d).cloned())
            .collect();
        let mut key_names = Vec::new();
        let mut pops = Vec::new();
        let mut first_key = 0u32;
        let mut exempt = Vec::new();
        let exempt_names: Vec<String> = topology
            .door
            .token_bucket
            .as_ref()
            .map(|t| t.exempt.clone())
            .unwrap_or_default();
        for (i, (name, spec)) in topology.clients.iter().enumerate() {
            let endpoint = endpoint_names
                .iter()
                .position(|e| **e == spec.endpoint)
                .unwrap_or(0);
            let key_name = spec.key.as_ref().map(|k| {
                key_names.iter().position(|n| n == k).unwrap_or_else(|| {
                    key_names.push(k.clone());
                    key_names.len() - 1
                })
            });
            let keys = spec.keys.max(1);
            let is_exempt = spec.key.as_ref().is_some_and(|k| exempt_names.contains(k));
            exempt.extend(std::iter::repeat_n(is_exempt, keys as usize));
            pops.push(Population::new(
                name,
                spec,
                endpoint,
                key_name,
                first_key,
                stream_rng(seed, 100 + 2 * i as u64),
                stream_rng(seed, 101 + 2 * i as u64),
            ));
            first_key += keys;
        }
        let door = Door::new(&topology.door, first_key, exempt);
        let mut replicas = Vec::new();
        for _ in 0..topology.replicas.count {
            replicas.push(Replica::new(&topology.replicas, &stacks, 0, true)?);
        }
        let payment = dep_names
            .iter()
            .position(|d| *d == "payment")
            .or(if deps.is_empty() { None } else { Some(0) });
        let populations = pops.len();
        let mut sim = Sim {
            scenario: scenario.to_string(),
            variant: variant.to_string(),
            seed,
            kernel: Kernel::new(),
            arrival_gen: vec![0; pops.len()],
            pops,
            users: Slab::default(),
            jobs: Slab::default(),
            calls: Slab::default(),
            door,
            room: topology
                .waiting_room
                .clone()
                .map(|spec| WaitingRoom::new(spec, stream_rng(seed, 3))),
            balancer: Balancer::new(topology.balancer.policy),
            replicas,
            deps,
            stacks,
            endpoints,
            keys_acc: vec![KeyRow::default(); key_names.len()],
            clients_acc: vec![KeyRow::default(); populations],
            clients_total: vec![KeyRow::default(); populations],
            clients_latencies: vec![Vec::new(); populations],
            key_names,
            work_rng: stream_rng(seed, 1),
            retry_rng: stream_rng(seed, 2),
            end_ms: u64::from(seconds) * 1_000,
            boundary: 1_000,
            acc: Default::default(),
            totals: Classes::default(),
            total_latencies: Default::default(),
            door_rate_limited: 0,
            door_shed: 0,
            seconds: Vec::new(),
            purchases: 0,
            payment,
            max_busy: 0,
            max_on_payment: 0,
            truncated: false,
            stale: Vec::new(),
            dropped_calls: Vec::new(),
            topology,
        };
        for p in 0..sim.pops.len() {
            sim.schedule_arrival(p);
        }
        for r in 0..sim.replicas.len() {
            // Replicas running at the start were started at different times: their probes
            // are spread over the period, not in step.
            sim.schedule_probes(r, true);
        }
        for (i, e) in sim.topology.timeline.iter().enumerate() {
            let at = (e.at_s * 1_000.0).round() as Millis;
            sim.kernel.schedule(at, Ev::Timeline(i as u16));
        }
        Ok(sim)
    }

    /// The virtual instant reached.
    pub fn now(&self) -> Millis {
        self.kernel.now()
    }

    /// The run's end.
    pub fn end_ms(&self) -> Millis {
        self.end_ms
    }

    pub fn is_finished(&self) -> bool {
        self.seconds.len() as u64 * 1_000 >= self.end_ms
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.kernel.handled()
    }

    /// The seconds closed so far.
    pub fn seconds(&self) -> &[Second] {
        &self.seconds
    }

    fn schedule_arrival(&mut self, p: usize) {
        if let Some(at) = self.pops[p].next_arrival() {
            if at < self.end_ms {
                self.kernel
                    .schedule(at, Ev::Arrive(p as u16, self.arrival_gen[p]));
            }
        }
    }

    fn schedule_probes(&mut self, r: usize, spread: bool) {
        let inc = self.replicas[r].incarnation;
        let now = self.kernel.now();
        let n = self.replicas.len().max(1) as u64;
        for kind in ProbeKind::ALL {
            let rep = &self.replicas[r];
            let Some(spec) = rep.probes.spec(kind) else {
                continue;
            };
            if !rep.probes.active(kind) {
                continue;
            }
            let offset = if spread {
                spec.period_ms * (r as u64 % n) / n
            } else {
                0
            };
            self.kernel.schedule(
                now + spec.period_ms + offset,
                Ev::Probe(r as u16, kind as u8, inc),
            );
        }
    }

    /// Handles every event up to `t` (at most the run's end), closing each second on the
    /// way. A page calls this in slices; [`super::run`] calls it once.
    pub fn advance_to(&mut self, t: Millis) {
        let t = t.min(self.end_ms);
        loop {
            if self.kernel.exhausted() {
                self.truncated = true;
            }
            let heap = self.kernel.next_due();
            let deadline = self.next_deadline();
            let (next, is_deadline) = match (heap, deadline) {
                (Some(h), Some((d, _))) if d < h => (d, true),
                (Some(h), _) => (h, false),
                (None, Some((d, _))) => (d, true),
                (None, None) => (Millis::MAX, false),
            };
            if self.truncated {
                // Out of budget: no more events; the seconds still close.
                if self.boundary <= t {
                    self.kernel.set_now(self.boundary);
                    self.close_second();
                    continue;
                }
                break;
            }
            if next >= self.boundary && self.boundary <= t {
                self.kernel.set_now(self.boundary);
                self.close_second();
                continue;
            }
            if next > t || next >= self.end_ms {
                break;
            }
            if is_deadline {
                if let Some((_, p)) = deadline {
                    self.kernel.set_now(next);
                    self.kernel.count_handled();
                    self.user_deadline(p);
                }
            } else if let Some((now, ev)) = self.kernel.pop_until(next) {
                self.handle(now, ev);
            }
        }
        self.kernel.set_now(t);
    }

    fn next_deadline(&self) -> Option<(Millis, usize)> {
        let mut best: Option<(Millis, usize)> = None;
        for (i, p) in self.pops.iter().enumerate() {
            if let Some(&(d, _)) = p.deadlines.front() {
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, i));
                }
            }
        }
        best
    }

    fn user_deadline(&mut self, p: usize) {
        let Some((_, user)) = self.pops[p].deadlines.pop_front() else {
            return;
        };
        if self.users.get(user).is_some() {
            self.finish_user(user, Fate::Late);
        }
    }

    fn handle(&mut self, now: Millis, ev: Ev) {
        match ev {
            Ev::Arrive(p, generation) => {
                if self.arrival_gen[p as usize] == generation {
                    self.arrive(now, p as usize);
                }
            }
            Ev::ClientRetry(user) => {
                if self.users.get(user).is_some() {
                    self.send_attempt(now, user);
                }
            }
            Ev::AttemptTimeout(user, n) => self.attempt_timeout(now, user, n),
            Ev::WorkDone(job) => self.next_call(now, job),
            Ev::StackRetry(job) => {
                if self
                    .jobs
                    .get(job)
                    .is_some_and(|j| j.pending == Pending::Backoff)
                {
                    self.stack_attempt(now, job);
                }
            }
            Ev::LimiterWaited(job, seq) => {
                if self
                    .jobs
                    .get(job)
                    .is_some_and(|j| j.attempt_seq == seq && j.pending == Pending::LimiterWait)
                {
                    self.bulkhead_then_call(now, job);
                }
            }
            Ev::TimeLimit(job, seq) => self.time_limited(now, job, seq),
            Ev::BulkheadExpiry(r, d, inc) => self.bulkhead_expiry(now, r as usize, d as usize, inc),
            Ev::ReadTimeout(call) => self.read_timeout(now, call),
            Ev::CallEnd(call) => self.call_end(now, call),
            Ev::Probe(r, kind, inc) => self.probe(now, r as usize, kind, inc),
            Ev::AppUp(r, inc) => {
                let rep = &mut self.replicas[r as usize];
                if rep.incarnation == inc && rep.phase == Phase::Running {
                    rep.up = true;
                }
            }
            Ev::Restarted(r, inc) => {
                if self.replicas[r as usize].incarnation == inc
                    && self.replicas[r as usize].phase == Phase::Restarting
                {
                    self.start_container(now, r as usize);
                }
            }
            Ev::Timeline(i) => self.timeline(now, i as usize),
        }
    }

    // ---- clients ------------------------------------------------------------------------

    fn arrive(&mut self, now: Millis, p: usize) {
        let pop = &mut self.pops[p];
        let key = pop.draw_key();
        let user = User {
            population: p as u16,
            class: pop.class,
            arrived: now,
            deadline: now + pop.deadline_ms,
            key,
            purchase: self.purchases,
            attempts: 0,
            previous_wait: 0,
            waiting_for: None,
        };
        self.purchases += 1;
        let class = pop.class;
        let key_name = pop.key_name;
        pop.arrived();
        if let Some(b) = &mut pop.budget {
            b.deposit(now);
        }
        self.schedule_arrival(p);
        let c = class_index(class);
        self.acc[c].row.offered += 1;
        self.clients_acc[p].offered += 1;
        if let Some(k) = key_name {
            self.keys_acc[k].offered += 1;
        }
        let deadline = user.deadline;
        let Some(user_key) = self.users.insert(user) else {
            // The simulator's own bound: counted as failed, and the run says so.
            self.truncated = true;
            self.acc[c].row.failed += 1;
            self.clients_acc[p].failed += 1;
            if let Some(k) = key_name {
                self.keys_acc[k].failed += 1;
            }
            return;
        };
        self.pops[p].deadlines.push_back((deadline, user_key));
        self.send_attempt(now, user_key);
    }

    fn send_attempt(&mut self, now: Millis, user_key: Key) {
        let Some(user) = self.users.get_mut(user_key) else {
            return;
        };
        user.attempts += 1;
        user.waiting_for = Some(user.attempts);
        let (p, attempt, class, key, purchase, deadline) = (
            user.population as usize,
            user.attempts,
            user.class,
            user.key,
            user.purchase,
            user.deadline,
        );
        let pop = &self.pops[p];
        if let Some(t) = pop.retry.as_ref().and_then(|r| r.attempt_timeout_ms) {
            self.kernel
                .schedule(now + t, Ev::AttemptTimeout(user_key, attempt));
        }
        let c = class_index(class);
        self.acc[c].row.attempts += 1;
        self.clients_acc[p].attempts += 1;
        let key_name = pop.key_name;
        if let Some(k) = key_name {
            self.keys_acc[k].attempts += 1;
        }
        let endpoint = pop.endpoint as u16;
        match self.door.admit(now, key, class) {
            Verdict::RateLimited { retry_after } => {
                self.door_rate_limited += 1;
                self.deliver(now, user_key, attempt, Answer::RateLimited { retry_after });
            }
            Verdict::Shed { retry_after } => {
                self.door_shed += 1;
                self.deliver(now, user_key, attempt, Answer::Shed { retry_after });
            }
            Verdict::Admit => {
                self.acc[c].row.admitted += 1;
                self.clients_acc[p].admitted += 1;
                if let Some(k) = key_name {
                    self.keys_acc[k].admitted += 1;
                }
                let job = Job {
                    user: user_key,
                    attempt,
                    class,
                    purchase,
                    deadline,
                    admitted_at: now,
                    admitted: true,
                    endpoint,
                    replica: NONE,
                    incarnation: 0,
                    running: false,
                    call_index: 0,
                    retry: None,
                    attempt_seq: 0,
                    attempt_start: now,
                    pending: Pending::Idle,
                };
                match self.jobs.insert(job) {
                    Some(job) => self.route(now, job),
                    None => {
                        self.truncated = true;
                        self.door.done(now, 0);
                        self.deliver(now, user_key, attempt, Answer::Failed);
                    }
                }
            }
        }
    }

    fn attempt_timeout(&mut self, now: Millis, user_key: Key, n: u32) {
        let Some(user) = self.users.get_mut(user_key) else {
            return;
        };
        if user.waiting_for != Some(n) {
            return;
        }
        user.waiting_for = None;
        if !self.maybe_client_retry(now, user_key, None) {
            self.finish_user(user_key, Fate::Late);
        }
    }

    /// The user's attempt came back.
    fn deliver(&mut self, now: Millis, user_key: Key, attempt: u32, answer: Answer) {
        let Some(user) = self.users.get_mut(user_key) else {
            // The user has gone: the work was done for nobody.
            return;
        };
        if user.waiting_for != Some(attempt) {
            return;
        }
        user.waiting_for = None;
        match answer {
            Answer::Ok => self.finish_user(user_key, Fate::InTime),
            Answer::Fallback => self.finish_user(user_key, Fate::Fallback),
            Answer::Failed => {
                if !self.maybe_client_retry(now, user_key, None) {
                    self.finish_user(user_key, Fate::Failed);
                }
            }
            Answer::RateLimited { retry_after } => {
                if !self.maybe_client_retry(now, user_key, Some(retry_after)) {
                    self.finish_user(user_key, Fate::RateLimited);
                }
            }
            Answer::Shed { retry_after } => {
                if !self.maybe_client_retry(now, user_key, Some(retry_after)) {
                    self.finish_user(user_key, Fate::Shed);
                }
            }
        }
    }

    /// Schedules the client's next attempt if its retry policy, its budget and its
    /// deadline allow.
    fn maybe_client_retry(
        &mut self,
        now: Millis,
        user_key: Key,
        retry_after: Option<Millis>,
    ) -> bool {
        let Some(user) = self.users.get_mut(user_key) else {
            return false;
        };
        let pop = &mut self.pops[user.population as usize];
        let Some(retry) = &pop.retry else {
            return false;
        };
        if user.attempts >= retry.max_attempts {
            return false;
        }
        let mut wait = retry
            .backoff
            .next_wait(user.attempts, user.previous_wait, &mut pop.draws);
        if retry.honour_retry_after {
            wait = wait.max(retry_after.unwrap_or(0));
        }
        if now.saturating_add(wait) >= user.deadline {
            return false;
        }
        if let Some(b) = &mut pop.budget {
            if !b.try_withdraw(now) {
                return false;
            }
        }
        user.previous_wait = wait;
        self.kernel.schedule(now + wait, Ev::ClientRetry(user_key));
        true
    }

    fn finish_user(&mut self, user_key: Key, fate: Fate) {
        let now = self.kernel.now();
        let Some(user) = self.users.remove(user_key) else {
            return;
        };
        let c = class_index(user.class);
        let key_name = self.pops[user.population as usize].key_name;
        let row = &mut self.acc[c].row;
        let client = &mut self.clients_acc[user.population as usize];
        let latency = now.saturating_sub(user.arrived);
        macro_rules! count {
            ($field:ident) => {{
                row.$field += 1;
                client.$field += 1;
                if let Some(k) = key_name {
                    self.keys_acc[k].$field += 1;
                }
            }};
        }
        match fate {
            Fate::InTime => count!(in_time),
            Fate::Fallback => count!(fallback),
            Fate::Failed => count!(failed),
            Fate::RateLimited => count!(rate_limited),
            Fate::Shed => count!(shed),
            Fate::Late => count!(late),
        }
        if matches!(fate, Fate::InTime | Fate::Fallback) {
            let l = latency.min(u32::MAX as u64) as u32;
            self.acc[c].latencies.push(l);
            self.total_latencies[c].push(l);
            self.clients_latencies[user.population as usize].push(l);
            if fate == Fate::Fallback {
                client.fallback_max_ms = Some(client.fallback_max_ms.unwrap_or(0).max(latency));
            }
        }
    }

    // ---- door, waiting room, balancer -----------------------------------------------------

    fn candidates(&self) -> Vec<Candidate> {
        self.replicas
            .iter()
            .map(|r| Candidate {
                ready: r.phase == Phase::Running && r.ready,
                outstanding: r.outstanding,
                free_thread: r.free_thread(),
            })
            .collect()
    }

    fn route(&mut self, now: Millis, job: Key) {
        let candidates = self.candidates();
        if self.room.is_some() {
            if let Some(r) = self.balancer.pick(&candidates, true) {
                self.assign(now, r, job);
                return;
            }
            let deadline = self.jobs.get(job).map_or(now, |j| j.deadline);
            let evicted = self.room.as_mut().and_then(|room| {
                room.push(Waiting {
                    job,
                    deadline,
                    since: now,
                })
            });
            if let Some(w) = evicted {
                let retry_after = self
                    .topology
                    .door
                    .shedding
                    .as_ref()
                    .map_or(1_000, |s| s.retry_after_ms);
                self.answer(now, w.job, Answer::Shed { retry_after });
            }
            return;
        }
        match self.balancer.pick(&candidates, false) {
            Some(r) => self.assign(now, r, job),
            // No ready replica: the balancer answers 503.
            None => self.answer(now, job, Answer::Failed),
        }
    }

    fn assign(&mut self, now: Millis, r: usize, job_key: Key) {
        let rep = &mut self.replicas[r];
        if rep.phase != Phase::Running || !rep.up {
            // Sent to a container whose app is not listening: connection refused.
            self.answer(now, job_key, Answer::Failed);
            return;
        }
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        job.replica = r as u16;
        job.incarnation = rep.incarnation;
        rep.outstanding += 1;
        if rep.busy < rep.threads {
            self.start_job(now, r, job_key);
        } else if rep.accept.len() < rep.accept_capacity {
            rep.accept.push_back(job_key);
        } else {
            self.answer(now, job_key, Answer::Failed);
        }
    }

    fn start_job(&mut self, now: Millis, r: usize, job_key: Key) {
        let rep = &mut self.replicas[r];
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        rep.busy += 1;
        rep.peak_busy = rep.peak_busy.max(rep.busy);
        job.running = true;
        let work = self.endpoints[job.endpoint as usize].work;
        let pct = u64::from(self.topology.replicas.variance_percent);
        let ms = if work == 0 {
            0
        } else {
            vary(work, pct, &mut self.work_rng)
        };
        self.kernel.schedule(now + ms, Ev::WorkDone(job_key));
    }

    /// A thread of replica `r` came free: it takes the next request.
    fn thread_freed(&mut self, now: Millis, r: usize) {
        let propagate = self.topology.replicas.propagate_deadlines;
        loop {
            let rep = &mut self.replicas[r];
            if !rep.free_thread() {
                return;
            }
            if let Some(job) = rep.accept.pop_front() {
                let stale = propagate && self.jobs.get(job).is_some_and(|j| now >= j.deadline);
                if stale {
                    self.answer(now, job, Answer::Failed);
                    continue;
                }
                self.start_job(now, r, job);
                return;
            }
            if !self.replicas[r].ready {
                return;
            }
            let mut stale = std::mem::take(&mut self.stale);
            let next = self
                .room
                .as_mut()
                .and_then(|room| room.pop(now, &mut stale));
            for w in stale.drain(..) {
                self.answer(now, w.job, Answer::Failed);
            }
            self.stale = stale;
            match next {
                Some(w) => {
                    self.assign(now, r, w.job);
                    return;
                }
                None => return,
            }
        }
    }

    /// The job answers: its thread comes free, the door counts it, the user hears.
    fn answer(&mut self, now: Millis, job_key: Key, answer: Answer) {
        let Some(job) = self.jobs.remove(job_key) else {
            return;
        };
        if job.replica != NONE {
            let r = job.replica as usize;
            let rep = &mut self.replicas[r];
            if rep.incarnation == job.incarnation && rep.phase == Phase::Running {
                rep.outstanding = rep.outstanding.saturating_sub(1);
                if job.running {
                    rep.busy = rep.busy.saturating_sub(1);
                    self.thread_freed(now, r);
                }
            }
        }
        if job.admitted {
            self.door.done(now, now.saturating_sub(job.admitted_at));
        }
        let gone = self
            .users
            .get(job.user)
            .is_none_or(|u| u.waiting_for != Some(job.attempt));
        if gone && matches!(answer, Answer::Ok | Answer::Fallback) {
            self.acc[class_index(job.class)].row.served_late += 1;
        }
        self.deliver(now, job.user, job.attempt, answer);
    }

    // ---- replica: local work and the stacks ----------------------------------------------

    fn next_call(&mut self, now: Millis, job_key: Key) {
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        let calls = &self.endpoints[job.endpoint as usize].calls;
        let Some(&dep) = calls.get(job.call_index as usize) else {
            self.answer(now, job_key, Answer::Ok);
            return;
        };
        let r = job.replica as usize;
        job.retry = None;
        job.attempt_seq = 0;
        if let Some(stack) = self.replicas[r]
            .stacks
            .get_mut(dep as usize)
            .and_then(|s| s.as_mut())
        {
            job.retry = stack.retry.as_ref().map(|rt| rt.start());
            if let Some(b) = &mut stack.budget {
                b.deposit(now);
            }
        }
        self.stack_attempt(now, job_key);
    }

    fn dep_of(&self, job: &Job) -> u16 {
        self.endpoints[job.endpoint as usize].calls[job.call_index as usize]
    }

    /// One attempt through CircuitBreaker and RateLimiter.
    fn stack_attempt(&mut self, now: Millis, job_key: Key) {
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        job.attempt_seq += 1;
        job.attempt_start = now;
        job.pending = Pending::Idle;
        let seq = job.attempt_seq;
        let (r, d) = (
            job.replica as usize,
            self.endpoints[job.endpoint as usize].calls[job.call_index as usize] as usize,
        );
        let entry = match self.replicas[r].stacks[d].as_mut() {
            Some(stack) => stack.enter(now),
            None => Entry::Call,
        };
        match entry {
            Entry::NotPermitted => {
                self.attempt_ended(now, job_key, Attempt::Failure(Outcome::CallNotPermitted))
            }
            Entry::RequestNotPermitted => {
                self.attempt_ended(now, job_key, Attempt::RequestNotPermitted)
            }
            Entry::LimiterWait(ms) => {
                if let Some(job) = self.jobs.get_mut(job_key) {
                    job.pending = Pending::LimiterWait;
                }
                self.kernel
                    .schedule(now + ms, Ev::LimiterWaited(job_key, seq));
            }
            _ => self.bulkhead_then_call(now, job_key),
        }
    }

    /// The Bulkhead, then the call under the TimeLimiter's clock. A semaphore bulkhead
    /// takes its permit on the caller's thread before the TimeLimiter schedules its timeout
    /// (`TimeLimiterImpl.decorateCompletionStage` calls the supplier first), so a wait for a
    /// permit is not timed: it ends with the permit or with `BulkheadFullException` at
    /// `maxWaitDuration`, and the whole `timeoutDuration` is left for the call.
    fn bulkhead_then_call(&mut self, now: Millis, job_key: Key) {
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        job.pending = Pending::Idle;
        let (r, d) = (
            job.replica as usize,
            self.endpoints[job.endpoint as usize].calls[job.call_index as usize] as usize,
        );
        let inc = self.replicas[r].incarnation;
        let Some(stack) = self.replicas[r].stacks[d].as_mut() else {
            self.send(now, job_key, false);
            return;
        };
        match stack.enter_bulkhead(now, job_key) {
            Entry::BulkheadFull => {
                self.attempt_ended(now, job_key, Attempt::Failure(Outcome::BulkheadFull))
            }
            Entry::BulkheadWait(id) => {
                let due = stack.next_bulkhead_deadline();
                if let Some(job) = self.jobs.get_mut(job_key) {
                    job.pending = Pending::BulkheadWait(id);
                }
                if let Some(due) = due {
                    self.kernel
                        .schedule(due, Ev::BulkheadExpiry(r as u16, d as u16, inc));
                }
            }
            _ => {
                let permit = stack.bulkhead.is_some();
                self.time_limited_call(now, job_key, permit);
            }
        }
    }

    /// The call, with the TimeLimiter's timeout (if the stack has one) from now.
    fn time_limited_call(&mut self, now: Millis, job_key: Key, permit: bool) {
        let Some(job) = self.jobs.get(job_key) else {
            return;
        };
        let (r, d) = (job.replica as usize, self.dep_of(job) as usize);
        let timeout = self.replicas[r].stacks[d]
            .as_ref()
            .and_then(|s| s.spec.time_limiter.as_ref())
            .map(|tl| tl.timeout_duration);
        if let Some(timeout) = timeout {
            self.kernel
                .schedule(now + timeout, Ev::TimeLimit(job_key, job.attempt_seq));
        }
        self.send(now, job_key, permit);
    }

    /// The HTTP call: connect, send, and the read timeout.
    fn send(&mut self, now: Millis, job_key: Key, permit: bool) {
        let Some(job) = self.jobs.get(job_key) else {
            return;
        };
        let (r, d) = (job.replica as usize, self.dep_of(job) as usize);
        let stack = self.stacks[d].as_ref();
        let idempotent = stack.is_some_and(|s| s.idempotency_keys);
        let mut read_timeout = stack.and_then(|s| s.read_timeout_ms);
        let connect_timeout = stack.map_or(1_000, |s| s.connect_timeout_ms);
        if self.topology.replicas.propagate_deadlines {
            let left = job.deadline.saturating_sub(now).max(1);
            read_timeout = Some(read_timeout.map_or(left, |t| t.min(left)));
        }
        let call = Call {
            job: job_key,
            seq: job.attempt_seq,
            dep: d as u16,
            replica: r as u16,
            incarnation: self.replicas[r].incarnation,
            permit,
            job_waiting: true,
            caller_gone: false,
            in_dependency: false,
            purchase: job.purchase,
            idempotent,
            result: CallResult::Pending,
        };
        let Some(call_key) = self.calls.insert(call) else {
            self.truncated = true;
            self.release_permit(now, r, d, permit, self.replicas[r].incarnation);
            self.attempt_ended(now, job_key, Attempt::Failure(Outcome::ConnectFailure));
            return;
        };
        if let Some(job) = self.jobs.get_mut(job_key) {
            job.pending = Pending::InCall(call_key);
        }
        let rep = &mut self.replicas[r];
        rep.on_dependency[d] += 1;
        rep.peak_on_dependency[d] = rep.peak_on_dependency[d].max(rep.on_dependency[d]);
        let caller_deadline = read_timeout.map(|t| now + t);
        let arrival = self.deps[d].arrive(now, call_key, caller_deadline);
        let call = self.calls.get_mut(call_key).expect("just inserted");
        match arrival {
            Arrival::Refused => {
                call.result = CallResult::Refused;
                // Connection refused comes back within a round trip.
                self.kernel.schedule(now + 1, Ev::CallEnd(call_key));
                return;
            }
            Arrival::NoConnection => {
                // Nothing answers the SYN: the HTTP client gives up at its connect timeout.
                call.result = CallResult::Refused;
                self.kernel
                    .schedule(now + connect_timeout, Ev::CallEnd(call_key));
                return;
            }
            Arrival::QueueFull => {
                call.result = CallResult::QueueFull;
                self.kernel.schedule(now + 1, Ev::CallEnd(call_key));
                return;
            }
            Arrival::Started(done, result) => {
                call.in_dependency = true;
                call.result = CallResult::Done(result);
                self.kernel.schedule(done, Ev::CallEnd(call_key));
            }
            Arrival::Queued => call.in_dependency = true,
        }
        if let Some(t) = read_timeout {
            self.kernel.schedule(now + t, Ev::ReadTimeout(call_key));
        }
    }

    fn release_permit(&mut self, now: Millis, r: usize, d: usize, permit: bool, incarnation: u32) {
        if !permit || self.replicas[r].incarnation != incarnation {
            return;
        }
        let woken = match self.replicas[r].stacks[d].as_mut() {
            Some(stack) => stack.release(now),
            None => Vec::new(),
        };
        for job in woken {
            if let Some(j) = self.jobs.get_mut(job) {
                j.pending = Pending::Idle;
                self.time_limited_call(now, job, true);
            }
        }
    }

    fn call_end(&mut self, now: Millis, call_key: Key) {
        let Some(call) = self.calls.remove(call_key) else {
            return;
        };
        let d = call.dep as usize;
        if call.in_dependency {
            // A worker comes free and takes the next call it will serve.
            let calls = &self.calls;
            let mut dropped = std::mem::take(&mut self.dropped_calls);
            let next = self.deps[d].finish(
                now,
                |k| calls.get(k).is_none_or(|c| c.caller_gone),
                &mut dropped,
            );
            if let Some((next, done, result)) = next {
                if let Some(c) = self.calls.get_mut(next) {
                    c.result = CallResult::Done(result);
                }
                self.kernel.schedule(done, Ev::CallEnd(next));
            }
            for k in dropped.drain(..) {
                // Skipped by the server: a caller still waiting hears 503 at once.
                if let Some(c) = self.calls.get_mut(k) {
                    c.in_dependency = false;
                    c.result = CallResult::QueueFull;
                    self.kernel.schedule(now, Ev::CallEnd(k));
                }
            }
            self.dropped_calls = dropped;
            if let CallResult::Done(result) = call.result {
                self.deps[d].charge(result, call.purchase, call.idempotent);
                if call.caller_gone || !call.job_waiting {
                    self.deps[d].tally.wasted += 1;
                } else {
                    self.deps[d].tally.served += 1;
                }
            }
        }
        let r = call.replica as usize;
        // The thread stops waiting before the permit passes to the next one, so a bulkhead
        // of 50 never shows 51 threads on the dependency.
        if call.job_waiting && self.replicas[r].incarnation == call.incarnation {
            self.replicas[r].on_dependency[d] = self.replicas[r].on_dependency[d].saturating_sub(1);
        }
        self.release_permit(now, r, d, call.permit, call.incarnation);
        if !call.job_waiting {
            return;
        }
        let attempt = match call.result {
            CallResult::Done(dependency::Result::Ok) => Attempt::Ok,
            CallResult::Done(dependency::Result::Declined) => Attempt::Declined,
            CallResult::Done(dependency::Result::ServerError) | CallResult::QueueFull => {
                Attempt::Failure(Outcome::Http5xx)
            }
            CallResult::Refused | CallResult::Pending => Attempt::Failure(Outcome::ConnectFailure),
        };
        if self
            .jobs
            .get(call.job)
            .is_some_and(|j| j.pending == Pending::InCall(call_key) && j.attempt_seq == call.seq)
        {
            self.attempt_ended(now, call.job, attempt);
        }
    }

    fn read_timeout(&mut self, now: Millis, call_key: Key) {
        let Some(call) = self.calls.get_mut(call_key) else {
            return;
        };
        if !call.job_waiting {
            if call.permit {
                // A TimeLimiter stopped waiting earlier; the read timeout now closes the
                // connection and gives the permit back.
                call.permit = false;
                call.caller_gone = true;
                let (r, d, inc) = (call.replica as usize, call.dep as usize, call.incarnation);
                self.release_permit(now, r, d, true, inc);
            }
            return;
        }
        call.job_waiting = false;
        call.caller_gone = true;
        let permit = std::mem::replace(&mut call.permit, false);
        let (job, r, d, inc) = (
            call.job,
            call.replica as usize,
            call.dep as usize,
            call.incarnation,
        );
        if self.replicas[r].incarnation == inc {
            self.replicas[r].on_dependency[d] = self.replicas[r].on_dependency[d].saturating_sub(1);
        }
        self.release_permit(now, r, d, permit, inc);
        self.attempt_ended(now, job, Attempt::Failure(Outcome::ReadTimeout));
    }

    fn time_limited(&mut self, now: Millis, job_key: Key, seq: u32) {
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        if job.attempt_seq != seq {
            return;
        }
        let (r, d) = (
            job.replica as usize,
            self.endpoints[job.endpoint as usize].calls[job.call_index as usize] as usize,
        );
        // Only a call is timed: a wait for a permit ended before the clock started.
        match job.pending {
            Pending::InCall(call_key) => {
                // The caller stops waiting; the call keeps its connection and permit, so
                // the server cannot tell (`caller_gone` stays false: a `dropStale` server
                // still serves it, for nobody).
                if let Some(c) = self.calls.get_mut(call_key) {
                    c.job_waiting = false;
                }
                if self.replicas[r].incarnation == job.incarnation {
                    self.replicas[r].on_dependency[d] =
                        self.replicas[r].on_dependency[d].saturating_sub(1);
                }
            }
            _ => return,
        }
        self.attempt_ended(now, job_key, Attempt::TimeLimited);
    }

    fn bulkhead_expiry(&mut self, now: Millis, r: usize, d: usize, inc: u32) {
        if self.replicas[r].incarnation != inc {
            return;
        }
        let (expired, due) = match self.replicas[r].stacks[d].as_mut() {
            Some(s) => (s.expired(now), s.next_bulkhead_deadline()),
            None => return,
        };
        for job in expired {
            if self
                .jobs
                .get(job)
                .is_some_and(|j| matches!(j.pending, Pending::BulkheadWait(_)))
            {
                self.attempt_ended(now, job, Attempt::Failure(Outcome::BulkheadFull));
            }
        }
        if let Some(due) = due {
            if due > now {
                self.kernel
                    .schedule(due, Ev::BulkheadExpiry(r as u16, d as u16, inc));
            }
        }
    }

    /// An attempt ended: the breaker records it, the Retry decides, the fallback answers.
    fn attempt_ended(&mut self, now: Millis, job_key: Key, attempt: Attempt) {
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        job.pending = Pending::Idle;
        let (r, d) = (
            job.replica as usize,
            self.endpoints[job.endpoint as usize].calls[job.call_index as usize] as usize,
        );
        let duration = now.saturating_sub(job.attempt_start);
        let mut ctx = job.retry.take();
        let deadline = job.deadline;
        let Some(stack) = self.replicas[r].stacks[d].as_mut() else {
            self.call_done(now, job_key, attempt);
            return;
        };
        let exception = match attempt {
            Attempt::Ok => None,
            Attempt::Declined => Some("CardDeclinedException"),
            Attempt::RequestNotPermitted => Some("RequestNotPermitted"),
            Attempt::TimeLimited => Some("TimeoutException"),
            Attempt::Failure(o) => o.exception_name(),
        };
        // An open breaker's refusal never reached the breaker's window.
        if attempt != Attempt::Failure(Outcome::CallNotPermitted) {
            stack.record(now, duration, exception);
        }
        // The Retry sees the exception the breaker recorded: a TimeLimiter's
        // `TimeoutException` is not an `IOException`, and `RequestNotPermitted` is retried
        // like any exception the lists allow (Resilience4j's rule; the guard names only the
        // breaker's and the bulkhead's refusals).
        let retry_outcome = match attempt {
            Attempt::Ok | Attempt::Declined => None,
            Attempt::RequestNotPermitted => Some(Outcome::RequestNotPermitted),
            Attempt::TimeLimited => Some(Outcome::TimeLimited),
            Attempt::Failure(o) => Some(o),
        };
        if let (Some(outcome), Some(retry), Some(c)) =
            (retry_outcome, stack.retry.as_mut(), ctx.as_mut())
        {
            if let RetryDecision::RetryAfter { wait, .. } =
                retry.on_outcome(c, outcome, &mut self.retry_rng)
            {
                let budget_ok = stack.budget.as_mut().is_none_or(|b| b.try_withdraw(now));
                let in_time = !self.topology.replicas.propagate_deadlines || now + wait < deadline;
                if budget_ok && in_time {
                    if let Some(job) = self.jobs.get_mut(job_key) {
                        job.retry = ctx;
                        job.pending = Pending::Backoff;
                    }
                    self.kernel.schedule(now + wait, Ev::StackRetry(job_key));
                    return;
                }
                retry.give_up(c);
            }
        }
        self.call_done(now, job_key, attempt);
    }

    /// The stack's final answer for this dependency.
    fn call_done(&mut self, now: Millis, job_key: Key, attempt: Attempt) {
        let Some(job) = self.jobs.get_mut(job_key) else {
            return;
        };
        match attempt {
            Attempt::Ok => {
                job.call_index += 1;
                self.next_call(now, job_key);
            }
            // A decline is an answer.
            Attempt::Declined => self.answer(now, job_key, Answer::Ok),
            _ => {
                let d =
                    self.endpoints[job.endpoint as usize].calls[job.call_index as usize] as usize;
                let fallback = self.stacks[d]
                    .as_ref()
                    .is_some_and(|s| s.fallback.is_some());
                self.answer(
                    now,
                    job_key,
                    if fallback {
                        Answer::Fallback
                    } else {
                        Answer::Failed
                    },
                );
            }
        }
    }

    // ---- replica life and probes ----------------------------------------------------------

    fn probe(&mut self, now: Millis, r: usize, kind: u8, inc: u32) {
        let kind = ProbeKind::ALL[kind as usize % 3];
        let rep = &self.replicas[r];
        if rep.incarnation != inc || rep.phase != Phase::Running || !rep.probes.active(kind) {
            return;
        }
        let Some(spec) = rep.probes.spec(kind).cloned() else {
            return;
        };
        let passed = match spec.check {
            ProbeCheck::Process => rep.up,
            ProbeCheck::Resources => rep.up && rep.busy < rep.threads,
            ProbeCheck::Dependency => {
                rep.up
                    && spec
                        .dependency
                        .as_ref()
                        .and_then(|name| self.deps.iter().find(|d| &d.name == name))
                        .is_some_and(|d| d.probe_passes(spec.timeout_ms))
            }
        };
        let consequence = self.replicas[r].probes.result(kind, passed);
        match consequence {
            Consequence::Restart => {
                self.kill(now, r, false);
                return;
            }
            Consequence::Started => {
                let rep = &mut self.replicas[r];
                if rep.probes.spec(ProbeKind::Readiness).is_none() {
                    rep.ready = true;
                    rep.ever_ready = true;
                }
                self.schedule_probes(r, false);
                return;
            }
            Consequence::Ready => {
                let rep = &mut self.replicas[r];
                rep.ready = true;
                rep.ever_ready = true;
            }
            Consequence::NotReady => self.replicas[r].ready = false,
            Consequence::Nothing => {}
        }
        self.kernel
            .schedule(now + spec.period_ms, Ev::Probe(r as u16, kind as u8, inc));
    }

    /// Kills replica `r`'s container: every request on it fails; it starts again after
    /// its restart time (or stays stopped when scaled in).
    fn kill(&mut self, now: Millis, r: usize, stop: bool) {
        let rep = &mut self.replicas[r];
        rep.incarnation += 1;
        rep.phase = if stop {
            Phase::Stopped
        } else {
            Phase::Restarting
        };
        rep.up = false;
        rep.ready = false;
        if !stop {
            rep.restarts += 1;
        }
        rep.busy = 0;
        rep.outstanding = 0;
        rep.accept.clear();
        rep.on_dependency.iter_mut().for_each(|n| *n = 0);
        let inc = rep.incarnation;
        let victims: Vec<Key> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.replica as usize == r)
            .map(|(k, _)| k)
            .collect();
        for job_key in victims {
            if let Some(job) = self.jobs.get_mut(job_key) {
                if let Pending::InCall(c) = job.pending {
                    if let Some(call) = self.calls.get_mut(c) {
                        call.job_waiting = false;
                        call.caller_gone = true;
                        call.permit = false;
                    }
                }
                job.replica = NONE;
                job.pending = Pending::Idle;
            }
            self.answer(now, job_key, Answer::Failed);
        }
        if !stop {
            let restart = self.topology.replicas.restart_ms;
            self.kernel
                .schedule(now + restart, Ev::Restarted(r as u16, inc));
        }
    }

    /// A new container starts: the app answers after its start-up time; probes begin.
    fn start_container(&mut self, now: Millis, r: usize) {
        let startup = self.topology.replicas.startup_ms;
        let rep = &mut self.replicas[r];
        rep.phase = Phase::Running;
        rep.up = false;
        rep.probes.restart();
        // Kubernetes: with no readiness probe a running container is ready (listening or not).
        rep.ready = rep.probes.started && rep.probes.spec(ProbeKind::Readiness).is_none();
        let _ = rep.rebuild_stacks(&self.stacks, now);
        let inc = rep.incarnation;
        self.kernel
            .schedule(now + startup, Ev::AppUp(r as u16, inc));
        self.schedule_probes(r, false);
    }

    fn timeline(&mut self, now: Millis, i: usize) {
        let Some(e) = self.topology.timeline.get(i).cloned() else {
            return;
        };
        let dep = e
            .dependency
            .as_ref()
            .and_then(|n| self.deps.iter().position(|d| &d.name == n));
        match e.action {
            Action::Slow => {
                if let Some(d) = dep {
                    self.deps[d].health = match (e.latency_ms, e.factor) {
                        (Some(ms), _) => Health::SlowLatency(ms),
                        (None, Some(f)) => Health::SlowFactor(f),
                        _ => Health::Healthy,
                    };
                }
            }
            Action::Failing => {
                if let Some(d) = dep {
                    self.deps[d].health = Health::Failing(e.percent.unwrap_or(0.0));
                }
            }
            Action::Down => {
                if let Some(d) = dep {
                    self.deps[d].health = Health::Down;
                }
            }
            Action::Unreachable => {
                if let Some(d) = dep {
                    self.deps[d].health = Health::Unreachable;
                }
            }
            Action::Declines => {
                if let Some(d) = dep {
                    self.deps[d].decline_percent = e.percent.unwrap_or(0.0);
                }
            }
            Action::Healthy => {
                if let Some(d) = dep {
                    self.deps[d].health = Health::Healthy;
                }
            }
            Action::Demand => {
                let factor = e.factor.unwrap_or(1.0);
                for p in 0..self.pops.len() {
                    if e.clients.is_empty() || e.clients.contains(&self.pops[p].name) {
                        self.pops[p].set_multiplier(now, factor);
                        self.arrival_gen[p] = self.arrival_gen[p].wrapping_add(1);
                        self.schedule_arrival(p);
                    }
                }
            }
            Action::Scale => {
                let want = e.replicas.unwrap_or(0) as usize;
                let live: Vec<usize> = (0..self.replicas.len())
                    .filter(|&r| self.replicas[r].phase != Phase::Stopped)
                    .collect();
                if want > live.len() {
                    for _ in live.len()..want {
                        if self.replicas.len() >= super::topology::MAX_REPLICAS as usize {
                            break;
                        }
                        let Ok(mut rep) =
                            Replica::new(&self.topology.replicas, &self.stacks, now, false)
                        else {
                            break;
                        };
                        rep.phase = Phase::Restarting;
                        self.replicas.push(rep);
                        let r = self.replicas.len() - 1;
                        self.start_container(now, r);
                    }
                } else {
                    for &r in live.iter().skip(want) {
                        self.kill(now, r, true);
                    }
                }
            }
        }
    }

    // ---- the report ------------------------------------------------------------------------

    fn close_second(&mut self) {
        let now = self.boundary;
        let t_s = (now / 1_000 - 1) as u32;
        // Housekeeping: stale requests leave the waiting room.
        let mut stale = std::mem::take(&mut self.stale);
        if let Some(room) = &mut self.room {
            room.purge(now, &mut stale);
        }
        for w in stale.drain(..) {
            self.answer(now, w.job, Answer::Failed);
        }
        self.stale = stale;
        let mut classes = Classes::default();
        for c in 0..3 {
            let acc = &mut self.acc[c];
            let mut row = std::mem::take(&mut acc.row);
            let (p50, p99, max) = percentiles(&mut acc.latencies);
            acc.latencies.clear();
            row.p50_ms = p50;
            row.p99_ms = p99;
            row.max_ms = max;
            add_row(self.totals.get_mut(c), &row);
            *classes.get_mut(c) = row;
        }
        for (k, name) in self.key_names.iter().enumerate() {
            let row = std::mem::take(&mut self.keys_acc[k]);
            let class = self
                .pops
                .iter()
                .find(|p| p.key_name == Some(k))
                .map_or(0, |p| class_index(p.class));
            let total = self
                .totals
                .get_mut(class)
                .by_key
                .entry(name.clone())
                .or_default();
            add_key(total, &row);
            classes.get_mut(class).by_key.insert(name.clone(), row);
        }
        let mut clients = BTreeMap::new();
        for (p, pop) in self.pops.iter().enumerate() {
            let mut row = std::mem::take(&mut self.clients_acc[p]);
            let latencies = &mut self.clients_latencies[p];
            (row.p50_ms, row.p99_ms, row.max_ms) = percentiles(latencies);
            latencies.clear();
            add_key(&mut self.clients_total[p], &row);
            clients.insert(pop.name.clone(), row);
        }
        let goodput = (0..3).map(|c| classes.get(c).in_time).sum();
        let pay = self.payment;
        let mut breakers = BTreeMap::new();
        let mut bulkheads = BTreeMap::new();
        let dep_names: Vec<String> = self.deps.iter().map(|d| d.name.clone()).collect();
        let mut replicas = Vec::new();
        for (i, rep) in self.replicas.iter_mut().enumerate() {
            for (d, stack) in rep.stacks.iter_mut().enumerate() {
                if let Some(state) = stack.as_mut().and_then(|s| s.breaker_state(now)) {
                    breakers.insert(
                        format!("order-{}/{}", i + 1, dep_names[d]),
                        state.as_str().to_string(),
                    );
                }
                if let Some(b) = stack.as_ref().and_then(|s| s.bulkhead.as_ref()) {
                    bulkheads.insert(format!("order-{}/{}", i + 1, dep_names[d]), b.in_use());
                }
            }
            let on_payment = pay.map_or(0, |p| rep.peak_on_dependency[p]);
            self.max_busy = self.max_busy.max(rep.peak_busy);
            self.max_on_payment = self.max_on_payment.max(on_payment);
            replicas.push(ReplicaRow {
                name: format!("order-{}", i + 1),
                state: rep.state_name().to_string(),
                ready: rep.ready && rep.phase == Phase::Running,
                threads_busy: rep.peak_busy,
                threads_on_payment: on_payment,
                accept_queue: rep.accept.len(),
                restarts: rep.restarts,
                probes: ProbeRow {
                    startup: rep.probes.last[0],
                    liveness: rep.probes.last[1],
                    readiness: rep.probes.last[2],
                },
            });
            rep.peak_busy = rep.busy;
            for (d, peak) in rep.peak_on_dependency.iter_mut().enumerate() {
                *peak = rep.on_dependency[d];
            }
        }
        let mut dependencies = BTreeMap::new();
        for dep in &mut self.deps {
            let t = dep.take_tally();
            dependencies.insert(
                dep.name.clone(),
                dep_row(&t, dep.busy, dep.queue_len(), dep.health),
            );
        }
        let payment = pay
            .and_then(|p| dependencies.get(&self.deps[p].name).cloned())
            .unwrap_or_default();
        // Per second, like the door's and the dependencies' counts.
        let (length, oldest_ms, dropped_stale) = match &mut self.room {
            Some(room) => (
                room.len(),
                room.oldest_age(now),
                std::mem::take(&mut room.dropped_stale),
            ),
            None => (0, 0, 0),
        };
        self.seconds.push(Second {
            t_s,
            classes,
            clients,
            goodput,
            replicas,
            door: DoorRow {
                limit: self.door.limit(),
                in_flight: self.door.in_flight,
                rate_limited: std::mem::take(&mut self.door_rate_limited),
                shed: std::mem::take(&mut self.door_shed),
            },
            queue: QueueRow {
                length,
                oldest_ms,
                dropped_stale,
            },
            payment,
            dependencies,
            breakers,
            bulkheads,
        });
        self.boundary += 1_000;
    }

    /// Runs to the end and returns the report.
    pub fn finish(mut self) -> BoxOfficeRun {
        self.advance_to(self.end_ms);
        while !self.is_finished() {
            self.kernel.set_now(self.boundary);
            self.close_second();
        }
        let mut unfinished = [0u64; 3];
        for (_, u) in self.users.iter() {
            unfinished[class_index(u.class)] += 1;
        }
        let mut classes = self.totals.clone();
        let mut in_time_percent = BTreeMap::new();
        for c in 0..3 {
            let (p50, p99, max) = percentiles(&mut self.total_latencies[c]);
            let row = classes.get_mut(c);
            row.p50_ms = p50;
            row.p99_ms = p99;
            row.max_ms = max;
            let pct = (row.offered > 0).then(|| 100.0 * row.in_time as f64 / row.offered as f64);
            in_time_percent.insert(Class::ALL[c].name().to_string(), pct);
        }
        let mut breaker_openings = BTreeMap::new();
        let dep_names: Vec<String> = self.deps.iter().map(|d| d.name.clone()).collect();
        for (i, rep) in self.replicas.iter().enumerate() {
            for (d, s) in rep.stacks.iter().enumerate() {
                if let Some(s) = s.as_ref().filter(|s| s.breaker.is_some()) {
                    *breaker_openings
                        .entry(format!("order-{}/{}", i + 1, dep_names[d]))
                        .or_insert(0) += s.opened;
                }
            }
        }
        let payment = self
            .payment
            .map(|p| {
                let d = &self.deps[p];
                dep_row(&d.total, d.busy, d.queue_len(), d.health)
            })
            .unwrap_or_default();
        let clients = self
            .pops
            .iter()
            .zip(&self.clients_total)
            .map(|(p, row)| (p.name.clone(), row.clone()))
            .collect();
        let summary = Summary {
            classes,
            clients,
            unfinished,
            in_time_percent,
            capacity_rps: self.capacity(),
            max_threads_busy: self.max_busy,
            max_threads_on_payment: self.max_on_payment,
            breaker_openings,
            restarts: self.replicas.iter().map(|r| r.restarts).collect(),
            payment,
            events: self.kernel.handled(),
            truncated: self.truncated,
            trigger_s: self.topology.trigger_s,
            trigger_end_s: self.topology.trigger_end_s,
        };
        BoxOfficeRun {
            scenario: self.scenario,
            variant: self.variant,
            seed: self.seed,
            seconds: self.seconds,
            summary,
        }
    }

    /// Requests a second the replicas can serve at the start, from the configuration:
    /// threads over the mean thread time of the demand mix (local work plus each
    /// dependency's nominal service time).
    fn capacity(&self) -> f64 {
        let mut weighted = 0.0;
        let mut total = 0.0;
        for p in &self.pops {
            let e = &self.endpoints[p.endpoint];
            let time: f64 = e.work as f64
                + e.calls
                    .iter()
                    .map(|&d| self.deps[d as usize].spec.service_ms as f64)
                    .sum::<f64>();
            let rate = p.current_rps();
            weighted += rate * time;
            total += rate;
        }
        if weighted <= 0.0 {
            return 0.0;
        }
        let threads = f64::from(self.topology.replicas.count * self.topology.replicas.threads);
        threads * 1_000.0 / (weighted / total)
    }
}

fn dep_row(t: &dependency::Tally, busy: u32, queue: usize, health: Health) -> DependencyRow {
    DependencyRow {
        offered: t.offered,
        in_flight: busy,
        queue,
        served: t.served,
        wasted: t.wasted,
        dropped_stale: t.dropped_stale,
        refused: t.refused,
        charges: t.charges,
        duplicate_charges: t.duplicate_charges,
        deduplicated: t.deduplicated,
        declines: t.declines,
        state: match health {
            Health::Healthy => "healthy",
            Health::SlowLatency(_) | Health::SlowFactor(_) => "slow",
            Health::Failing(_) => "failing",
            Health::Down => "down",
            Health::Unreachable => "unreachable",
        }
        .to_string(),
    }
}

fn percentiles(v: &mut [u32]) -> (Option<u64>, Option<u64>, Option<u64>) {
    v.sort_unstable();
    let at = |percent| crate::model::nearest_rank(v, percent).map(u64::from);
    (at(50), at(99), at(100))
}

fn add_row(total: &mut ClassRow, row: &ClassRow) {
    total.offered += row.offered;
    total.attempts += row.attempts;
    total.admitted += row.admitted;
    total.rate_limited += row.rate_limited;
    total.shed += row.shed;
    total.in_time += row.in_time;
    total.late += row.late;
    total.failed += row.failed;
    total.fallback += row.fallback;
    total.served_late += row.served_late;
}

fn add_key(total: &mut KeyRow, row: &KeyRow) {
    total.offered += row.offered;
    total.attempts += row.attempts;
    total.admitted += row.admitted;
    total.rate_limited += row.rate_limited;
    total.shed += row.shed;
    total.in_time += row.in_time;
    total.late += row.late;
    total.failed += row.failed;
    total.fallback += row.fallback;
    total.max_ms = total.max_ms.max(row.max_ms);
    total.fallback_max_ms = total.fallback_max_ms.max(row.fallback_max_ms);
}

#[cfg(test)]
mod tests {
    use super::percentiles;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut values: Vec<u32> = (1..=200).rev().collect();
        assert_eq!(percentiles(&mut values), (Some(100), Some(198), Some(200)));
        assert_eq!(percentiles(&mut []), (None, None, None));
        assert_eq!(percentiles(&mut [4]), (Some(4), Some(4), Some(4)));
    }

    /// A second of a flash sale answers thousands of requests in the same millisecond count;
    /// a selection that is quadratic on repeated values (clippy.toml) took minutes on this.
    #[test]
    fn percentiles_of_many_equal_latencies() {
        let mut values = vec![12; 200_000];
        values.push(3_000);
        assert_eq!(percentiles(&mut values), (Some(12), Some(12), Some(3_000)));
    }
}
