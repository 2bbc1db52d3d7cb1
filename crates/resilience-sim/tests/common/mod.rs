//! What the CLI tests share: running the binary, reading its one JSON line, and checking a
//! refusal is one line with exit code 2.

#![allow(dead_code)]

use std::process::{Command, Output};

use serde_json::Value;

pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(args)
        .output()
        .expect("the CLI starts")
}

/// The one JSON object a successful run prints.
pub fn json(args: &[&str]) -> Value {
    let out = cli(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let text = String::from_utf8(out.stdout).unwrap();
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
