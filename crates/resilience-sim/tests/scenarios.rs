//! Scenario files: the demos' files equal the catalogue, load/run/save round-trips, and the
//! examples in docs/scenarios.md parse and behave as the spec says.

use resilience_sim::model::tick::Behaviour;
use resilience_sim::scenario::{catalogue, Format, Scenario};

fn repo_file(path: &str) -> String {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

#[test]
fn demo_files_are_the_catalogue() {
    for demo in catalogue::DEMOS {
        let text = repo_file(&format!("assets/scenarios/demo-{}.toml", demo.number));
        let from_file = Scenario::parse(&text, Format::Toml).expect("demo file parses");
        assert_eq!(from_file, demo.scenario(), "demo-{}.toml", demo.number);
    }
}

#[test]
fn load_run_save_round_trips_in_both_formats() {
    for demo in catalogue::DEMOS {
        let scenario = demo.scenario();
        for format in [Format::Toml, Format::Json] {
            let saved = scenario.save(format).unwrap();
            let loaded = Scenario::parse(&saved, format).unwrap();
            assert_eq!(loaded, scenario, "demo {} via {format:?}", demo.number);
            assert_eq!(loaded.run(None).unwrap(), scenario.run(None).unwrap());
        }
    }
}

fn doc_examples(fence: &str) -> Vec<String> {
    let doc = repo_file("docs/scenarios.md");
    doc.split(&format!("```{fence}\n"))
        .skip(1)
        .map(|block| block.split("```").next().unwrap().to_string())
        .collect()
}

#[test]
fn documented_examples_parse_and_recover_at_t6() {
    let toml = doc_examples("toml");
    let json = doc_examples("json");
    assert_eq!(toml.len(), 1);
    let by_hand = Scenario::parse(&toml[0], Format::Toml).unwrap();
    let trace = by_hand.run(None).unwrap();
    assert_eq!(trace.ticks.len(), 8);
    assert_eq!(
        trace.ticks[2].breaker,
        Some("OPEN"),
        "failing: opens at t = 3"
    );
    assert_eq!(
        trace.ticks[5].breaker,
        Some("CLOSED"),
        "healthy trials at t = 6 close it"
    );

    let bigger = Scenario::parse(&json[0], Format::Json).unwrap();
    assert_eq!(bigger.tick.world.threads, 10);
    assert_eq!(
        bigger.tick.circuit_breaker.wait_duration_in_open_state,
        5_000
    );
    // Unset breaker fields take Resilience4j's defaults.
    assert_eq!(
        bigger.tick.circuit_breaker.slow_call_duration_threshold,
        60_000
    );
    let trace = bigger.run(None).unwrap();
    // Opens at t = 3; a 5 s wait makes it HALF_OPEN at t = 8, where the healthy trials close it.
    assert_eq!(trace.ticks[6].breaker, Some("OPEN"));
    assert_eq!(trace.ticks[7].breaker, Some("CLOSED"));
}

#[test]
fn a_script_is_the_same_as_changing_the_select_by_hand() {
    let scripted = Scenario::parse(
        "name = \"x\"\nticks = 8\n[tick]\nbehaviour = \"failing\"\nprotection = \"circuit_breaker\"\n[[script]]\nat = 6\nbehaviour = \"healthy\"\n",
        Format::Toml,
    )
    .unwrap();
    let recovering = catalogue::demo(2).unwrap().scenario();
    assert_eq!(
        recovering.tick.behaviour,
        Behaviour::Recovering { healthy_from: 6 }
    );
    let states = |s: &Scenario| -> Vec<Option<&'static str>> {
        s.run(None)
            .unwrap()
            .ticks
            .iter()
            .map(|t| t.breaker)
            .collect()
    };
    assert_eq!(states(&scripted), states(&recovering));
}

#[test]
fn bad_scenarios_are_refused_with_a_message() {
    let cases = [
        ("name = \"x\"\n", "tick"),
        ("name = \"x\"\nticks = 0\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n", "ticks"),
        ("name = \"x\"\n[tick]\nbehaviour = \"sluggish\"\nprotection = \"none\"\n", "sluggish"),
        ("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[tick.world]\nthreads = 0\n", "threads"),
        ("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[tick.bulkhead]\nmaxWaitDuration = \"1s\"\n", "maxWaitDuration"),
        ("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[tick.circuitBreaker]\nwaitDurationInOpenState = \"soon\"\n", "soon"),
        ("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[[script]]\nat = 0\nprotection = \"bulkhead\"\n", "script.at"),
        ("name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[[script]]\nat = 2\n", "changes nothing"),
    ];
    for (text, mentions) in cases {
        let err = Scenario::parse(text, Format::Toml).expect_err(text);
        assert!(
            err.contains(mentions),
            "{err:?} should mention {mentions:?}"
        );
        assert!(!err.contains('\n'), "one line: {err:?}");
    }
    assert!(Scenario::parse("{\"name\": 3}", Format::Json).is_err());
}

#[test]
fn a_toml_error_says_where_it_is_and_does_not_echo_the_line() {
    // A 300-character description followed by a stray word: the error is on line 2, at
    // the word (after `description = "`, 15 characters, the value, its quote and a space).
    let long = "y".repeat(300);
    let text = format!("name = \"x\"\ndescription = \"{long}\" oops\nticks = 10\n");
    let err = Scenario::parse(&text, Format::Toml).unwrap_err();
    assert!(
        err.starts_with("TOML parse error at line 2, column 318: "),
        "{err}"
    );
    assert!(!err.contains("yyyy"), "{err}");
    assert!(!err.contains(" | "), "{err}");
    // A column counts characters, not bytes.
    let text = "name = \"é\" é\n";
    let err = Scenario::parse(text, Format::Toml).unwrap_err();
    assert!(
        err.starts_with("TOML parse error at line 1, column 12: "),
        "{err}"
    );
}
