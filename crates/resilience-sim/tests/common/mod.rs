//! What the tests share: running the CLI binary, reading its one JSON line, checking a
//! refusal is one line with exit code 2; values worth trying for a lab's control.

#![allow(dead_code)]

use std::process::{Command, Output};

use resilience_sim::scenario::lab_session::{Control, ControlKind};
use serde_json::Value;

pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(args)
        .output()
        .expect("the CLI starts")
}

/// What a successful run prints on stdout (nothing on stderr).
pub fn stdout(args: &[&str]) -> String {
    let out = cli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    String::from_utf8(out.stdout).unwrap()
}

/// The one JSON object a successful run prints.
pub fn json(args: &[&str]) -> Value {
    let text = stdout(args);
    assert_eq!(text.lines().count(), 1, "one JSON object on one line");
    serde_json::from_str(&text).expect("stdout is JSON")
}

/// The one line a refused run prints on stderr (exit code 2, nothing on stdout).
pub fn refused(args: &[&str]) -> String {
    let out = cli(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    let text = String::from_utf8(out.stderr).unwrap();
    assert_eq!(text.lines().count(), 1, "{args:?}: one line, got {text:?}");
    assert!(text.starts_with("resilience-sim: "), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    text
}

/// Values of a control worth trying: both ends of its range, a middle step, every option.
pub fn sample_values<L>(control: &Control<L>) -> Vec<String> {
    match control.kind {
        ControlKind::Number { min, max, step, .. } => {
            let middle = min + ((max - min) / step / 2.0).round() * step;
            vec![min, middle, max]
                .into_iter()
                .map(|v| format!("{}", (v * 1e6).round() / 1e6))
                .collect()
        }
        ControlKind::Whole { min, max } => {
            vec![min.to_string(), (min + 7).to_string(), max.to_string()]
        }
        ControlKind::Choice { options } => options.iter().map(|o| o.0.to_string()).collect(),
        ControlKind::Toggle => vec!["true".into(), "false".into()],
    }
}
