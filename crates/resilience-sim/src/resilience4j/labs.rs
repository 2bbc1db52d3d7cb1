//! The labs' settings as Resilience4j instances (Demos 8 to 13), [`LabResilience4j`]: what
//! Resilience4j can express exactly, and a note for each thing it cannot (a retry budget,
//! full, equal or decorrelated jitter, a fallback, the lab's load model). The exporter
//! depends on the labs' tables, never the other way.

use super::{Instance, PolicyConfig};
use crate::duration::format_duration;
use crate::model::amplification::BackoffKind;
use crate::model::checkout::{
    self, Bulkheads, StackOrder, CONNECTIONS_PER_DEPENDENCY, PAYMENT_CONNECT_TIMEOUT_MS,
    PAYMENT_READ_TIMEOUT_MS, PLATFORM_THREADS, SHARED_BULKHEAD, SHIPPING_READ_TIMEOUT_MS,
};
use crate::model::shared_pool::PoolBulkhead;
use crate::outcome::Outcome;
use crate::policy::bulkhead::{BulkheadConfig, ThreadPoolBulkheadConfig};
use crate::policy::retry::{self, IntervalFunction, Jitter, RetryConfig};
use crate::policy::time_limiter::TimeLimiterConfig;
use crate::scenario::boxoffice_lab::BoxOfficeLab;
use crate::scenario::brownout_lab::BrownoutLab;
use crate::scenario::checkout_lab::CheckoutLab;
use crate::scenario::labs::{AmplificationLab, JitterLab};
use crate::scenario::pool_lab::PoolLab;
use crate::scenario::retry_policies_lab::RetryPoliciesLab;
use crate::scenario::sandbox::SandboxSettings;

/// A lab's config as Resilience4j instances ("Show as Resilience4j config").
pub trait LabResilience4j {
    fn resilience4j(&self) -> Vec<Instance>;
}

macro_rules! lab_resilience4j {
    ($($lab:ty => $export:ident),* $(,)?) => {$(
        impl LabResilience4j for $lab {
            fn resilience4j(&self) -> Vec<Instance> {
                $export(self)
            }
        }
    )*};
}

lab_resilience4j! {
    AmplificationLab => amplification,
    JitterLab => jitter,
    SandboxSettings => sandbox,
    PoolLab => pool,
    BrownoutLab => brownout,
    CheckoutLab => checkout,
    BoxOfficeLab => boxoffice,
    RetryPoliciesLab => retry_policies,
}

/// Demo 15: the Resilience4j line's Retry. The other policies are other libraries' rules
/// (or a budget shared by every call), which Resilience4j has no setting for.
pub fn retry_policies(lab: &RetryPoliciesLab) -> Vec<Instance> {
    vec![Instance::new(
        "server",
        PolicyConfig::Retry(lab.settings.resilience4j.clone()),
    )
    .note("The Resilience4j line retries this way; the retry budget, token bucket and Finagle lines retry the same way, within their shared brake.")
    .note("The retry budget, the token bucket, Finagle's RetryBudget, gRPC's throttling, the AWS retry quota and adaptive throttling have no Resilience4j setting: each caps the retries of all calls together, and max-attempts caps only one call's.")
    .note("The server, its failure rate, the load and the slowdown are the lab's world, not settings.")]
}

/// The note for a jitter mode Resilience4j does not have.
fn jitter_note(jitter: Jitter) -> Option<String> {
    (jitter != Jitter::None).then(|| [
        jitter.describe(),
        " has no Resilience4j setting: this is the backoff without it; Resilience4j's only randomization is enable-randomized-wait, a wait within ± randomized-wait-factor of the backoff.",
    ].concat())
}

/// The end of a retry budget's note.
const BUDGET: &str = ") has no Resilience4j setting: max-attempts caps the retries of one call, not of all calls together.";

/// The note of a budget of `percent` retries per 100 requests, named `what`.
fn budget_note(what: &str, percent: f64) -> String {
    format!("{what} ({percent} retries per 100 requests{BUDGET}")
}

/// Resilience4j truncates each exponential step; the labs multiply first.
fn truncation_note(multiplier: f64) -> Option<String> {
    (multiplier.fract() != 0.0).then(|| {
        "Resilience4j rounds each exponential step down to whole milliseconds; the lab multiplies first, so later waits can differ by a few milliseconds.".to_string()
    })
}

/// The retries of Demo 8's red and blue lines.
pub fn amplification(lab: &AmplificationLab) -> Vec<Instance> {
    let c = &lab.config;
    let (wait, function) = match c.backoff {
        BackoffKind::None => (0, None),
        BackoffKind::Fixed => (c.backoff_base_ms, None),
        BackoffKind::Exponential => (
            c.backoff_base_ms,
            Some(IntervalFunction::Exponential {
                initial_interval: c.backoff_base_ms,
                multiplier: c.backoff_multiplier,
                max_interval: c.backoff_cap_ms,
            }),
        ),
    };
    let retry = RetryConfig {
        max_attempts: c.retries + 1,
        wait_duration: wait,
        interval_function: function,
        ..RetryConfig::default()
    };
    let mut instance = Instance::new("provider", PolicyConfig::Retry(retry)).note(
        "The red and blue lines retry this way; the grey line makes one call (max-attempts: 1).",
    );
    if c.backoff == BackoffKind::None {
        instance = instance
            .note("The lab retries in the next 100 ms step; wait-duration: 0ms retries at once.");
    } else {
        instance.notes.extend(jitter_note(c.jitter));
    }
    if c.backoff == BackoffKind::Exponential {
        instance.notes.extend(truncation_note(c.backoff_multiplier));
    }
    vec![instance
        .note([
            "The blue line's retry budget (",
            &c.budget_percent.to_string(),
            " retries per 100 requests, over ",
            &format_duration(c.budget_ttl_ms),
            BUDGET,
        ].concat())
        .note("Demand, capacity, the degradation and the wasted work are the lab's world, not settings.")]
}

/// The clients' backoff of Demo 9.
pub fn jitter(lab: &JitterLab) -> Vec<Instance> {
    let c = &lab.config;
    let retry = RetryConfig {
        max_attempts: i32::MAX as u32,
        wait_duration: c.base_ms,
        interval_function: Some(IntervalFunction::Exponential {
            initial_interval: c.base_ms,
            multiplier: c.multiplier,
            max_interval: c.cap_ms,
        }),
        ..RetryConfig::default()
    };
    let mut instance = Instance::new("server", PolicyConfig::Retry(retry)).note(
        "The clients retry until they are served; Resilience4j needs a bound, so max-attempts is Java's largest int.",
    );
    instance.notes.extend(jitter_note(c.mode));
    instance.notes.extend(truncation_note(c.multiplier));
    vec![instance.note("The clients and the server's capacity are the lab's world, not settings.")]
}

/// Demo 10's breaker.
pub fn sandbox(settings: &SandboxSettings) -> Vec<Instance> {
    vec![Instance::new(
        super::tick::SANDBOX_INSTANCE,
        PolicyConfig::CircuitBreaker(settings.config.clone()),
    )
    .note([
        "The fallback ladder (a cache of ",
        &format_duration(settings.cache_ttl_ms),
        ", a degraded default ",
        if settings.degraded_default { "on" } else { "off" },
        ") is the sandbox's own: in Resilience4j a fallback is a method of your code (fallbackMethod), not a setting.",
    ].concat())]
}

/// Demo 11's bulkhead on the vendor call: the chosen kind, or both (not in use) for none.
pub fn pool(lab: &PoolLab) -> Vec<Instance> {
    let c = &lab.config;
    let semaphore = BulkheadConfig {
        max_concurrent_calls: c.max_concurrent_calls,
        max_wait_duration: c.max_wait_duration,
    };
    let thread_pool = ThreadPoolBulkheadConfig {
        core_thread_pool_size: c.core_thread_pool_size,
        max_thread_pool_size: c.max_thread_pool_size,
        queue_capacity: c.queue_capacity,
        keep_alive_duration: c.keep_alive_duration,
    };
    let world = [
        "The shared pool (",
        &c.threads.to_string(),
        " request threads, an accept queue of ",
        &c.accept_count.to_string(),
        ") is the servlet container's (server.tomcat.threads.max, server.tomcat.accept-count), not Resilience4j's.",
    ].concat();
    let waiting = "A call waiting for a permit, or in the thread pool's queue, still holds its request thread.";
    let semaphore = Instance::new("vendor", PolicyConfig::Bulkhead(semaphore));
    let thread_pool = Instance::new("vendor", PolicyConfig::ThreadPoolBulkhead(thread_pool));
    let instances = match c.bulkhead {
        PoolBulkhead::Semaphore => vec![semaphore],
        PoolBulkhead::ThreadPool => vec![thread_pool],
        PoolBulkhead::None => vec![semaphore, thread_pool]
            .into_iter()
            .map(|i| i.note("Not in use: the lab's bulkhead is none."))
            .collect(),
    };
    instances
        .into_iter()
        .map(|i| i.note(waiting).note(world.clone()))
        .collect()
}

/// The pricing stack of Demo 12, with the fixes applied so far.
pub fn brownout(lab: &BrownoutLab) -> Vec<Instance> {
    let c = &lab.config;
    let bulkhead = c.bulkhead_config();
    let held = u64::from(bulkhead.max_thread_pool_size) + u64::from(bulkhead.queue_capacity);
    let mut out = vec![
        Instance::new("pricing", PolicyConfig::ThreadPoolBulkhead(bulkhead)).note([
            "A queued call still holds an order request thread: this bulkhead can hold ",
            &held.to_string(),
            " of order's ",
            &c.order_threads.to_string(),
            " threads.",
        ].concat()),
        Instance::new("pricing", PolicyConfig::CircuitBreaker(c.breaker_config())).note(
            if c.out_of_band_cache() {
                "Fix 4's price cache, filled out of band, is code of your own (a fallbackMethod and a batch job), not a Resilience4j setting.".to_string()
            } else {
                [
                    "The fallback cache of prices (TTL ",
                    &format_duration(c.cache_ttl_ms),
                    ") is code of your own (a fallbackMethod), not a Resilience4j setting.",
                ].concat()
            },
        ),
    ];
    let mut retry = Instance::new("pricing", PolicyConfig::Retry(c.retry_config()));
    if let Some(budget) = c.budget_config() {
        retry = retry.note(budget_note("Fix 3's retry budget", budget.retry_percent));
    }
    out.push(retry);
    match c.fix_timeout() {
        Some(t) if t.releases_resource() => out[0].notes.push([
            "Fix 1's ",
            &format_duration(t.duration),
            " timeout is the HTTP client's read timeout inside the call (for example RestClient's readTimeout), not a Resilience4j setting: it frees the bulkhead thread when it fires.",
        ].concat()),
        Some(t) => out.push(
            Instance::new(
                "pricing",
                PolicyConfig::TimeLimiter(TimeLimiterConfig {
                    timeout_duration: t.duration,
                    cancel_running_future: true,
                }),
            )
            .note(
                "It frees the caller, not the bulkhead thread: the timed-out call runs on until pricing answers (the CompletionStage path never cancels it).",
            ),
        ),
        None => {}
    }
    out
}

/// The note for a retry that would retry what the simulation's guard never retries.
pub fn local_refusal_note(config: &RetryConfig) -> Option<String> {
    let retried: Vec<&str> = [
        Outcome::CallNotPermitted,
        Outcome::BulkheadFull,
        Outcome::NoFreeThread,
        Outcome::BusinessError,
    ]
    .into_iter()
    .filter(|&o| !(o.is_local_refusal() && config.retry_on_local_refusals))
    .filter(|&o| {
        (config.retry_exceptions.is_empty()
            || retry::exception_matches(o, &config.retry_exceptions))
            && !retry::exception_matches(o, &config.ignore_exceptions)
    })
    .map(|o| retry::exception_hierarchy(o)[0])
    .collect();
    (!retried.is_empty()).then(|| {
        [
            "The simulation never retries ",
            &retried.join(", "),
            "; Resilience4j would with these settings: add them to ignore-exceptions to match.",
        ]
        .concat()
    })
}

/// The payment and shipping stacks of Demo 13.
pub fn checkout(lab: &CheckoutLab) -> Vec<Instance> {
    let order = lab.config.order;
    let retry = |name: &str, config: RetryConfig| {
        let note = local_refusal_note(&config);
        let mut instance = Instance::new(name, PolicyConfig::Retry(config));
        instance.notes.extend(note);
        instance
    };
    let mut out = vec![
        Instance::new("payment", PolicyConfig::CircuitBreaker(checkout::payment_breaker_config()))
            .note([
                "The HTTP client's timeouts (connect ",
                &format_duration(PAYMENT_CONNECT_TIMEOUT_MS),
                ", read ",
                &format_duration(PAYMENT_READ_TIMEOUT_MS),
                " for payment, ",
                &format_duration(SHIPPING_READ_TIMEOUT_MS),
                " for shipping) are set on the client, not in Resilience4j: they free the connection, a time limiter would not.",
            ].concat())
            .note([
                "The request threads (",
                &PLATFORM_THREADS.to_string(),
                " platform threads, or virtual threads and ",
                &CONNECTIONS_PER_DEPENDENCY.to_string(),
                " connections per dependency) are the server's and the HTTP client's, not Resilience4j settings.",
            ].concat()),
        retry("payment", checkout::payment_retry_config()),
        Instance::new("shipping", PolicyConfig::CircuitBreaker(checkout::shipping_breaker_config())),
        retry("shipping", checkout::shipping_retry_config()),
    ];
    match lab.config.bulkheads {
        Bulkheads::Separate => {
            out.push(Instance::new("payment", PolicyConfig::Bulkhead(checkout::bulkhead_config(20))));
            out.push(Instance::new("shipping", PolicyConfig::Bulkhead(checkout::bulkhead_config(8))));
        }
        Bulkheads::Shared => out.push(
            Instance::new("checkout", PolicyConfig::Bulkhead(checkout::bulkhead_config(SHARED_BULKHEAD)))
                .note("One bulkhead shared by payment and shipping: the permits a stalled quoter holds are permits payment lacks."),
        ),
        Bulkheads::None => {}
    }
    if order == StackOrder::BreakerOutsideRetry {
        if let Some(first) = out.first_mut() {
            first.notes.push("The order CircuitBreaker(Retry(Bulkhead(call))) is not a setting of an instance: with Spring's annotations it comes from resilience4j.retry.retry-aspect-order and resilience4j.circuitbreaker.circuit-breaker-aspect-order; keep Resilience4j's default order.".to_string());
        }
    }
    out
}

/// Demo 14: every stack of the order replicas, one instance of each layer per dependency.
pub fn boxoffice(lab: &BoxOfficeLab) -> Vec<Instance> {
    let Ok(topology) = lab.topology() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, stack) in &topology.replicas.stacks {
        let timeouts = [
            "The HTTP client's timeouts (connect ",
            &format_duration(stack.connect_timeout_ms),
            ", read ",
            &stack
                .read_timeout_ms
                .map_or("none".to_string(), format_duration),
            ") are set on the client, not in Resilience4j.",
        ]
        .concat();
        let mut first = true;
        let mut push = |config: PolicyConfig, out: &mut Vec<Instance>| {
            let mut instance = Instance::new(name.clone(), config);
            if std::mem::take(&mut first) {
                instance = instance.note(timeouts.clone());
                if let Some(fallback) = &stack.fallback {
                    instance = instance.note(
                        [
                            "The fallback (“",
                            fallback,
                            "”) is a fallbackMethod of your own, on the outermost layer.",
                        ]
                        .concat(),
                    );
                }
                if stack.idempotency_keys {
                    instance = instance.note(
                        "One idempotency key per purchase, sent with every attempt: the provider's feature, not Resilience4j's."
                            .to_string(),
                    );
                }
            }
            out.push(instance);
        };
        if let Some(c) = &stack.circuit_breaker {
            push(PolicyConfig::CircuitBreaker(c.clone()), &mut out);
        }
        if let Some(c) = &stack.bulkhead {
            push(PolicyConfig::Bulkhead(c.clone()), &mut out);
        }
        if let Some(c) = &stack.rate_limiter {
            push(PolicyConfig::RateLimiter(c.clone()), &mut out);
        }
        if let Some(c) = &stack.time_limiter {
            push(PolicyConfig::TimeLimiter(c.clone()), &mut out);
        }
        if let Some(c) = &stack.retry {
            let mut instance = Instance::new(name.clone(), PolicyConfig::Retry(c.clone()));
            if let Some(b) = &stack.retry_budget {
                instance = instance.note(budget_note("The retry budget", b.retry_percent));
            }
            out.push(instance);
        }
    }
    out
}
