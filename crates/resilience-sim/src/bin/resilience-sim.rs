//! `resilience-sim`: the engine on the command line, for course authors and tests.
//!
//! Output is JSON on stdout. Bad input gives a one-line error on stderr and exit code 2.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use resilience_sim::duration::parse_duration;
use resilience_sim::model::amplification::{
    self, AmplificationConfig, AmplificationPolicy, BackoffKind,
};
use resilience_sim::model::jitter::{self as jitter_lab, JitterConfig};
use resilience_sim::policy::retry::Jitter;
use resilience_sim::scenario::{breaker_script, catalogue, Format, Scenario};
use resilience_sim::Millis;

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
    },
    /// Run a scenario file (.toml or .json) and print its trace.
    Run {
        file: String,
        #[arg(long)]
        ticks: Option<u32>,
    },
    /// Drive one circuit breaker by a JSON script; print one JSON line per step.
    Breaker { file: String },
    /// Run a retry lab and print its chart data as one JSON object.
    Lab {
        #[command(subcommand)]
        lab: Lab,
    },
}

#[derive(Subcommand)]
enum Lab {
    /// Lab A: steady traffic, a 5 s degradation, and what retries do after it (per-second rates).
    Amplification(AmplificationArgs),
    /// Lab B: clients that failed together retry with exponential backoff and jitter.
    Jitter(JitterArgs),
}

/// Every Lab A control; an absent flag keeps the page's default.
#[derive(clap::Args)]
struct AmplificationArgs {
    /// none, retries or budget.
    #[arg(long, default_value = "retries", value_parser = parse_policy)]
    policy: AmplificationPolicy,
    /// New requests per second [1000].
    #[arg(long)]
    demand: Option<u32>,
    /// Normal capacity above the demand, in percent [20].
    #[arg(long)]
    headroom: Option<f64>,
    /// Capacity during the degradation, in percent of the normal one [50].
    #[arg(long)]
    degraded_capacity: Option<f64>,
    /// When the degradation starts [10s].
    #[arg(long, value_parser = parse_duration)]
    degradation_start_ms: Option<Millis>,
    /// How long the degradation lasts [5s].
    #[arg(long, value_parser = parse_duration)]
    degradation_ms: Option<Millis>,
    /// Length of the run [60s].
    #[arg(long, value_parser = parse_duration)]
    duration_ms: Option<Millis>,
    /// Capacity an overloaded provider wastes [1].
    #[arg(long)]
    waste: Option<f64>,
    /// Retries per request of the retries and budget policies [3].
    #[arg(long)]
    retries: Option<u32>,
    /// Retry budget: retries per 100 new requests [10].
    #[arg(long)]
    budget_percent: Option<f64>,
    /// How long the budget remembers its traffic [10s].
    #[arg(long, value_parser = parse_duration)]
    budget_ttl_ms: Option<Millis>,
    /// Retries per second the budget always allows [0].
    #[arg(long)]
    budget_min_retries_per_second: Option<u32>,
    /// none, fixed or exponential [none].
    #[arg(long, value_parser = parse_backoff)]
    backoff: Option<BackoffKind>,
    /// The fixed or first backoff [500ms].
    #[arg(long, value_parser = parse_duration)]
    backoff_base_ms: Option<Millis>,
    /// Growth of the exponential backoff [2].
    #[arg(long)]
    backoff_multiplier: Option<f64>,
    /// The longest backoff [none].
    #[arg(long, value_parser = parse_duration)]
    backoff_cap_ms: Option<Millis>,
    /// none, full, equal or decorrelated [none].
    #[arg(long, value_parser = parse_jitter)]
    jitter: Option<Jitter>,
    /// Seed of the jitter draws [1].
    #[arg(long)]
    seed: Option<u64>,
}

/// Every Lab B control; an absent flag keeps the page's default.
#[derive(clap::Args)]
struct JitterArgs {
    /// none, full, equal or decorrelated [none].
    #[arg(long, value_parser = parse_jitter)]
    mode: Option<Jitter>,
    /// The first backoff [1000].
    #[arg(long, value_parser = parse_duration)]
    base_ms: Option<Millis>,
    /// Growth per attempt [2].
    #[arg(long)]
    multiplier: Option<f64>,
    /// The longest backoff [none].
    #[arg(long, value_parser = parse_duration)]
    cap_ms: Option<Millis>,
    /// Clients that fail at t = 0 [1000].
    #[arg(long)]
    clients: Option<u32>,
    /// Calls served per 100 ms slot [150].
    #[arg(long)]
    capacity: Option<u32>,
    /// The start of the last slot [15s].
    #[arg(long, value_parser = parse_duration)]
    duration_ms: Option<Millis>,
    /// Seed of the jitter draws [1].
    #[arg(long)]
    seed: Option<u64>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    let _ = writeln!(std::io::stderr(), "resilience-sim: {message}");
    ExitCode::from(2)
}

fn execute(command: Command) -> Result<Vec<String>, String> {
    match command {
        Command::Demo {
            number,
            ticks,
            scenario,
        } => {
            if let Some(lab) = catalogue::lab(number) {
                let command = match lab.lab {
                    catalogue::Lab::Amplification => "lab amplification",
                    catalogue::Lab::Jitter => "lab jitter",
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
        Command::Run { file, ticks } => {
            let text = read(&file)?;
            let scenario = Scenario::parse(&text, Format::detect(&file, &text))
                .map_err(|e| format!("{file}: {e}"))?;
            trace_json(&scenario, ticks)
        }
        Command::Breaker { file } => {
            let text = read(&file)?;
            let script =
                breaker_script::parse_breaker_script(&text).map_err(|e| format!("{file}: {e}"))?;
            let reports =
                breaker_script::run_breaker_script(&script).map_err(|e| format!("{file}: {e}"))?;
            reports
                .iter()
                .map(|r| serde_json::to_string(r).map_err(|e| e.to_string()))
                .collect()
        }
        Command::Lab { lab } => {
            let json = match lab {
                Lab::Amplification(args) => {
                    let (config, policy) = args.into_config();
                    serde_json::to_string(
                        &amplification::run(&config, policy).map_err(|e| e.to_string())?,
                    )
                }
                Lab::Jitter(args) => serde_json::to_string(
                    &jitter_lab::run(&args.into_config()).map_err(|e| e.to_string())?,
                ),
            };
            Ok(vec![json.map_err(|e| e.to_string())?])
        }
    }
}

impl AmplificationArgs {
    fn into_config(self) -> (AmplificationConfig, AmplificationPolicy) {
        let d = AmplificationConfig::default();
        let config = AmplificationConfig {
            demand_per_second: self.demand.unwrap_or(d.demand_per_second),
            headroom_percent: self.headroom.unwrap_or(d.headroom_percent),
            degraded_capacity_percent: self
                .degraded_capacity
                .unwrap_or(d.degraded_capacity_percent),
            degradation_start_ms: self.degradation_start_ms.unwrap_or(d.degradation_start_ms),
            degradation_ms: self.degradation_ms.unwrap_or(d.degradation_ms),
            duration_ms: self.duration_ms.unwrap_or(d.duration_ms),
            waste: self.waste.unwrap_or(d.waste),
            retries: self.retries.unwrap_or(d.retries),
            budget_percent: self.budget_percent.unwrap_or(d.budget_percent),
            budget_ttl_ms: self.budget_ttl_ms.unwrap_or(d.budget_ttl_ms),
            budget_min_retries_per_second: self
                .budget_min_retries_per_second
                .unwrap_or(d.budget_min_retries_per_second),
            backoff: self.backoff.unwrap_or(d.backoff),
            backoff_base_ms: self.backoff_base_ms.unwrap_or(d.backoff_base_ms),
            backoff_multiplier: self.backoff_multiplier.unwrap_or(d.backoff_multiplier),
            backoff_cap_ms: self.backoff_cap_ms.or(d.backoff_cap_ms),
            jitter: self.jitter.unwrap_or(d.jitter),
            seed: self.seed.unwrap_or(d.seed),
        };
        (config, self.policy)
    }
}

impl JitterArgs {
    fn into_config(self) -> JitterConfig {
        let d = JitterConfig::default();
        JitterConfig {
            clients: self.clients.unwrap_or(d.clients),
            capacity_per_slot: self.capacity.unwrap_or(d.capacity_per_slot),
            base_ms: self.base_ms.unwrap_or(d.base_ms),
            multiplier: self.multiplier.unwrap_or(d.multiplier),
            cap_ms: self.cap_ms.or(d.cap_ms),
            jitter: self.mode.unwrap_or(d.jitter),
            duration_ms: self.duration_ms.unwrap_or(d.duration_ms),
            seed: self.seed.unwrap_or(d.seed),
        }
    }
}

fn parse_policy(text: &str) -> Result<AmplificationPolicy, String> {
    AmplificationPolicy::ALL
        .into_iter()
        .find(|p| p.name() == text)
        .ok_or_else(|| "use none, retries or budget".to_string())
}

fn parse_backoff(text: &str) -> Result<BackoffKind, String> {
    match text {
        "none" => Ok(BackoffKind::None),
        "fixed" => Ok(BackoffKind::Fixed),
        "exponential" => Ok(BackoffKind::Exponential),
        _ => Err("use none, fixed or exponential".to_string()),
    }
}

fn parse_jitter(text: &str) -> Result<Jitter, String> {
    match text {
        "none" => Ok(Jitter::None),
        "full" => Ok(Jitter::Full),
        "equal" => Ok(Jitter::Equal),
        "decorrelated" => Ok(Jitter::Decorrelated),
        _ => Err("use none, full, equal or decorrelated".to_string()),
    }
}

fn trace_json(scenario: &Scenario, ticks: Option<u32>) -> Result<Vec<String>, String> {
    let trace = scenario.run(ticks).map_err(|e| e.to_string())?;
    Ok(vec![
        serde_json::to_string(&trace).map_err(|e| e.to_string())?
    ])
}

/// Reads a file, or standard input for `-`.
fn read(file: &str) -> Result<String, String> {
    if file == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(text);
    }
    std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))
}
