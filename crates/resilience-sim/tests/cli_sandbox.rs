//! Demo 10's promise: the sandbox's session, exported, is a script the CLI
//! (`resilience-sim breaker FILE`) replays to the same state and metrics.

use std::io::Write;
use std::process::{Command, Stdio};

use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::sandbox::{BreakerSandbox, SandboxCall, SandboxScenario};
use serde_json::Value;

fn cli_last_report(script: &str) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(["breaker", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    serde_json::from_str(text.lines().last().expect("one line per step")).unwrap()
}

fn assert_cli_agrees(sandbox: &BreakerSandbox) {
    let report = cli_last_report(&sandbox.export_json().unwrap());
    let m = sandbox.metrics();
    assert_eq!(report["state"], sandbox.state().as_str());
    assert_eq!(report["t_ms"], sandbox.now());
    assert_eq!(report["buffered"], m.buffered);
    assert_eq!(report["failed"], m.failed);
    assert_eq!(report["slow"], m.slow);
    assert_eq!(report["not_permitted"], m.not_permitted);
    assert_eq!(
        report["failure_rate"].as_f64(),
        Some(f64::from(m.failure_rate))
    );
}

#[test]
fn the_course_sequence_exported_replays_in_the_cli() {
    let mut s = BreakerSandbox::default();
    for call in [SandboxCall::Success; 5]
        .into_iter()
        .chain([SandboxCall::Failure; 5])
    {
        s.send(call).unwrap();
    }
    assert_eq!(s.state(), State::Open);
    s.send(SandboxCall::Success).unwrap();
    s.advance(10_001).unwrap();
    s.send(SandboxCall::Slow).unwrap();
    s.send(SandboxCall::Ignored).unwrap();
    assert_eq!(s.state(), State::HalfOpen);
    assert_cli_agrees(&s);
}

#[test]
fn both_misconfigurations_replay_in_the_cli() {
    for scenario in SandboxScenario::ALL {
        let mut s = BreakerSandbox::default();
        s.load_scenario(scenario);
        s.run_pending().unwrap();
        assert_cli_agrees(&s);
    }
    let mut storm = BreakerSandbox::default();
    storm.load_scenario(SandboxScenario::NotFoundStorm);
    storm.run_pending().unwrap();
    assert_eq!(
        storm.state(),
        State::Open,
        "404s that are not ignored open it"
    );
}

/// Scripts that make the bare breaker panic or loop (a clock at `u64::MAX`, a late outcome
/// after a manual OPEN) are refused or bounded by the sandbox, never a panic or a hang: an
/// import in the browser must not kill the page.
#[test]
fn hostile_imports_are_refused_or_bounded() {
    let max = u64::MAX;
    for script in [
        format!(r#"{{"steps":[{{"advance_ms":{max}}},{{"error":{{"exception":"IOException"}}}},{{"advance_ms":5}}]}}"#),
        format!(r#"{{"steps":[{{"transition":"OPEN"}},{{"advance_ms":{max}}}]}}"#),
        format!(r#"{{"config":{{"slidingWindowType":"TIME_BASED","slidingWindowSize":1}},"steps":[{{"advance_ms":{max}}},{{"error":{{"exception":"IOException"}}}}]}}"#),
        r#"{"steps":[{"transition":"DISABLED"},{"transition":"OPEN"},{"error":{"exception":"IOException"}}]}"#.to_string(),
        r#"{"steps":[{"transition":"FORCED_OPEN"},{"transition":"OPEN"},{"success":{"duration_ms":1}}]}"#.to_string(),
        format!(r#"{{"config":{{"waitDurationInOpenState":"{max}ms"}},"steps":[{{"transition":"OPEN"}},{{"advance_ms":1000}}]}}"#),
        "[".repeat(10_000),
    ] {
        let mut s = BreakerSandbox::default();
        let before = s.clone();
        match s.import_json(&script) {
            Ok(()) => assert!(s.now() <= resilience_sim::scenario::sandbox::MAX_CLOCK_MS),
            Err(e) => {
                assert!(!e.contains('\n'), "{e}");
                assert_eq!(s.state(), before.state(), "a refused import changes nothing");
            }
        }
        // The session still works afterwards.
        s.send(SandboxCall::Success).ok();
        s.advance(1_000).ok();
    }
}
