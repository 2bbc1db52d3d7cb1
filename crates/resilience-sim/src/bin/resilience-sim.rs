//! `resilience-sim`: the engine on the command line, for course authors and tests.
//!
//! Output is JSON on stdout. Bad input gives a one-line error on stderr and exit code 2.

use resilience_sim::resilience4j::labs::LabResilience4j;
use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use resilience_sim::error::{excerpt, one_line};
use resilience_sim::model::amplification::{self, AmplificationPolicy};
use resilience_sim::model::jitter as jitter_lab;
use resilience_sim::resilience4j as r4j;
use resilience_sim::scenario::brownout_lab::BrownoutLab;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::scenario::lab_session::{Control, LabModel, LabSession, MAX_SEED};
use resilience_sim::scenario::labs::{AmplificationLab, JitterLab};
use resilience_sim::scenario::pool_lab::PoolLab;
use resilience_sim::scenario::retry_policies_lab::{settings_prefix, RetryPoliciesLab};
use resilience_sim::scenario::sandbox::SandboxSettings;
use resilience_sim::scenario::{breaker_script, catalogue, scripts, Format, Scenario};

#[derive(Parser)]
#[command(
    name = "resilience-sim",
    version,
    about = "Resilience4j policies, simulated exactly"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run numbered demo N and print its trace.
    Demo {
        number: u32,
        /// Ticks to run (the demo's own length by default).
        #[arg(long)]
        ticks: Option<u32>,
        /// Print the demo's scenario as TOML instead of running it (a start for your own).
        #[arg(long, conflicts_with = "ticks")]
        scenario: bool,
        /// Print the demo's settings as Resilience4j config instead of running it: yaml
        /// (Spring Boot application.yml, the default), properties or java. Labs (8 to 15)
        /// print their default settings.
        #[arg(long, value_name = "FORMAT", num_args = 0..=1, default_missing_value = "yaml", conflicts_with_all = ["ticks", "scenario"])]
        resilience4j: Option<String>,
    },
    /// Run a scenario file (.toml or .json) and print its trace.
    Run {
        file: String,
        #[arg(long)]
        ticks: Option<u32>,
        /// A Resilience4j fragment (application.yml or .properties) whose circuit breaker,
        /// bulkheads and time limiter replace the scenario's before the run.
        #[arg(long, value_name = "FRAGMENT")]
        resilience4j: Option<String>,
        /// The Spring profile whose documents of the fragment are read too (by default only
        /// the documents without a profile condition).
        #[arg(long, value_name = "NAME", requires = "resilience4j")]
        profile: Option<String>,
        /// Which of the fragment's instances play recommendations (of each kind, the one
        /// of that name, else the only one; by default those named `recommendations`).
        #[arg(long, value_name = "NAME", requires = "resilience4j")]
        instance: Option<String>,
    },
    /// Drive one circuit breaker by a JSON script; print one JSON line per step.
    Breaker {
        file: String,
        /// A Resilience4j fragment whose circuit breaker replaces the script's config.
        #[arg(long, value_name = "FRAGMENT")]
        resilience4j: Option<String>,
        /// Which of the fragment's circuitbreaker instances (needed when it has several).
        #[arg(long, value_name = "NAME", requires = "resilience4j")]
        instance: Option<String>,
        /// The Spring profile whose documents of the fragment are read too.
        #[arg(long, value_name = "NAME", requires = "resilience4j")]
        profile: Option<String>,
    },
    /// Drive one rate limiter (AtomicRateLimiter) by a JSON script; one JSON line per step.
    Ratelimiter {
        file: String,
        /// A Resilience4j fragment whose rate limiter replaces the script's config.
        #[arg(long, value_name = "FRAGMENT")]
        resilience4j: Option<String>,
        /// Which of the fragment's ratelimiter instances (needed when it has several).
        #[arg(long, value_name = "NAME", requires = "resilience4j")]
        instance: Option<String>,
        /// The Spring profile whose documents of the fragment are read too.
        #[arg(long, value_name = "NAME", requires = "resilience4j")]
        profile: Option<String>,
    },
    /// Drive one retry by a JSON script of calls and their outcomes; one JSON line per step.
    Retry { file: String },
    /// Drive one semaphore bulkhead by a JSON script; one JSON line per step.
    Bulkhead { file: String },
    /// Drive one thread-pool bulkhead by a JSON script; one JSON line per step.
    ThreadPoolBulkhead { file: String },
    /// Drive one time limiter by a JSON script of calls; one JSON line per step.
    Timelimiter { file: String },
    /// Run a lab and print its chart data as one JSON object. Its controls are those of
    /// the lab's page, by the same names: `lab jitter --mode full --seed 7`; `lab --help`
    /// lists them.
    Lab {
        /// amplification (Demo 8), jitter (Demo 9), pool (Demo 11), brownout (Demo 12),
        /// checkout (Demo 13), boxoffice (Demo 14's engine) or retry-policies (Demo 15).
        lab: String,
        /// `--NAME VALUE` per control (durations in ms, or as `2s` or `1500ms`);
        /// amplification also takes `--policy none|retries|budget` (default retries);
        /// pool also takes `--bulkhead N`, `--bulkhead-kind` and kebab-case names;
        /// brownout takes kebab-case names and `--queue N`; boxoffice takes `--scenario`,
        /// `--variant`, `--seed`, `--seconds`, `--file` and any setting of the scenario
        /// file by its path (`--dependencies.payment.workers 20`); retry-policies takes
        /// `--experiment sweep|map`, `--policies LIST`, `--seed N`, the grid's axes and
        /// each policy's settings by their path (`--grpc.maxTokens 20`).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "--NAME VALUE"
        )]
        controls: Vec<String>,
    },
}

fn main() -> ExitCode {
    // `lab --help` lists every control, read from the labs' tables.
    let help = format!(
        "{}\n\n{}\n\n{}\n\n{}\n\n{}\n\n{}\n\n{}",
        controls_help::<AmplificationLab>(),
        controls_help::<JitterLab>(),
        controls_help::<PoolLab>(),
        controls_help::<BrownoutLab>(),
        controls_help::<CheckoutLab>(),
        boxoffice_help(),
        retry_policies_help()
    );
    let command = Cli::command().mut_subcommand("lab", |lab| lab.after_help(help));
    let parsed = command
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version go to stdout and succeed.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            return fail(first.trim_start_matches("error: "));
        }
    };
    match execute(cli.command) {
        Ok(lines) => {
            let mut out = std::io::stdout().lock();
            for line in lines {
                // A closed pipe (e.g. `| head`) is not an error worth a panic.
                if writeln!(out, "{line}").is_err() {
                    break;
                }
            }
            ExitCode::SUCCESS
        }
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    // One line, however long or multi-line the message (a serde error, a quoted value).
    let _ = writeln!(std::io::stderr(), "resilience-sim: {}", one_line(message));
    ExitCode::from(2)
}

fn execute(command: Command) -> Result<Vec<String>, String> {
    match command {
        Command::Demo {
            number,
            ticks,
            scenario,
            resilience4j,
        } => {
            if let Some(format) = resilience4j {
                return demo_resilience4j(number, &format);
            }
            if let Some(lab) = catalogue::lab(number) {
                let command = match lab.lab {
                    catalogue::Lab::Amplification => "lab amplification",
                    catalogue::Lab::Jitter => "lab jitter",
                    catalogue::Lab::Sandbox => "breaker FILE",
                    catalogue::Lab::Pool => "lab pool",
                    catalogue::Lab::Brownout => "lab brownout",
                    catalogue::Lab::Checkout => "lab checkout",
                    catalogue::Lab::BoxOffice => "lab boxoffice",
                    catalogue::Lab::RetryPolicies => "lab retry-policies",
                };
                return Err(format!(
                    "demo {number} is a lab, not a tick demo: run `resilience-sim {command}` (its flags set the lab's controls)"
                ));
            }
            let demo = catalogue::demo(number).ok_or_else(|| {
                format!(
                    "there is no demo {number} (the course is numbered 1 to {})",
                    catalogue::course().count()
                )
            })?;
            if scenario {
                return Ok(vec![demo.scenario().save(Format::Toml)?]);
            }
            trace_json(&demo.scenario(), ticks)
        }
        Command::Run {
            file,
            ticks,
            resilience4j,
            profile,
            instance,
        } => {
            let text = read(&file, resilience_sim::scenario::MAX_SCENARIO_BYTES)?;
            let mut scenario = Scenario::parse(&text, Format::detect(&file, &text))
                .map_err(|e| format!("{file}: {e}"))?;
            if let Some(fragment) = resilience4j {
                let instances = fragment_instances(&fragment, profile.as_deref())?;
                let name = instance.as_deref().unwrap_or(r4j::RECOMMENDATIONS);
                let import = r4j::import_tick_as(&scenario.tick, &instances, name)
                    .map_err(|e| first_problem(&fragment, &e))?;
                scenario.tick.circuit_breaker = import.circuit_breaker;
                scenario.tick.bulkhead = import.bulkhead;
                scenario.tick.world.timeout_ticks = import.timeout_ticks;
            }
            trace_json(&scenario, ticks)
        }
        Command::Breaker {
            file,
            resilience4j,
            instance,
            profile,
        } => {
            let text = read(&file, breaker_script::MAX_SCRIPT_BYTES)?;
            let mut script =
                breaker_script::parse_breaker_script(&text).map_err(|e| format!("{file}: {e}"))?;
            if let Some(fragment) = resilience4j {
                let instances = fragment_instances(&fragment, profile.as_deref())?;
                let chosen = choose_instance(
                    &instances,
                    r4j::Kind::CircuitBreaker,
                    instance.as_deref(),
                    &fragment,
                )?;
                if let r4j::PolicyConfig::CircuitBreaker(config) = &chosen.config {
                    script.config = config.clone();
                }
            }
            let reports =
                breaker_script::run_breaker_script(&script).map_err(|e| format!("{file}: {e}"))?;
            reports
                .iter()
                .map(|r| serde_json::to_string(r).map_err(|e| e.to_string()))
                .collect()
        }
        Command::Ratelimiter {
            file,
            resilience4j,
            instance,
            profile,
        } => {
            let text = read(&file, scripts::MAX_SCRIPT_BYTES)?;
            let mut script: scripts::rate_limiter::RateLimiterScript =
                scripts::parse(&text, "rate limiter script").map_err(|e| format!("{file}: {e}"))?;
            if let Some(fragment) = resilience4j {
                let instances = fragment_instances(&fragment, profile.as_deref())?;
                let chosen = choose_instance(
                    &instances,
                    r4j::Kind::RateLimiter,
                    instance.as_deref(),
                    &fragment,
                )?;
                if let r4j::PolicyConfig::RateLimiter(config) = &chosen.config {
                    script.config = config.clone();
                }
            }
            let reports = scripts::rate_limiter::run_rate_limiter_script(&script)
                .map_err(|e| format!("{file}: invalid rate limiter script: {e}"))?;
            scripts::json_lines(&reports)
        }
        Command::Retry { file } => policy_script(&file, scripts::retry::run_text),
        Command::Bulkhead { file } => policy_script(&file, scripts::bulkhead::run_text),
        Command::ThreadPoolBulkhead { file } => {
            policy_script(&file, scripts::bulkhead::run_thread_pool_text)
        }
        Command::Timelimiter { file } => policy_script(&file, scripts::time_limiter::run_text),
        Command::Lab { lab, controls } => match lab.as_str() {
            "amplification" => {
                let (mut pairs, mut policy) =
                    (flag_pairs(&controls)?, AmplificationPolicy::Retries);
                if let Some(i) = pairs.iter().position(|(name, _)| name == "policy") {
                    let (_, text) = pairs.remove(i);
                    policy = AmplificationPolicy::from_name(&text).ok_or_else(|| {
                        format!("--policy: use none, retries or budget (got “{text}”)")
                    })?;
                }
                let lab = lab_config::<AmplificationLab>(pairs)?;
                lab_json(&amplification::run(&lab.config, policy))
            }
            "jitter" => {
                let pairs = flag_pairs(&controls)?;
                let lab = lab_config::<JitterLab>(pairs)?;
                lab_json(&jitter_lab::run(&lab.config))
            }
            "pool" => {
                let pairs = pool_aliases(flag_pairs(&controls)?)?;
                let lab = lab_config::<PoolLab>(pairs)?;
                lab_json(&lab.run())
            }
            "brownout" => {
                let pairs = brownout_aliases(flag_pairs(&controls)?);
                let lab = lab_config::<BrownoutLab>(pairs)?;
                lab_json(&lab.run())
            }
            "checkout" => {
                let pairs = flag_pairs(&controls)?;
                let lab = lab_config::<CheckoutLab>(pairs)?;
                // The per-call traces are the page's; the CLI prints the figures.
                let mut value = serde_json::to_value(lab.run().map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                if let Some(object) = value.as_object_mut() {
                    object.remove("calls");
                }
                Ok(vec![value.to_string()])
            }
            "boxoffice" => boxoffice_lab(flag_pairs(&controls)?),
            "retry-policies" => retry_policies_lab(flag_pairs(&controls)?),
            other => Err(format!(
                "there is no lab “{other}”: use amplification (Demo 8), jitter (Demo 9), pool (Demo 11), brownout (Demo 12), checkout (Demo 13), boxoffice (Demo 14) or retry-policies (Demo 15)"
            )),
        },
    }
}

/// `lab boxoffice`: a scenario (shipped, or `--file`) with a variant and settings on top.
/// Any other `--a.b.c VALUE` sets that path of the scenario document (the value read as
/// JSON, else as text): `--dependencies.payment.workers 20`.
fn boxoffice_lab(pairs: Vec<(String, String)>) -> Result<Vec<String>, String> {
    use resilience_sim::model::boxoffice::{self, scenarios};
    let (mut scenario, mut variant, mut seed, mut seconds, mut file) =
        (None, None, boxoffice::DEFAULT_SEED, None, None);
    let mut settings = Vec::new();
    let mut edits = None;
    for (name, value) in pairs {
        match name.as_str() {
            "scenario" => scenario = Some(value),
            "edits" => edits = Some(value),
            "variant" => variant = Some(value),
            "file" => file = Some(value),
            "seed" => {
                seed = value
                    .parse()
                    .map_err(|_| format!("--seed: a whole number ≥ 0 (got “{value}”)"))?
            }
            "seconds" => {
                seconds = Some(
                    value
                        .parse::<u32>()
                        .ok()
                        .filter(|s| (1..=boxoffice::topology::MAX_SECONDS).contains(s))
                        .ok_or_else(|| {
                            format!(
                                "--seconds: a whole number from 1 to {} (got “{value}”)",
                                boxoffice::topology::MAX_SECONDS
                            )
                        })?,
                )
            }
            _ => {
                let json = serde_json::from_str(&value)
                    .unwrap_or_else(|_| serde_json::Value::String(value.clone()));
                settings.push((name, json));
            }
        }
    }
    let text = match (&file, &scenario) {
        (Some(path), _) => read(path, boxoffice::topology::MAX_FILE_BYTES)?,
        (None, Some(name)) => scenarios::file(name)
            .ok_or_else(|| {
                format!(
                    "--scenario: there is no scenario “{name}”: use {}",
                    scenarios::names().join(", ")
                )
            })?
            .to_string(),
        (None, None) => {
            return Err(format!(
                "--scenario NAME or --file TOPOLOGY.json is needed: the scenarios are {}",
                scenarios::names().join(", ")
            ))
        }
    };
    let known = scenarios::variants(&text);
    if let Some(v) = &variant {
        if !known.iter().any(|k| k == v) {
            return Err(format!(
                "--variant: the scenario has no variant “{}”{}",
                excerpt(v),
                if known.is_empty() {
                    String::new()
                } else {
                    format!(
                        ": use {}",
                        resilience_sim::error::some_names(known.iter().map(String::as_str))
                    )
                }
            ));
        }
    }
    // A page link's `edits`: a merge patch on the document with its variant.
    let (text, load_variant) = match &edits {
        Some(patch) => (
            boxoffice::edit::with_edits(&text, variant.as_deref(), patch)
                .map_err(|e| e.to_string())?,
            None,
        ),
        None => (text, variant.as_deref()),
    };
    let topology = scenarios::load(&text, load_variant, &settings).map_err(|e| match &file {
        Some(path) => format!("{path}: {e}"),
        None => e.to_string(),
    })?;
    let name = scenario.unwrap_or_else(|| topology.name.clone());
    let run = boxoffice::run(
        topology,
        &name,
        variant.as_deref().unwrap_or(""),
        seed,
        seconds,
    )
    .map_err(|e| e.to_string())?;
    Ok(vec![serde_json::to_string(&run).map_err(|e| e.to_string())?])
}

/// `lab retry-policies`: Demo 15's failure sweep or metastability map, in the exact shapes
/// `{"policies": {NAME: [{"failure_rate", "amplification", "success"}, ...]}}` and
/// `{"policies": {NAME: [{"load", "trigger_s", "recovered"}, ...]}}`.
///
/// Each policy's settings are flags named as the page's link names them, their path in
/// `RetryPolicySettings` (`--grpc.maxTokens 20`): read through Demo 15's control table
/// ([`retry_policies_settings`]), so the CLI checks them as the page does.
fn retry_policies_lab(pairs: Vec<(String, String)>) -> Result<Vec<String>, String> {
    use resilience_sim::model::retry_policies::{
        map, parse_numbers, parse_policies, sweep, MapConfig, SweepConfig,
    };
    use serde_json::{json, Map, Value};

    // An engine error names the config's field; the learner typed the flag.
    let flag_error = |e: resilience_sim::ConfigError| match e.field.as_str() {
        "failureRates" => format!("--failure-rates: {}", e.message),
        "loads" => format!("--loads: {}", e.message),
        "triggersS" => format!("--triggers: {}", e.message),
        _ => e.to_string(),
    };
    let (mut experiment, mut policies, mut seed) = ("sweep".to_string(), None, 1_u64);
    let (mut failure_rates, mut loads, mut triggers) = (None, None, None);
    let mut settings = Vec::new();
    for (name, value) in pairs {
        let numbers = |field: &str| {
            parse_numbers(field, &value).map_err(|e| format!("--{name}: {}", e.message))
        };
        match name.as_str() {
            "experiment" => experiment = value.clone(),
            "policies" => {
                policies =
                    Some(parse_policies(&value).map_err(|e| format!("--{name}: {}", e.message))?)
            }
            "seed" => {
                seed = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|s| *s <= MAX_SEED)
                    .ok_or_else(|| {
                        format!(
                            "--seed: expected a whole number from 0 to {MAX_SEED}, got “{}”",
                            excerpt(&value)
                        )
                    })?
            }
            "failure-rates" => failure_rates = Some(numbers("failureRates")?),
            "loads" => loads = Some(numbers("loads")?),
            "triggers" => triggers = Some(numbers("triggersS")?),
            _ if retry_policies_settings().any(|c| c.name == name) => {
                settings.push((name.clone(), value.clone()))
            }
            _ => return Err(retry_policies_unknown(&name)),
        }
    }
    // The settings as a link gives them: each read and checked by its control, then by
    // the model; the first refused is the error.
    let (lab, problems) = LabSession::<RetryPoliciesLab>::read_pairs(
        settings.iter().map(|(n, v)| (n.as_str(), v.as_str())),
    );
    if let Some(e) = problems.into_iter().next() {
        // The model names a setting under its config (`settings.grpc.maxTokens`).
        let field = e.field.strip_prefix("settings.").unwrap_or(&e.field);
        return Err(format!("--{field}: {}", e.message));
    }
    let settings = lab.settings;
    let curves: Vec<(&str, Vec<Value>)> = match experiment.as_str() {
        "sweep" => {
            if loads.is_some() || triggers.is_some() {
                return Err("--loads and --triggers belong to --experiment map".into());
            }
            let defaults = SweepConfig::default();
            let config = SweepConfig {
                failure_rates: failure_rates.unwrap_or(defaults.failure_rates),
                policies: policies.unwrap_or(defaults.policies),
                settings,
                seed,
                ..defaults
            };
            let run = sweep::run(&config).map_err(flag_error)?;
            run.curves
                .iter()
                .map(|c| {
                    let points = c.points.iter().map(|p| {
                        json!({
                            "failure_rate": p.failure_rate,
                            "amplification": p.amplification,
                            "success": p.success,
                        })
                    });
                    (c.policy.name(), points.collect())
                })
                .collect()
        }
        "map" => {
            if failure_rates.is_some() {
                return Err("--failure-rates belongs to --experiment sweep".into());
            }
            let defaults = MapConfig::default();
            let config = MapConfig {
                loads: loads.unwrap_or(defaults.loads),
                triggers_s: triggers.unwrap_or(defaults.triggers_s),
                policies: policies.unwrap_or(defaults.policies),
                settings,
                seed,
                ..defaults
            };
            let run = map::run(&config).map_err(flag_error)?;
            run.rows
                .iter()
                .map(|r| {
                    let cells = r.cells.iter().map(|c| {
                        json!({
                            "load": c.load,
                            "trigger_s": c.trigger_s,
                            "recovered": c.recovered,
                        })
                    });
                    (r.policy.name(), cells.collect())
                })
                .collect()
        }
        other => {
            return Err(format!(
                "--experiment: use sweep or map (got “{}”)",
                excerpt(other)
            ))
        }
    };
    let mut object = Map::new();
    for (name, points) in curves {
        object.insert(name.to_string(), Value::Array(points));
    }
    Ok(vec![json!({ "policies": object }).to_string()])
}

/// The policies' settings as flags: the controls of Demo 15's table named by their path
/// in `RetryPolicySettings` (`grpc.maxTokens`), the page's toggles (`show.grpc`) aside.
/// The other controls (the learner's own system, the seed) are the page's or the CLI's
/// own flags.
fn retry_policies_settings() -> impl Iterator<Item = &'static Control<RetryPoliciesLab>> {
    RetryPoliciesLab::controls()
        .iter()
        .filter(|c| c.name.contains('.') && !c.name.starts_with("show."))
}

/// The settings flags of the policy named `prefix` as the flags spell it (`grpc`,
/// `retryBudget`) or as `--policies` does (`retry-budget`): its settings prefix and
/// flags.
fn retry_policies_settings_of(prefix: &str) -> Option<(&'static str, Vec<&'static str>)> {
    use resilience_sim::model::retry_policies::RetryPolicyKind;
    let policy = RetryPolicyKind::ALL
        .into_iter()
        .find(|&p| settings_prefix(p) == prefix || p.name() == prefix)?;
    let prefix = settings_prefix(policy);
    let flags = retry_policies_settings()
        .filter(|c| c.name.split_once('.').is_some_and(|(p, _)| p == prefix))
        .map(|c| c.name)
        .collect();
    Some((prefix, flags))
}

/// The error of a flag `lab retry-policies` does not take: what it may have meant.
fn retry_policies_unknown(name: &str) -> String {
    let flag = excerpt(name);
    if LabSession::<RetryPoliciesLab>::control(name).is_some() {
        // yourPolicy, yourLoad, yourTrigger, show.*: the page's own system and charts.
        return format!(
            "--{flag} is a control of the page only (the CLI runs the experiments for --policies)"
        );
    }
    if let Some((prefix, flags)) = name
        .split_once('.')
        .and_then(|(prefix, _)| retry_policies_settings_of(prefix))
    {
        let flags: Vec<String> = flags.iter().map(|f| format!("--{f}")).collect();
        return if flags.is_empty() {
            format!("--{flag}: the policy {prefix} has no settings")
        } else {
            format!(
                "--{flag}: not a setting of {prefix} (its settings: {})",
                flags.join(", ")
            )
        };
    }
    format!(
        "--{flag}: not a control of `lab retry-policies` (use --experiment, --policies, --seed, --failure-rates, --loads, --triggers or a policy's setting as --POLICY.SETTING, such as --grpc.maxTokens; `resilience-sim lab --help` lists them)"
    )
}

fn retry_policies_help() -> String {
    use resilience_sim::model::retry_policies::{MapConfig, RetryPolicyKind, SweepConfig};
    let list = |values: &[f64]| {
        values
            .iter()
            .map(f64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut text = format!(
        "Controls of `lab retry-policies` (Demo 15; docs/retry-policies.md):\n  --experiment sweep  sweep: attempts per request and success against the failure rate; map: recovered or still down 60 s after a 3x slowdown, per load and trigger.\n  --policies all  A comma-separated list of the policies below (or all).\n  --seed 1  The seed of every run.\n  --failure-rates {}  The sweep's failure rates, as shares.\n  --loads {}  The map's loads, as shares of the server's capacity (at most 12).\n  --triggers {}  The map's trigger sizes in seconds (at most 12).\n  Policies:",
        list(&SweepConfig::default().failure_rates),
        list(&MapConfig::default().loads),
        list(&MapConfig::default().triggers_s),
    );
    for policy in RetryPolicyKind::ALL {
        text.push_str(&format!("\n    {}: {}", policy.name(), policy.describe()));
    }
    // The settings, from Demo 15's control table, grouped by policy (the table keeps the
    // rarely changed ones last).
    text.push_str(
        "\n  Each policy's settings, by their path as in the page's link (durations in ms, or as 1.5s or 500ms):",
    );
    let order = |name: &str| {
        RetryPolicyKind::ALL
            .iter()
            .position(|&p| {
                name.split_once('.')
                    .is_some_and(|(x, _)| x == settings_prefix(p))
            })
            .unwrap_or(RetryPolicyKind::ALL.len())
    };
    let mut settings: Vec<_> = retry_policies_settings().collect();
    settings.sort_by_key(|c| order(c.name));
    let defaults = RetryPoliciesLab::default();
    for c in settings {
        text.push_str(&format!(
            "\n  --{} {}  {} ({})",
            c.name,
            c.text(&defaults),
            c.help,
            range_text(c)
        ));
    }
    text
}

/// A setting's range as the page's slider has it: `2 to 5 attempts`, `0 to 10 s`.
fn range_text<C>(control: &Control<C>) -> String {
    use resilience_sim::number::number_text;
    use resilience_sim::scenario::lab_session::{ControlKind, Unit};
    match control.kind {
        ControlKind::Number {
            min,
            max,
            unit: Unit::Millis,
            ..
        } => {
            let ms = |v: f64| {
                if v >= 1000.0 {
                    format!("{} s", number_text(v / 1000.0))
                } else {
                    format!("{} ms", number_text(v))
                }
            };
            format!("{} to {}", ms(min), ms(max))
        }
        ControlKind::Number {
            min,
            max,
            unit: Unit::Plain(unit),
            ..
        } => format!("{} to {} {unit}", number_text(min), number_text(max))
            .trim_end()
            .to_string(),
        ControlKind::Whole { min, max } => format!("{min} to {max}"),
        ControlKind::Choice { options } => {
            options.iter().map(|o| o.0).collect::<Vec<_>>().join(", ")
        }
        ControlKind::Toggle => "true or false".to_string(),
    }
}

fn boxoffice_help() -> String {
    use resilience_sim::model::boxoffice::scenarios;
    let mut text = String::from(
        "Controls of `lab boxoffice`:\n  --scenario NAME  A shipped scenario (below).\n  --file TOPOLOGY.json  Your own scenario file instead (same format, docs/boxoffice.md).\n  --variant NAME  One of the scenario's variants (the file as written without it).\n  --seed 1  The seed of every random stream.\n  --seconds N  The run's length (the file's by default).\n  --a.b.c VALUE  Any setting of the file by its path; the value is JSON (null turns a part off).\n  --edits JSON  A page link's edits: a JSON merge patch on the scenario with its variant.",
    );
    for name in scenarios::names() {
        let variants = scenarios::variants(scenarios::file(name).unwrap_or_default());
        text.push_str(&format!("\n  {name}: {}", variants.join(", ")));
    }
    text
}

/// The fragment's instance of `kind` named `name`, else its only one; an error names the
/// fragment and what it has.
fn choose_instance<'a>(
    instances: &'a [r4j::Instance],
    kind: r4j::Kind,
    name: Option<&str>,
    fragment: &str,
) -> Result<&'a r4j::Instance, String> {
    let section = kind.section();
    let of_kind: Vec<&r4j::Instance> = instances
        .iter()
        .filter(|i| i.config.kind() == kind)
        .collect();
    let names = || {
        of_kind
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (name, of_kind.as_slice()) {
        (Some(name), _) => of_kind
            .iter()
            .find(|i| i.name == name)
            .copied()
            .ok_or_else(|| {
                format!(
                    "{fragment}: no {section} instance “{}” (it has: {})",
                    one_line(&excerpt(name)),
                    names()
                )
            }),
        (None, [only]) => Ok(only),
        (None, []) => Err(format!("{fragment}: the fragment has no {section} instance")),
        (None, _) => Err(format!(
            "{fragment}: the fragment has several {section} instances ({}): choose one with --instance NAME",
            names()
        )),
    }
}

/// Reads a policy script (at most [`scripts::MAX_SCRIPT_BYTES`]) and runs it; an error
/// names the file.
fn policy_script(
    file: &str,
    run: fn(&str) -> Result<Vec<String>, String>,
) -> Result<Vec<String>, String> {
    let text = read(file, scripts::MAX_SCRIPT_BYTES)?;
    run(&text).map_err(|e| format!("{file}: {e}"))
}

/// A fragment's instances; the first problem is the error (one line, with its line number).
/// What the fragment holds that is not read goes to standard error as notes.
fn fragment_instances(file: &str, profile: Option<&str>) -> Result<Vec<r4j::Instance>, String> {
    let text = read(file, r4j::MAX_INPUT)?;
    let fragment =
        r4j::read_fragment(&text, profile).map_err(|errors| first_problem(file, &errors))?;
    for note in &fragment.not_read {
        eprintln!("resilience-sim: note: {file}: {}", one_line(note));
    }
    // What was read but has no effect (a size Resilience4j skips, a switch the engine
    // does not model), as the page lists it after an import.
    for instance in &fragment.instances {
        for note in &instance.notes {
            eprintln!(
                "resilience-sim: note: {file}: {}: {}",
                instance.path(),
                one_line(note)
            );
        }
    }
    Ok(fragment.instances)
}

/// The CLI's one line for a list of problems: the first, and how many more.
fn first_problem(file: &str, errors: &[String]) -> String {
    let more = match errors.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    format!(
        "{file}: {}{more}",
        errors.first().map_or("", String::as_str)
    )
}

/// `demo N --resilience4j FORMAT`: a tick demo's settings, or a lab's default settings.
fn demo_resilience4j(number: u32, format: &str) -> Result<Vec<String>, String> {
    let instances = match catalogue::lab(number).map(|l| l.lab) {
        Some(catalogue::Lab::Amplification) => AmplificationLab::default().resilience4j(),
        Some(catalogue::Lab::Jitter) => JitterLab::default().resilience4j(),
        Some(catalogue::Lab::Sandbox) => SandboxSettings::default().resilience4j(),
        Some(catalogue::Lab::Pool) => PoolLab::default().resilience4j(),
        Some(catalogue::Lab::Brownout) => BrownoutLab::default().resilience4j(),
        Some(catalogue::Lab::Checkout) => CheckoutLab::default().resilience4j(),
        Some(catalogue::Lab::BoxOffice) => {
            resilience_sim::scenario::boxoffice_lab::BoxOfficeLab::default().resilience4j()
        }
        Some(catalogue::Lab::RetryPolicies) => {
            resilience_sim::scenario::retry_policies_lab::RetryPoliciesLab::default().resilience4j()
        }
        None => {
            let demo = catalogue::demo(number).ok_or_else(|| {
                format!(
                    "there is no demo {number} (the course is numbered 1 to {})",
                    catalogue::course().count()
                )
            })?;
            r4j::tick_instances(&demo.scenario().tick)
        }
    };
    let text = match format {
        "yaml" | "yml" => r4j::to_yaml(&instances),
        "properties" => r4j::to_properties(&instances),
        "java" => r4j::to_java(&instances),
        other => {
            return Err(format!(
                "--resilience4j: use yaml, properties or java (got “{other}”)"
            ))
        }
    };
    Ok(vec![text.trim_end().to_string()])
}

/// `--name value` and `--name=value` pairs, in order.
fn flag_pairs(args: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(flag) = arg.strip_prefix("--") else {
            return Err(format!(
                "expected a control as --NAME VALUE, got “{}”",
                excerpt(arg)
            ));
        };
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => {
                let value = args
                    .next()
                    .ok_or_else(|| format!("--{} needs a value", excerpt(flag)))?;
                (flag.to_string(), value.clone())
            }
        };
        pairs.push((name, value));
    }
    Ok(pairs)
}

/// A kebab-case flag in the controls' camelCase: `rps-fast` is `rpsFast`.
fn camel(name: &str) -> String {
    let mut parts = name.split('-');
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    out
}

/// The brownout lab's extra spellings: kebab-case names and `--queue` for
/// `--queueCapacity`.
fn brownout_aliases(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .map(|(name, value)| match name.as_str() {
            "queue" => ("queueCapacity".to_string(), value),
            _ => (camel(&name), value),
        })
        .collect()
}

/// The pool lab's extra spellings, turned into its controls' own: kebab-case names
/// (`--rps-fast` is `--rpsFast`), `--bulkhead N` (a bulkhead of N: a semaphore with
/// `maxConcurrentCalls` N, or with `--bulkhead-kind thread-pool` a thread pool of N
/// threads) and `--bulkhead-kind semaphore|thread-pool`.
fn pool_aliases(pairs: Vec<(String, String)>) -> Result<Vec<(String, String)>, String> {
    let kind = match pairs.iter().rfind(|(name, _)| name == "bulkhead-kind") {
        Some((_, kind)) if kind == "semaphore" || kind == "thread-pool" => Some(kind.clone()),
        Some((_, kind)) => {
            return Err(format!(
                "--bulkhead-kind: use semaphore or thread-pool (got “{kind}”)"
            ))
        }
        None => None,
    };
    let mut out = Vec::new();
    for (name, value) in pairs {
        match (name.as_str(), kind.as_deref()) {
            ("bulkhead-kind", Some(kind)) => out.push(("bulkhead".into(), kind.to_string())),
            ("bulkhead", kind)
                if !value.trim().is_empty() && value.trim().bytes().all(|b| b.is_ascii_digit()) =>
            {
                let size = value.trim().to_string();
                match kind.unwrap_or("semaphore") {
                    "thread-pool" => {
                        out.push(("bulkhead".into(), "thread-pool".into()));
                        out.push(("maxThreadPoolSize".into(), size.clone()));
                        out.push(("coreThreadPoolSize".into(), size));
                    }
                    _ => {
                        out.push(("bulkhead".into(), "semaphore".into()));
                        out.push(("maxConcurrentCalls".into(), size));
                    }
                }
            }
            ("bulkhead", Some(kind)) if value != kind => {
                return Err(format!(
                    "--bulkhead “{}” and --bulkhead-kind “{}” disagree",
                    excerpt(&value),
                    excerpt(kind)
                ))
            }
            _ => out.push((camel(&name), value)),
        }
    }
    Ok(out)
}

/// The lab's config from the flags, through the same control table as the page and the
/// link; the first flag that cannot be used is the error. `--help` lists the controls.
fn lab_config<L: LabModel>(pairs: Vec<(String, String)>) -> Result<L, String> {
    if let Some((name, _)) = pairs
        .iter()
        .find(|(name, _)| LabSession::<L>::control(name).is_some_and(|c| !c.is_cli_flag()))
    {
        return Err(format!("--{name} is a control of the page only"));
    }
    let (session, problems) =
        LabSession::<L>::from_pairs(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    match problems.into_iter().next() {
        Some(e) => Err(format!("--{e}")),
        None => Ok(session.config().clone()),
    }
}

fn controls_help<L: LabModel>() -> String {
    let mut text = format!("Controls of `lab {}` (flag, default, meaning):", L::NAME);
    if L::NAME == "amplification" {
        text.push_str("\n  --policy retries  Which line to run: none, retries or budget.");
    }
    if L::NAME == "brownout" {
        text.push_str("\n  --queue 20  The bulkhead's queue (queueCapacity).\n  (Flags may also be written in kebab-case: --retry-bulkhead-full false.)");
    }
    if L::NAME == "pool" {
        text.push_str(
            "\n  --bulkhead N  A bulkhead of N: a semaphore with maxConcurrentCalls N, or a thread pool of N threads with --bulkhead-kind thread-pool.\n  --bulkhead-kind semaphore  The kind of bulkhead --bulkhead N sets: semaphore or thread-pool.\n  (Flags may also be written in kebab-case: --rps-fast 50, --vendor-slow-at-s 10.)",
        );
    }
    let defaults = L::default();
    for c in L::controls().iter().filter(|c| c.is_cli_flag()) {
        text.push_str(&format!(
            "\n  --{} {}  {}",
            c.name,
            c.text(&defaults),
            c.help
        ));
    }
    text
}

fn lab_json<T: serde::Serialize>(
    run: &Result<T, resilience_sim::ConfigError>,
) -> Result<Vec<String>, String> {
    let run = run.as_ref().map_err(|e| e.to_string())?;
    Ok(vec![serde_json::to_string(run).map_err(|e| e.to_string())?])
}

/// Prints the trace as one JSON object on one line (the one `Trace` serializes to), a tick
/// at a time: memory stays flat in the number of ticks. Nothing is printed unless the
/// scenario and the ticks are valid; a closed pipe (`| head`) ends the output quietly.
fn trace_json(scenario: &Scenario, ticks: Option<u32>) -> Result<Vec<String>, String> {
    let (mut run, ticks) = scenario.start(ticks).map_err(|e| e.to_string())?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = (|| -> std::io::Result<()> {
        out.write_all(b"{\"scenario\":")?;
        serde_json::to_writer(&mut out, &scenario.name)?;
        out.write_all(b",\"ticks\":[")?;
        for i in 0..ticks {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut out, &run.step())?;
        }
        out.write_all(b"]}\n")?;
        out.flush()
    })();
    Ok(Vec::new())
}

/// Reads a file, or standard input for `-`, refusing one over `limit` bytes after reading
/// at most `limit + 1` of them (`/dev/zero` is refused at once, not read into memory).
fn read(file: &str, limit: usize) -> Result<String, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let result = if file == "-" {
        std::io::stdin()
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(file).and_then(|f| f.take(limit as u64 + 1).read_to_end(&mut bytes))
    };
    let name = if file == "-" { "standard input" } else { file };
    result.map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "{name} is over {} KB, the most this command reads",
            limit / 1024
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("cannot read {name}: it is not UTF-8 text"))
}
