//! `LabSession` for both retry labs: controls round-trip through their names, invalid
//! values are refused with the control's name and leave the session as it was, a link's
//! pairs give the run the CLI's flags give, and every control is named as its config field.

mod common;

use common::sample_values;
use std::process::Command;

use resilience_sim::model::amplification::{self, AmplificationPolicy, BackoffKind};
use resilience_sim::model::jitter::{self, JitterConfig};
use resilience_sim::policy::retry::Jitter;
use resilience_sim::scenario::lab_session::{ControlValue, LabModel, LabSession};
use resilience_sim::scenario::labs::{AmplificationLab, JitterLab};

fn controls_round_trip<L: LabModel>() {
    for control in L::controls() {
        for text in sample_values(control) {
            let mut session = LabSession::<L>::default();
            // A few values need another control first (a jitter needs a backoff; a cap
            // must be at least the base): set those through the same table.
            if control.name == "jitter" {
                session.set_text("backoff", "exponential").unwrap();
            }
            if control.name.ends_with("apMs") {
                session
                    .set_text(
                        if L::NAME == "jitter" {
                            "baseMs"
                        } else {
                            "backoffBaseMs"
                        },
                        "100",
                    )
                    .unwrap();
            }
            match session.set_text(control.name, &text) {
                Ok(()) => {
                    assert_eq!(control.text(session.config()), text, "{}", control.name);
                    // The link's pairs read back as the same session.
                    let pairs = session.to_pairs();
                    let (back, problems) =
                        LabSession::<L>::from_pairs(pairs.iter().map(|(n, v)| (*n, v.as_str())));
                    assert!(problems.is_empty(), "{}: {problems:?}", control.name);
                    assert!(
                        back == session,
                        "{} = {text}: the link restores it",
                        control.name
                    );
                }
                Err(e) => panic!(
                    "{} = {text} is in its range but was refused: {e}",
                    control.name
                ),
            }
        }
    }
}

#[test]
fn amplification_controls_round_trip_through_their_names() {
    controls_round_trip::<AmplificationLab>();
}

#[test]
fn jitter_controls_round_trip_through_their_names() {
    controls_round_trip::<JitterLab>();
}

#[test]
fn a_link_names_only_what_differs_from_the_spec() {
    let session = LabSession::<JitterLab>::default();
    assert!(session.to_pairs().is_empty());
    let (session, problems) =
        LabSession::<JitterLab>::from_pairs([("mode", "full"), ("seed", "7")]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        session.to_pairs(),
        vec![("mode", "full".to_string()), ("seed", "7".to_string())]
    );
    assert_eq!(session.config().config.mode, Jitter::Full);
    assert_eq!(session.config().config.seed, 7);
}

#[test]
fn invalid_values_are_refused_with_the_controls_name() {
    let mut session = LabSession::<JitterLab>::default();
    let before = session.clone();
    for (name, text) in [
        ("mode", "fuzzy"),
        ("clients", "0"),
        ("clients", "5001"),
        ("clients", "150.5"),
        ("clients", "many"),
        ("clients", "NaN"),
        ("capacityPerSlot", "-10"),
        ("multiplier", "inf"),
        ("baseMs", "soon"),
        ("seed", "-1"),
        ("seed", "1.5"),
        ("seed", "1e12"),
        ("compare", "perhaps"),
    ] {
        let e = session.set_text(name, text).unwrap_err();
        assert_eq!(e.field, name, "{name} = {text}: {e}");
        assert!(
            session == before,
            "{name} = {text} left the session as it was"
        );
    }
    let e = session.set_text("bogus", "1").unwrap_err();
    assert_eq!(e.field, "bogus");
    assert!(
        e.message.contains("mode"),
        "the message lists the controls: {e}"
    );
    // A value in the control's range that the model refuses: a cap below the base.
    let mut session = LabSession::<AmplificationLab>::default();
    let before = session.clone();
    let e = session.set_text("backoffCapMs", "300").unwrap_err();
    assert_eq!(e.field, "backoffCapMs");
    assert!(session == before);
    // Jitter needs a backoff: the model refuses it, named by the control.
    let e = session.set_text("jitter", "full").unwrap_err();
    assert_eq!(e.field, "jitter");
    // A typed value goes through the same checks.
    let e = session
        .set("retries", ControlValue::Number(11.0))
        .unwrap_err();
    assert_eq!(e.field, "retries");
    assert!(session == before);
}

#[test]
fn a_link_keeps_what_it_can_and_reports_the_rest() {
    let (session, problems) = LabSession::<JitterLab>::from_pairs([
        ("mode", "equal"),
        ("clients", "-3"),
        ("capacity", "80"),
        ("seed", "9"),
    ]);
    let fields: Vec<&str> = problems.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, vec!["clients", "capacity"]);
    assert_eq!(session.config().config.mode, Jitter::Equal);
    assert_eq!(session.config().config.seed, 9);
    assert_eq!(session.config().config.clients, 1_000);
    assert!(session.run().is_ok());
}

#[test]
fn no_backoff_turns_jitter_off() {
    let mut session = LabSession::<AmplificationLab>::default();
    session.set_text("backoff", "fixed").unwrap();
    session.set_text("jitter", "full").unwrap();
    session.set_text("backoff", "none").unwrap();
    assert_eq!(session.config().config.backoff, BackoffKind::None);
    assert_eq!(session.config().config.jitter, Jitter::None);
}

#[test]
fn the_sessions_run_is_the_models_run() {
    let (session, _) = LabSession::<JitterLab>::from_pairs([("mode", "full"), ("seed", "7")]);
    let expected = jitter::run(&JitterConfig {
        mode: Jitter::Full,
        seed: 7,
        ..JitterConfig::default()
    })
    .unwrap();
    assert_eq!(session.run().as_ref().unwrap(), &vec![expected]);

    let (compare, _) = LabSession::<JitterLab>::from_pairs([("compare", "true")]);
    let modes: Vec<Jitter> = compare
        .run()
        .as_ref()
        .unwrap()
        .iter()
        .map(|r| r.mode)
        .collect();
    assert_eq!(modes, Jitter::ALL.to_vec());

    let session = LabSession::<AmplificationLab>::default();
    let runs = session.run().as_ref().unwrap();
    let policies: Vec<AmplificationPolicy> = runs.iter().map(|r| r.policy).collect();
    assert_eq!(policies, AmplificationPolicy::ALL.to_vec());
    assert_eq!(
        runs[1],
        amplification::run(&Default::default(), AmplificationPolicy::Retries).unwrap()
    );
    // The retry-layers widget: 3 layers of 3 attempts make 27 calls (the spec's figure).
    assert_eq!(session.config().calls_on_provider(), 27);
}

fn cli_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-sim"))
        .args(args)
        .output()
        .expect("the CLI starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn a_run_from_a_link_equals_a_run_from_the_cli_flags() {
    let link = "mode=decorrelated&seed=7&baseMs=500&capMs=8000&clients=2000";
    let pairs: Vec<(&str, &str)> = link.split('&').filter_map(|p| p.split_once('=')).collect();
    let (session, problems) = LabSession::<JitterLab>::from_pairs(pairs.iter().copied());
    assert!(problems.is_empty(), "{problems:?}");
    let mut args = vec!["lab", "jitter"];
    let flags: Vec<String> = pairs.iter().map(|(n, _)| format!("--{n}")).collect();
    for ((_, value), flag) in pairs.iter().zip(&flags) {
        args.push(flag);
        args.push(value);
    }
    let from_cli = cli_json(&args);
    let from_link = serde_json::to_value(&session.run().as_ref().unwrap()[0]).unwrap();
    assert_eq!(from_cli, from_link);

    let (session, problems) = LabSession::<AmplificationLab>::from_pairs([
        ("retries", "2"),
        ("backoff", "exponential"),
        ("jitter", "full"),
        ("seed", "3"),
    ]);
    assert!(problems.is_empty(), "{problems:?}");
    let from_cli = cli_json(&[
        "lab",
        "amplification",
        "--policy",
        "retries",
        "--retries",
        "2",
        "--backoff",
        "exponential",
        "--jitter",
        "full",
        "--seed",
        "3",
    ]);
    let from_link = serde_json::to_value(&session.run().as_ref().unwrap()[1]).unwrap();
    assert_eq!(from_cli, from_link);
}

/// Each control that the CLI takes is a field of the model's JSON config, by the same name.
#[test]
fn every_control_is_named_as_its_config_field() {
    let amplification =
        serde_json::to_value(amplification::AmplificationConfig::default()).unwrap();
    for c in AmplificationLab::controls()
        .iter()
        .filter(|c| c.is_cli_flag())
    {
        assert!(amplification.get(c.name).is_some(), "{}", c.name);
    }
    let jitter = serde_json::to_value(JitterConfig::default()).unwrap();
    for c in JitterLab::controls().iter().filter(|c| c.is_cli_flag()) {
        assert!(jitter.get(c.name).is_some(), "{}", c.name);
    }
    // And the defaults the page starts from are the spec's.
    let d = LabSession::<JitterLab>::default();
    let c = &d.config().config;
    assert_eq!(
        (c.clients, c.capacity_per_slot, c.base_ms, c.duration_ms),
        (1_000, 150, 1_000, 15_000)
    );
    assert_eq!(c.multiplier, 2.0);
}

#[test]
fn a_link_valid_as_a_whole_opens_whatever_its_order() {
    use resilience_sim::scenario::brownout_lab::BrownoutLab;
    // Found by the fuzzer: in table order, `seconds` and `submissionsPerSecond` come before
    // `maxAttempts`; with the default maxAttempts in between, the run would simulate
    // 2,624,000 calls, over the 2,000,000-call limit, though the link as a whole is valid.
    let link = [
        ("seconds", "600"),
        ("submissionsPerSecond", "1000"),
        ("maxAttempts", "1"),
    ];
    let (session, problems) = LabSession::<BrownoutLab>::read_pairs(link);
    assert!(problems.is_empty(), "{problems:?}");
    let again = LabSession::<BrownoutLab>::deferred(session);
    let back: Vec<(&str, String)> = again.to_pairs();
    assert_eq!(back.len(), 3, "{back:?}");
    // A link no order can make valid still loses what the model refuses, with a message.
    let (_, problems) = LabSession::<BrownoutLab>::read_pairs([
        ("seconds", "600"),
        ("submissionsPerSecond", "1000"),
    ]);
    assert_eq!(problems.len(), 1, "{problems:?}");
}
