//! The CLI, end to end: the spec's table through `resilience-sim demo N`, scenario files
//! through `run`, and bad input as a one-line error with exit code 2.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn cli(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn trace(args: &[&str]) -> Value {
    let out = cli(args, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn column(trace: &Value, f: impl Fn(&Value) -> Value) -> Vec<Value> {
    trace["ticks"].as_array().unwrap().iter().map(f).collect()
}

fn assert_row(demo: &str, threads: [u64; 6], failures: u64, breaker: Option<[&str; 6]>) {
    let trace = trace(&["demo", demo]);
    assert_eq!(
        column(&trace, |t| t["threads"]["recommendations"].clone()),
        threads.map(Value::from).to_vec(),
        "demo {demo}: threads held by recommendations"
    );
    assert_eq!(
        trace["ticks"][5]["payment_failures"], failures,
        "demo {demo}"
    );
    let expected_breaker: Vec<Value> = match breaker {
        Some(states) => states.map(Value::from).to_vec(),
        None => vec![Value::Null; 6],
    };
    assert_eq!(
        column(&trace, |t| t["breaker"].clone()),
        expected_breaker,
        "demo {demo}"
    );
    assert_eq!(trace["ticks"][0]["t"], 1);
    assert!(trace["ticks"][0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .all(Value::is_string));
}

#[test]
fn demos_4_to_7_reproduce_the_table() {
    assert_row("4", [2, 4, 6, 6, 6, 6], 4, None);
    assert_row(
        "5",
        [2, 4, 6, 6, 4, 2],
        2,
        Some(["CLOSED", "CLOSED", "CLOSED", "CLOSED", "OPEN", "OPEN"]),
    );
    assert_row("6", [2, 3, 3, 3, 3, 3], 0, None);
    assert_row(
        "7",
        [2, 3, 3, 1, 0, 0],
        0,
        Some(["CLOSED", "CLOSED", "CLOSED", "OPEN", "OPEN", "OPEN"]),
    );
}

#[test]
fn demo_3_timeline_through_the_cli() {
    let trace = trace(&["demo", "3", "--ticks", "10"]);
    let states = column(&trace, |t| t["breaker"].clone());
    let expected = [
        "CLOSED",
        "CLOSED",
        "OPEN",
        "OPEN",
        "OPEN",
        "HALF_OPEN",
        "OPEN",
        "OPEN",
        "OPEN",
        "HALF_OPEN",
    ];
    assert_eq!(states, expected.map(Value::from).to_vec());
}

#[test]
fn run_reads_toml_and_json_scenarios() {
    let toml = r#"
name = "slow, breaker"
ticks = 6
[tick]
behaviour = "slow"
protection = "circuit_breaker"
"#;
    let dir = std::env::temp_dir().join(format!("rsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(&path, toml).unwrap();
    let from_file = trace(&["run", path.to_str().unwrap()]);
    assert_eq!(from_file["ticks"][4]["breaker"], "OPEN", "opens at t = 5");
    assert_eq!(from_file["ticks"][5]["payment_failures"], 2);

    let json = r#"{"name":"slow, none","tick":{"behaviour":"slow","protection":"none"}}"#;
    let from_stdin = cli(&["run", "-"], Some(json));
    assert!(
        from_stdin.status.success(),
        "`-` reads JSON from standard input"
    );
    let json_path = dir.join("s.json");
    std::fs::write(&json_path, json).unwrap();
    let from_json = trace(&["run", json_path.to_str().unwrap(), "--ticks", "3"]);
    assert_eq!(from_json["ticks"].as_array().unwrap().len(), 3);
    assert_eq!(
        from_json["ticks"][2]["payment_failures"], 1,
        "payment fails from t = 3"
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn assert_one_line_error(args: &[&str], stdin: Option<&str>, mentions: &str) {
    let out = cli(args, stdin);
    assert_eq!(out.status.code(), Some(2), "{args:?} exits with 2");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr:?}");
    assert!(
        stderr.contains(mentions),
        "{stderr:?} mentions {mentions:?}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    assert_one_line_error(&["demo", "99"], None, "no demo 99");
    assert_one_line_error(&["demo", "x"], None, "invalid value");
    assert_one_line_error(&["demo", "4", "--ticks", "0"], None, "ticks");
    assert_one_line_error(&["frobnicate"], None, "frobnicate");
    assert_one_line_error(&["run", "/nonexistent/file.toml"], None, "cannot read");
    assert_one_line_error(&["run", "-"], Some("name = 1\n"), "-:");
    assert_one_line_error(
        &["run", "-"],
        Some("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\nwat = 1\n"),
        "wat",
    );
    assert_one_line_error(
        &["run", "-"],
        Some("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[tick.circuitBreaker]\nfailureRateThreshold = 150\n"),
        "failureRateThreshold",
    );
    assert_one_line_error(&["breaker", "-"], Some("{not json"), "-:");
}

#[test]
fn the_streamed_trace_is_the_trace_object() {
    // Written a tick at a time, the output is still exactly the serialized `Trace`.
    let scenario = resilience_sim::scenario::catalogue::demo(7)
        .unwrap()
        .scenario();
    let expected = serde_json::to_string(&scenario.run(Some(40)).unwrap()).unwrap();
    let out = cli(&["demo", "7", "--ticks", "40"], None);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{expected}\n")
    );
}
