//! The tick demos (1 to 7) and the breaker sandbox (Demo 10): their settings out and in.
//!
//! A tick demo shows the policies its protection uses, plus its timeout:
//! - `circuitbreaker.instances.recommendations`: the breaker guarding recommendations;
//! - `bulkhead.instances.recommendations` and `.payment`: the semaphore bulkhead each
//!   dependency gets, with the same settings;
//! - `timelimiter.instances.recommendations`: the timeout (3 ticks, one tick = one second),
//!   with a note: in the model it frees the thread, as a read timeout does.
//!
//! On import, each kind's instance is the one named `recommendations`, else the only one of
//! its kind; several and none of that name is an error. A `payment` bulkhead must equal
//! recommendations' (the model has one bulkhead setting). A retry or a thread-pool bulkhead
//! is read and checked but has no place in the model: a note, not an error. A time
//! limiter's timeout becomes the model's timeout in whole ticks (1 s to 20 s);
//! [`apply_to_tick`], what a demo page calls, refuses one that differs from the demo's
//! (the page's world is the spec's), while [`import_tick`] (the CLI's `run`) takes it.

use super::import::locate_in;
use super::{kebab, Instance, Kind, PolicyConfig};
use crate::error::ConfigError;
use crate::model::tick::{TickConfig, MAX_TIMEOUT_TICKS, TICK_MS};
use crate::policy::bulkhead::BulkheadConfig;
use crate::policy::circuit_breaker::CircuitBreakerConfig;
use crate::policy::time_limiter::TimeLimiterConfig;
use crate::scenario::sandbox::BreakerSandbox;

/// The dependency the tick demos protect.
pub const RECOMMENDATIONS: &str = "recommendations";
/// The dependency that shares the thread pool.
pub const PAYMENT: &str = "payment";
/// The sandbox's breaker's name in a fragment.
pub const SANDBOX_INSTANCE: &str = "dependency";

/// The settings of a tick demo: the policies its protection uses, and its timeout.
pub fn tick_instances(config: &TickConfig) -> Vec<Instance> {
    let mut out = Vec::new();
    if config.protection.has_breaker() {
        out.push(
            Instance::new(
                RECOMMENDATIONS,
                PolicyConfig::CircuitBreaker(config.circuit_breaker.clone()),
            )
            .note("One tick of the demo is one second of the breaker's time.")
            .note(if config.protection.has_bulkhead() {
                "The breaker wraps the bulkhead (Resilience4j's default order): a BulkheadFullException and a call that found no free thread are failures it records."
            } else {
                "A call that found no free thread is a failure the breaker records."
            }),
        );
    }
    if config.protection.has_bulkhead() {
        for name in [RECOMMENDATIONS, PAYMENT] {
            out.push(
                Instance::new(name, PolicyConfig::Bulkhead(config.bulkhead.clone())).note(
                    "Each dependency has a bulkhead of its own with these settings; in the tick model a call over the cap is refused at once (max-wait-duration stays 0).",
                ),
            );
        }
    }
    out.push(
        Instance::new(
            RECOMMENDATIONS,
            PolicyConfig::TimeLimiter(TimeLimiterConfig {
                timeout_duration: u64::from(config.world.timeout_ticks) * TICK_MS,
                cancel_running_future: true,
            }),
        )
        .note("The demo's timeout frees the call's thread when it fires, as an HTTP client's read timeout does; a time limiter only stops the caller waiting and leaves the call running (Demo 12 shows the difference)."),
    );
    out
}

/// What a fragment changes in a tick demo.
#[derive(Debug, Clone, PartialEq)]
pub struct TickImport {
    pub circuit_breaker: CircuitBreakerConfig,
    pub bulkhead: BulkheadConfig,
    /// The timeout in ticks (the demo's own when the fragment has no time limiter).
    pub timeout_ticks: u32,
    /// What was read but not used, and the instances' own notes.
    pub notes: Vec<String>,
}

/// The instance of `kind` a model uses: the one named `name`, else the only one. Several
/// and none of that name: an error that lists them.
fn pick<'a>(
    instances: &'a [Instance],
    kind: Kind,
    name: &str,
    errors: &mut Vec<String>,
) -> Option<&'a Instance> {
    let of_kind: Vec<&Instance> = instances
        .iter()
        .filter(|i| i.config.kind() == kind)
        .collect();
    match of_kind.iter().find(|i| i.name == name) {
        Some(i) => Some(*i),
        None if of_kind.len() == 1 => Some(of_kind[0]),
        None if of_kind.is_empty() => None,
        None => {
            errors.push(
                [
                    "resilience4j.",
                    kind.section(),
                    ".instances: ",
                    &of_kind.len().to_string(),
                    " instances (",
                    &of_kind
                        .iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    ") and none named ",
                    name,
                    ": choose the one to use (`--instance NAME` in the CLI), or name it `",
                    name,
                    "`",
                ]
                .concat(),
            );
            None
        }
    }
}

fn unused(instance: &Instance, why: &str) -> String {
    [
        instance.config.kind().label(),
        " `",
        &instance.name,
        "` is read and checked but not used: ",
        why,
        ".",
    ]
    .concat()
}

/// The instances a tick demo plays with `name` ([`import_tick_as`]): its breaker, bulkhead
/// and time limiter, each when the fragment has one to play.
pub fn tick_roles<'a>(instances: &'a [Instance], name: &str) -> Vec<&'a Instance> {
    let mut ignored = Vec::new();
    [Kind::CircuitBreaker, Kind::Bulkhead, Kind::TimeLimiter]
        .into_iter()
        .filter_map(|kind| pick(instances, kind, name, &mut ignored))
        .collect()
}

/// The tick demo `config` with a fragment's instances (see the module docs); every
/// problem is one line naming the key path.
pub fn import_tick(config: &TickConfig, instances: &[Instance]) -> Result<TickImport, Vec<String>> {
    import_tick_as(config, instances, RECOMMENDATIONS)
}

/// [`import_tick`] with the instances named `name` playing recommendations' (of each kind,
/// the one of that name, else the only one): a file whose instances are named for its
/// own services (`erpCircuitBreaker`) is read as written, the learner choosing the role.
pub fn import_tick_as(
    config: &TickConfig,
    instances: &[Instance],
    name: &str,
) -> Result<TickImport, Vec<String>> {
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    let breaker = pick(instances, Kind::CircuitBreaker, name, &mut errors);
    let bulkhead = pick(instances, Kind::Bulkhead, name, &mut errors);
    let limiter = pick(instances, Kind::TimeLimiter, name, &mut errors);
    let mut result = TickImport {
        circuit_breaker: config.circuit_breaker.clone(),
        bulkhead: config.bulkhead.clone(),
        timeout_ticks: config.world.timeout_ticks,
        notes: Vec::new(),
    };
    for instance in instances {
        let chosen = [breaker, bulkhead, limiter]
            .iter()
            .any(|c| c.is_some_and(|c| std::ptr::eq(c, instance)));
        match (&instance.config, chosen) {
            (PolicyConfig::CircuitBreaker(c), true) => result.circuit_breaker = c.clone(),
            (PolicyConfig::Bulkhead(c), true) => result.bulkhead = c.clone(),
            (PolicyConfig::TimeLimiter(c), true) => {
                let ticks = c.timeout_duration / TICK_MS;
                if c.timeout_duration % TICK_MS != 0
                    || !(1..=u64::from(MAX_TIMEOUT_TICKS)).contains(&ticks)
                {
                    errors.push([
                        &instance.path(),
                        ".timeout-duration: the tick model times out after whole ticks (one tick is one second): 1s to ",
                        &MAX_TIMEOUT_TICKS.to_string(),
                        "s",
                    ].concat());
                } else {
                    result.timeout_ticks = ticks as u32;
                    notes.push("The timeout frees the call's thread when it fires in the tick model, as a read timeout does.".to_string());
                }
            }
            (PolicyConfig::Bulkhead(_), false) if instance.name == PAYMENT => {
                if bulkhead.is_some_and(|b| b.config != instance.config) {
                    errors.push([
                        instance.path().as_str(),
                        ": the tick model gives both dependencies the same bulkhead settings: make it equal to `",
                        bulkhead.map_or("", |b| b.name.as_str()),
                        "`'s",
                    ].concat());
                }
            }
            (PolicyConfig::Retry(_), _) => {
                notes.push(unused(instance, "the tick model has no retry"))
            }
            (PolicyConfig::ThreadPoolBulkhead(_), _) => notes.push(unused(
                instance,
                "the tick model's bulkheads are semaphore bulkheads",
            )),
            (PolicyConfig::RateLimiter(_), _) => {
                notes.push(unused(instance, "the tick model has no rate limiter"))
            }
            (_, false) => notes.push(unused(
                instance,
                "the tick model has one of each, for recommendations",
            )),
        }
        if chosen {
            notes.extend(instance.notes.iter().cloned());
        }
    }
    let next = TickConfig {
        circuit_breaker: result.circuit_breaker.clone(),
        bulkhead: result.bulkhead.clone(),
        world: crate::model::tick::TickWorld {
            timeout_ticks: result.timeout_ticks,
            ..config.world.clone()
        },
        ..config.clone()
    };
    if errors.is_empty() {
        if let Err(e) = next.validate() {
            let owner = match e.field.as_str() {
                "maxWaitDuration" | "maxConcurrentCalls" => bulkhead,
                "timeoutTicks" => limiter,
                _ => breaker,
            };
            errors.push(path_error(&e, owner));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    result.notes = notes;
    Ok(result)
}

/// A model's refusal of an instance's value, as `key.path: message`.
fn path_error(e: &ConfigError, owner: Option<&Instance>) -> String {
    match owner {
        Some(instance) => locate_in(e, &instance.path(), 0, |_| None).1,
        None => [&kebab(&e.field), ": ", &e.message].concat(),
    }
}

/// What a tick demo's page applies: the breaker and the bulkhead (see [`import_tick`]). A
/// time limiter must keep the demo's own timeout: the page's world is the spec's.
pub fn apply_to_tick(
    config: &TickConfig,
    instances: &[Instance],
) -> Result<(CircuitBreakerConfig, BulkheadConfig), Vec<String>> {
    apply_to_tick_as(config, instances, RECOMMENDATIONS)
}

/// [`apply_to_tick`] with the instances named `name` playing recommendations'
/// ([`import_tick_as`]).
pub fn apply_to_tick_as(
    config: &TickConfig,
    instances: &[Instance],
    name: &str,
) -> Result<(CircuitBreakerConfig, BulkheadConfig), Vec<String>> {
    let import = import_tick_as(config, instances, name)?;
    if import.timeout_ticks != config.world.timeout_ticks {
        let path = instances
            .iter()
            .find(|i| i.config.kind() == Kind::TimeLimiter)
            .map_or_else(|| "resilience4j.timelimiter".to_string(), Instance::path);
        let ticks = config.world.timeout_ticks.to_string();
        return Err(vec![[
            &path,
            ".timeout-duration: the demo's timeout is ",
            &ticks,
            "s (",
            &ticks,
            " ticks) and the page does not change it (`resilience-sim run --resilience4j` replays a scenario with another)",
        ].concat()]);
    }
    Ok((import.circuit_breaker, import.bulkhead))
}

/// Replaces the sandbox's breaker config by the fragment's circuit breaker (the one named
/// `dependency`, else the only one) and replays the session on it. Returns the notes
/// (instances read but not used, and the instance's own); a refusal changes nothing.
pub fn apply_to_sandbox(
    sandbox: &mut BreakerSandbox,
    instances: &[Instance],
) -> Result<Vec<String>, Vec<String>> {
    apply_to_sandbox_as(sandbox, instances, SANDBOX_INSTANCE)
}

/// [`apply_to_sandbox`] with the circuit breaker named `name` (else the only one).
pub fn apply_to_sandbox_as(
    sandbox: &mut BreakerSandbox,
    instances: &[Instance],
    name: &str,
) -> Result<Vec<String>, Vec<String>> {
    let mut errors = Vec::new();
    let breaker = pick(instances, Kind::CircuitBreaker, name, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let Some(breaker) = breaker else {
        return Err(vec![
            "resilience4j.circuitbreaker: the fragment has no circuit breaker instance for the sandbox".to_string(),
        ]);
    };
    let PolicyConfig::CircuitBreaker(config) = &breaker.config else {
        return Err(vec!["not a circuit breaker".to_string()]);
    };
    sandbox
        .set_config(config.clone())
        .map_err(|e| vec![path_error(&e, Some(breaker))])?;
    let mut notes: Vec<String> = instances
        .iter()
        .filter(|i| !std::ptr::eq(*i, breaker))
        .map(|i| unused(i, "the sandbox has one circuit breaker and nothing else"))
        .collect();
    notes.extend(breaker.notes.iter().cloned());
    Ok(notes)
}
