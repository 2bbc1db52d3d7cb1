//! `resilience-sim`: the engine on the command line, for course authors and tests.
//!
//! Output is JSON on stdout. Bad input gives a one-line error on stderr and exit code 2.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use resilience_sim::scenario::{breaker_script, catalogue, Format, Scenario};

#[derive(Parser)]
#[command(name = "resilience-sim", version, about = "Resilience4j policies, simulated exactly")]
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
            let demo = catalogue::demo(number).ok_or_else(|| {
                format!(
                    "there is no demo {number} (demos are numbered 1 to {})",
                    catalogue::DEMOS.len()
                )
            })?;
            if scenario {
                return Ok(vec![demo.scenario().save(Format::Toml)?]);
            }
            trace_json(&demo.scenario(), ticks)
        }
        Command::Run { file, ticks } => {
            let text = read(&file)?;
            let scenario =
                Scenario::parse(&text, Format::detect(&file, &text)).map_err(|e| format!("{file}: {e}"))?;
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
    }
}

fn trace_json(scenario: &Scenario, ticks: Option<u32>) -> Result<Vec<String>, String> {
    let trace = scenario.run(ticks).map_err(|e| e.to_string())?;
    Ok(vec![serde_json::to_string(&trace).map_err(|e| e.to_string())?])
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
