//! Demo 14's edits: a learner's changes to a scenario's system, kept as a merge patch on
//! the scenario with its variant, carried by a link when short, and run the same as the
//! scenario file they make.

mod common;

use proptest::prelude::*;
use resilience_sim::model::boxoffice::edit::{
    diff, patched, settings, DoorFeature, Edit, Layer, MAX_COMPONENTS,
};
use resilience_sim::model::boxoffice::topology::{Action, ProbeCheck};
use resilience_sim::model::boxoffice::{self, scenarios, Topology};
use resilience_sim::resilience4j::PolicyConfig;
use resilience_sim::scenario::boxoffice_lab::{BoxOfficeLab, Edits, SCENARIOS};
use resilience_sim::scenario::lab_session::{LabModel, LabSession};

fn lab(scenario: &'static str, variant: &'static str) -> BoxOfficeLab {
    BoxOfficeLab {
        scenario,
        variant,
        seed: 1,
        edits: None,
    }
}

fn every_variant() -> impl Iterator<Item = BoxOfficeLab> {
    SCENARIOS
        .iter()
        .flat_map(|s| s.variants.iter().map(|(v, _)| lab(s.name, v)))
}

/// Every edit a learner can make to `t`, once each.
fn edits_of(t: &Topology) -> Vec<Edit> {
    let mut out = vec![Edit::AddClient, Edit::AddDependency];
    for name in t.clients.keys() {
        out.push(Edit::RemoveClient(name.clone()));
    }
    for feature in DoorFeature::ALL {
        out.push(Edit::Door {
            feature,
            on: !feature.is_on(t),
        });
    }
    for dep in t.dependencies.keys() {
        out.push(Edit::RemoveDependency(dep.clone()));
        for layer in Layer::ALL {
            for on in [true, false] {
                out.push(Edit::Layer {
                    dependency: dep.clone(),
                    layer,
                    on,
                });
            }
        }
        for endpoint in t.replicas.endpoints.keys() {
            for on in [true, false] {
                out.push(Edit::Connect {
                    endpoint: endpoint.clone(),
                    dependency: dep.clone(),
                    on,
                });
            }
        }
        out.push(Edit::AddTimelineEntry {
            action: Action::Failing,
            dependency: Some(dep.clone()),
        });
    }
    for action in Action::ALL {
        out.push(Edit::AddTimelineEntry {
            action,
            dependency: None,
        });
    }
    for i in 0..=t.timeline.len() {
        out.push(Edit::RemoveTimelineEntry(i));
    }
    out
}

#[test]
fn every_shipped_system_reads_back_as_it_writes() {
    for l in every_variant() {
        let t = l.topology().unwrap();
        let value = serde_json::to_value(&t).unwrap();
        // No `null` anywhere: a merge patch cannot set one, so an option left out is
        // written left out.
        assert!(!value.to_string().contains("null"), "{value}");
        let again = Topology::from_value(value).unwrap();
        assert_eq!(again, t, "{} {}", l.scenario, l.variant);
    }
}

#[test]
fn the_patch_turns_the_base_into_the_target() {
    let a = serde_json::json!({"a": 1, "b": {"c": 2, "d": [1, 2]}, "e": "x"});
    let b = serde_json::json!({"a": 1, "b": {"c": 3, "d": [1]}, "f": true});
    let patch = diff(&a, &b);
    assert_eq!(
        patch,
        serde_json::json!({"b": {"c": 3, "d": [1]}, "e": null, "f": true})
    );
    assert_eq!(patched(&a, &patch), b);
    assert_eq!(diff(&a, &a), serde_json::json!({}));
}

#[test]
fn every_edit_of_every_system_is_kept_exactly_or_refused_with_a_reason() {
    for l in every_variant() {
        let t = l.topology().unwrap();
        for edit in edits_of(&t) {
            let mut changed = t.clone();
            match changed.apply(&edit) {
                Ok(()) => {
                    let edited = l.with_edit(&edit).unwrap();
                    let mut expected = changed.clone();
                    expected.variants.clear();
                    assert_eq!(
                        edited.topology().unwrap(),
                        expected,
                        "{} {} {edit:?}",
                        l.scenario,
                        l.variant
                    );
                    assert!(edited.validate().is_ok());
                }
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    assert_eq!(changed, t, "a refused edit changes nothing: {edit:?}");
                    assert!(l.with_edit(&edit).is_err(), "{edit:?}");
                }
            }
        }
    }
}

#[test]
fn an_edit_back_to_the_scenario_leaves_no_edits() {
    let l = lab("retry-storm", "naive-retries");
    let on = l
        .with_edit(&Edit::Layer {
            dependency: "payment".into(),
            layer: Layer::Bulkhead,
            on: true,
        })
        .unwrap();
    assert!(on.is_edited());
    let off = on
        .with_edit(&Edit::Layer {
            dependency: "payment".into(),
            layer: Layer::Bulkhead,
            on: false,
        })
        .unwrap();
    assert_eq!(off, l);
}

/// A fault added on the page is in the run from the second it is set to; removed, the
/// system is the scenario again.
#[test]
fn a_timeline_entry_added_moved_and_removed() {
    let name = "payment-system";
    let variant = SCENARIOS.iter().find(|s| s.name == name).unwrap().variants[0].0;
    let l = lab(name, variant);
    let t = l.topology().unwrap();
    let n = t.timeline.len();
    let added = l
        .with_edit(&Edit::AddTimelineEntry {
            action: Action::Down,
            dependency: Some("payment".into()),
        })
        .unwrap();
    let at = added.topology().unwrap();
    assert_eq!(at.timeline.len(), n + 1);
    let entry = &at.timeline[n];
    // At the scenario's trigger, on the named dependency.
    assert_eq!(
        (entry.at_s, entry.action, entry.dependency.as_deref()),
        (
            f64::from(t.trigger_s.unwrap()),
            Action::Down,
            Some("payment")
        )
    );
    let path = format!("timeline.{n}.atS");
    assert!(settings(&at)
        .iter()
        .any(|s| s.path == path && s.component == format!("timeline.{n}")));
    let moved = added
        .with_edit(&Edit::Set {
            path: path.clone(),
            value: 10.0,
        })
        .unwrap();
    assert_eq!(moved.topology().unwrap().timeline[n].at_s, 10.0);
    // Past the longest run is refused.
    assert!(moved
        .with_edit(&Edit::Set {
            path,
            value: 3_601.0
        })
        .is_err());
    // Down, payment answers no call from second 10; in the scenario it answers until its
    // own first fault, at 40 s.
    let served = |l: &BoxOfficeLab| -> Vec<u64> {
        let run = boxoffice::run(l.topology().unwrap(), name, variant, 1, Some(30)).unwrap();
        run.seconds[11..30]
            .iter()
            .map(|s| s.dependencies.get("payment").map_or(0, |d| d.served))
            .collect()
    };
    assert!(served(&l).iter().all(|n| *n > 0), "{:?}", served(&l));
    assert!(
        served(&moved).iter().all(|n| *n == 0),
        "{:?}",
        served(&moved)
    );
    // Removed, the system is the scenario again, with no edits.
    assert_eq!(moved.with_edit(&Edit::RemoveTimelineEntry(n)).unwrap(), l);
    assert!(l.with_edit(&Edit::RemoveTimelineEntry(n)).is_err());
    assert!(l
        .with_edit(&Edit::AddTimelineEntry {
            action: Action::Slow,
            dependency: Some("nowhere".into()),
        })
        .is_err());
}

#[test]
fn numbers_change_within_their_bounds_and_only_the_listed_ones() {
    let l = lab("cascading-failure", "unprotected");
    let two = l
        .with_edit(&Edit::Set {
            path: "replicas.count".into(),
            value: 2.0,
        })
        .unwrap();
    assert_eq!(two.topology().unwrap().replicas.count, 2);
    assert_eq!(two.run().unwrap().seconds[5].replicas.len(), 2);
    // The validator's bound (64 replicas) and a path that is not a setting.
    assert!(l
        .with_edit(&Edit::Set {
            path: "replicas.count".into(),
            value: 65.0,
        })
        .unwrap_err()
        .to_string()
        .contains("between 1 and 64"));
    assert!(l
        .with_edit(&Edit::Set {
            path: "version".into(),
            value: 2.0,
        })
        .is_err());
    assert!(l
        .with_edit(&Edit::Set {
            path: "replicas.threads".into(),
            value: f64::NAN,
        })
        .is_err());
}

#[test]
fn the_last_client_cannot_go_and_names_stay_unique() {
    let l = lab("retry-storm", "naive-retries");
    let err = l
        .with_edit(&Edit::RemoveClient("purchases".into()))
        .unwrap_err();
    assert!(err.to_string().contains("at least one client"), "{err}");
    let one = l.with_edit(&Edit::AddDependency).unwrap();
    let two = one.with_edit(&Edit::AddDependency).unwrap();
    let names: Vec<String> = two.topology().unwrap().dependencies.into_keys().collect();
    assert_eq!(names, ["dependency-2", "dependency-3", "payment"]);
}

#[test]
fn removing_a_dependency_removes_every_reference_to_it() {
    let l = lab("payment-system", "liveness-on-payment");
    let before = l.topology().unwrap();
    assert!(before
        .replicas
        .probes
        .liveness
        .as_ref()
        .is_some_and(|p| p.check == ProbeCheck::Dependency));
    let t = l
        .with_edit(&Edit::RemoveDependency("payment".into()))
        .unwrap()
        .topology()
        .unwrap();
    assert!(t.dependencies.is_empty());
    assert!(t.replicas.stacks.is_empty());
    assert!(t.replicas.endpoints.values().all(|e| e.calls.is_empty()));
    assert!(t.timeline.iter().all(|e| e.dependency.is_none()));
    let liveness = t.replicas.probes.liveness.unwrap();
    assert_eq!(
        (liveness.check, liveness.dependency),
        (ProbeCheck::Resources, None)
    );
}

#[test]
fn a_door_feature_switched_on_has_its_stated_defaults() {
    let l = lab("cascading-failure", "unprotected");
    let t = l
        .with_edit(&Edit::Door {
            feature: DoorFeature::Shedding,
            on: true,
        })
        .unwrap()
        .topology()
        .unwrap();
    // The replicas' threads: 1 replica of 200.
    assert_eq!(t.door.shedding.unwrap().limit, 200);
}

#[test]
fn a_link_carries_the_edits_and_reads_them_back() {
    let l = lab("cascading-failure", "unprotected")
        .with_edit(&Edit::Set {
            path: "replicas.count".into(),
            value: 3.0,
        })
        .unwrap()
        .with_edit(&Edit::Layer {
            dependency: "payment".into(),
            layer: Layer::CircuitBreaker,
            on: true,
        })
        .unwrap();
    let session = LabSession::new(l.clone());
    let pairs = session.to_pairs();
    let edits = &pairs.iter().find(|(n, _)| *n == "edits").unwrap().1;
    assert!(edits.len() < 200, "{edits}");
    let (read, problems) =
        LabSession::<BoxOfficeLab>::read_pairs(pairs.iter().map(|(n, v)| (*n, v.as_str())));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(read, l);
    // Edits before the scenario in the link apply to that scenario all the same.
    let (read, problems) = LabSession::<BoxOfficeLab>::read_pairs([
        ("edits", r#"{"replicas":{"count":2}}"#),
        ("scenario", "retry-storm"),
    ]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(read.topology().unwrap().replicas.count, 2);
    assert_eq!(read.scenario, "retry-storm");
}

#[test]
fn a_broken_or_long_edits_parameter_is_one_problem_and_no_edits() {
    let long = format!(r#"{{"description":"{}"}}"#, "x".repeat(3_000));
    for bad in [
        "not json",
        "[1,2]",
        r#"{"replicas":{"count":0}}"#,
        r#"{"nonsense":1}"#,
        long.as_str(),
    ] {
        let (read, problems) =
            LabSession::<BoxOfficeLab>::read_pairs([("scenario", "flash-sale"), ("edits", bad)]);
        assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
        assert!(problems[0].to_string().len() < 400, "{}", problems[0]);
        assert_eq!(read.edits, None);
        assert_eq!(read.scenario, "flash-sale");
    }
}

#[test]
fn changing_the_scenario_or_the_variant_drops_the_edits() {
    let l = lab("flash-sale", "no-shedding")
        .with_edit(&Edit::Set {
            path: "replicas.count".into(),
            value: 6.0,
        })
        .unwrap();
    let mut session = LabSession::deferred(l);
    session
        .set_deferred(
            "variant",
            resilience_sim::scenario::lab_session::ControlValue::Choice("waiting-room"),
        )
        .unwrap();
    assert_eq!(session.config().edits, None);
}

#[test]
fn an_imported_file_runs_as_the_scenario_it_is() {
    let text = scenarios::file("cascading-failure").unwrap();
    let imported = lab("retry-storm", "naive-retries").with_file(text).unwrap();
    assert!(imported.is_edited());
    let theirs = lab("cascading-failure", "unprotected").run().unwrap();
    let ours = imported.run().unwrap();
    assert_eq!(ours.seconds, theirs.seconds);
    assert_eq!(ours.summary, theirs.summary);
    // Its variants are not used, and the page says so; a file without them needs no word.
    let note = BoxOfficeLab::file_note(text).unwrap();
    assert!(
        note.contains("bulkhead") && note.contains("--variant NAME"),
        "{note}"
    );
    assert_eq!(
        BoxOfficeLab::file_note(&imported.file_text().unwrap()),
        None
    );
    // With a BOM, as some editors save it.
    assert!(lab("retry-storm", "naive-retries")
        .with_file(&format!("\u{feff}{text}"))
        .is_ok());
}

#[test]
fn an_import_too_large_or_broken_is_refused_on_one_line() {
    let l = lab("retry-storm", "naive-retries");
    let big = format!("{{\"description\": \"{}\"}}", "x".repeat(70 * 1024));
    let err = l.with_file(&big).unwrap_err().to_string();
    assert!(err.contains("at most 64 KB"), "{err}");
    for bad in ["", "{", "{\"version\": 2}", "\u{0}\u{1}"] {
        let err = l.with_file(bad).unwrap_err().to_string();
        assert!(!err.contains('\n'), "{err}");
    }
}

/// A key written twice in one object is refused wherever a document is read, as the typed
/// reader refuses it: JSON's own parsers keep the last, so `"seconds": 60, "seconds": 5`
/// ran a 5 s system without a word.
#[test]
fn a_key_written_twice_is_refused_in_a_file_and_in_edits() {
    use resilience_sim::model::boxoffice::edit::read_edits;
    let text = scenarios::file("cascading-failure").unwrap();
    assert!(text.contains("\"seconds\": 60,"), "the shipped file's form");
    let twice = text.replacen("\"seconds\": 60,", "\"seconds\": 60, \"seconds\": 5,", 1);
    let error = lab("retry-storm", "naive-retries")
        .with_file(&twice)
        .unwrap_err()
        .to_string();
    assert!(error.contains("duplicate field `seconds`"), "{error}");
    let error = Topology::from_json(&twice, None).unwrap_err().to_string();
    assert!(error.contains("duplicate field `seconds`"), "{error}");
    let error = read_edits(r#"{"door":{"a":1,"a":2}}"#)
        .unwrap_err()
        .to_string();
    assert!(error.contains("duplicate field `a`"), "{error}");
    // The same key in two objects is no repeat.
    assert!(read_edits(r#"{"a":{"x":1},"b":{"x":2}}"#).is_ok());
}

#[test]
fn the_downloaded_file_runs_the_same_in_the_cli_engine() {
    let l = lab("rate-limiter", "token-bucket")
        .with_edit(&Edit::Set {
            path: "door.tokenBucket.burst".into(),
            value: 5.0,
        })
        .unwrap();
    let file = l.file_text().unwrap();
    let t = Topology::from_json(&file, None).unwrap();
    let cli = boxoffice::run(t, "rate-limiter", "token-bucket", 1, None).unwrap();
    assert_eq!(cli, l.run().unwrap());
}

#[test]
fn the_resilience4j_export_follows_an_added_breaker() {
    let l = lab("cascading-failure", "unprotected");
    let has_breaker = |l: &BoxOfficeLab| {
        resilience_sim::resilience4j::labs::boxoffice(l)
            .iter()
            .any(|i| i.name == "payment" && matches!(i.config, PolicyConfig::CircuitBreaker(_)))
    };
    assert!(!has_breaker(&l));
    let with = l
        .with_edit(&Edit::Layer {
            dependency: "payment".into(),
            layer: Layer::CircuitBreaker,
            on: true,
        })
        .unwrap();
    assert!(has_breaker(&with));
    assert!(matches!(with.edits, Some(Edits(_))));
}

/// Sets `path` in the system's document to `value` and reads it back as the CLI would.
fn read_with(t: &Topology, path: &str, value: f64) -> Result<Topology, String> {
    let mut doc = serde_json::to_value(t).unwrap();
    let number = if value.fract() == 0.0 {
        serde_json::json!(value as i64)
    } else {
        serde_json::json!(value)
    };
    scenarios::set_path(&mut doc, path, number).map_err(|e| e.to_string())?;
    Topology::from_value(doc).map_err(|e| e.to_string())
}

#[test]
fn every_setting_bound_is_the_validators() {
    for l in every_variant() {
        let t = l.topology().unwrap();
        let listed = settings(&t);
        assert!(listed.iter().any(|s| s.path == "replicas.count"));
        for s in listed {
            let at = |v: f64| read_with(&t, &s.path, v);
            assert!(s.min <= s.value && s.value <= s.max, "{s:?}");
            // The bounds are accepted, one step past them is refused, by the validator.
            for v in [s.min, s.max] {
                assert!(at(v).is_ok(), "{} {}: {v} {:?}", l.scenario, s.path, at(v));
                let mut edited = t.clone();
                edited
                    .apply(&Edit::Set {
                        path: s.path.clone(),
                        value: v,
                    })
                    .unwrap_or_else(|e| panic!("{} {v}: {e}", s.path));
            }
            for v in [s.min - s.step, s.max + s.step] {
                assert!(at(v).is_err(), "{} {}: {v} accepted", l.scenario, s.path);
                let mut edited = t.clone();
                let e = edited.apply(&Edit::Set {
                    path: s.path.clone(),
                    value: v,
                });
                assert!(e.is_err() && edited == t, "{} {v}", s.path);
            }
        }
    }
}

#[test]
fn the_settings_follow_the_layers_switched_on() {
    let l = lab("cascading-failure", "unprotected");
    let paths = |l: &BoxOfficeLab| -> Vec<String> {
        settings(&l.topology().unwrap())
            .into_iter()
            .filter(|s| s.component == "dependencies.payment")
            .map(|s| s.path)
            .collect()
    };
    assert!(!paths(&l).iter().any(|p| p.contains("circuitBreaker")));
    let with = l
        .with_edit(&Edit::Layer {
            dependency: "payment".into(),
            layer: Layer::CircuitBreaker,
            on: true,
        })
        .unwrap();
    let listed = settings(&with.topology().unwrap());
    let threshold = listed
        .iter()
        .find(|s| s.path == "replicas.stacks.payment.circuitBreaker.failureRateThreshold")
        .unwrap();
    // Resilience4j's default, a percentage.
    assert_eq!((threshold.value, threshold.unit), (50.0, "%"));
    let window = listed
        .iter()
        .find(|s| s.path == "replicas.stacks.payment.circuitBreaker.waitDurationInOpenState")
        .unwrap();
    assert_eq!((window.value, window.unit), (60_000.0, "ms"));
    // A fraction where the field is whole is refused on one line.
    let e = l
        .with_edit(&Edit::Set {
            path: "replicas.count".into(),
            value: 2.5,
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("whole number"), "{e}");
}

#[test]
fn components_are_bounded_at_eight() {
    let mut l = lab("retry-storm", "naive-retries");
    let mut added = 0;
    while let Ok(next) = l.with_edit(&Edit::AddClient) {
        l = next;
        added += 1;
        assert!(added <= MAX_COMPONENTS);
    }
    let t = l.topology().unwrap();
    assert_eq!(t.clients.len(), MAX_COMPONENTS);
    assert!(t.clients.contains_key("client-2"));
    let e = l.with_edit(&Edit::AddClient).unwrap_err().to_string();
    assert!(e.contains("at most 8"), "{e}");
    let mut l = lab("retry-storm", "naive-retries");
    while let Ok(next) = l.with_edit(&Edit::AddDependency) {
        l = next;
    }
    assert_eq!(l.topology().unwrap().dependencies.len(), MAX_COMPONENTS);
}

#[test]
fn a_layer_switched_on_makes_the_stack_with_its_stated_value() {
    // A new dependency has no stack: switching a layer on makes one.
    let l = lab("retry-storm", "naive-retries")
        .with_edit(&Edit::AddDependency)
        .unwrap();
    let dependency = "dependency-2".to_string();
    assert!(!l
        .topology()
        .unwrap()
        .replicas
        .stacks
        .contains_key(&dependency));
    let with = l
        .with_edit(&Edit::Layer {
            dependency: dependency.clone(),
            layer: Layer::ReadTimeout,
            on: true,
        })
        .unwrap()
        .topology()
        .unwrap();
    assert_eq!(
        with.replicas.stacks[&dependency].read_timeout_ms,
        Some(2_000)
    );
    let with = l
        .with_edit(&Edit::Layer {
            dependency: dependency.clone(),
            layer: Layer::Retry,
            on: true,
        })
        .unwrap()
        .topology()
        .unwrap();
    assert_eq!(
        with.replicas.stacks[&dependency].retry,
        Some(resilience_sim::policy::retry::RetryConfig::default())
    );
}

#[test]
fn the_cli_runs_a_links_edits_and_the_downloaded_file() {
    let l = lab("cascading-failure", "unprotected")
        .with_edit(&Edit::Set {
            path: "replicas.count".into(),
            value: 2.0,
        })
        .unwrap()
        .with_edit(&Edit::Layer {
            dependency: "payment".into(),
            layer: Layer::Bulkhead,
            on: true,
        })
        .unwrap();
    let page = serde_json::to_value(l.run().unwrap()).unwrap();
    let edits = l.edits_text().unwrap();
    let cli = common::json(&[
        "lab",
        "boxoffice",
        "--scenario",
        "cascading-failure",
        "--variant",
        "unprotected",
        "--seed",
        "1",
        "--edits",
        &edits,
    ]);
    assert_eq!(cli, page);
    // The file the page downloads, run by `--file`: the same seconds and summary.
    let dir = std::env::temp_dir().join(format!("boxoffice-edit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("system.json");
    std::fs::write(&path, l.file_text().unwrap()).unwrap();
    let from_file = common::json(&[
        "lab",
        "boxoffice",
        "--file",
        path.to_str().unwrap(),
        "--seed",
        "1",
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(from_file["seconds"], page["seconds"]);
    assert_eq!(from_file["summary"], page["summary"]);
    // Broken edits: one line, exit code 2.
    let e = common::refused(&[
        "lab",
        "boxoffice",
        "--scenario",
        "cascading-failure",
        "--edits",
        "not json",
    ]);
    assert!(e.contains("edits"), "{e}");
}

fn any_edit(t: &Topology, pick: usize, on: bool, value: f64) -> Edit {
    let deps: Vec<&String> = t.dependencies.keys().collect();
    let clients: Vec<&String> = t.clients.keys().collect();
    let endpoints: Vec<&String> = t.replicas.endpoints.keys().collect();
    let listed = settings(t);
    match pick % 9 {
        7 => Edit::AddTimelineEntry {
            action: Action::ALL[pick / 9 % Action::ALL.len()],
            dependency: None,
        },
        8 => Edit::RemoveTimelineEntry(pick / 9 % (t.timeline.len() + 1)),
        0 => {
            let s = &listed[pick / 7 % listed.len()];
            Edit::Set {
                path: s.path.clone(),
                value: (s.min + value * (s.max - s.min).min(1_000.0)).round(),
            }
        }
        1 if on => Edit::AddClient,
        1 => Edit::RemoveClient(clients[pick / 7 % clients.len()].clone()),
        2 if on || deps.is_empty() => Edit::AddDependency,
        2 => Edit::RemoveDependency(deps[pick / 7 % deps.len()].clone()),
        3 if !deps.is_empty() => Edit::Connect {
            endpoint: endpoints[pick / 7 % endpoints.len()].clone(),
            dependency: deps[pick / 11 % deps.len()].clone(),
            on,
        },
        4 | 5 if !deps.is_empty() => Edit::Layer {
            dependency: deps[pick / 7 % deps.len()].clone(),
            layer: Layer::ALL[pick / 13 % Layer::ALL.len()],
            on,
        },
        _ => Edit::Door {
            feature: DoorFeature::ALL[pick / 7 % DoorFeature::ALL.len()],
            on,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Any sequence of edits on any shipped system: the patch kept turns the base into the
    /// edited document, the lab's system is the one the edits made, a refused edit
    /// changes nothing, and the link reads the lab back.
    #[test]
    fn random_edits_are_kept_exactly_as_a_patch(
        which in 0usize..21,
        steps in proptest::collection::vec((0usize..10_000, any::<bool>(), 0.0f64..1.0), 1..6),
    ) {
        let mut l = every_variant().nth(which).unwrap();
        let mut t = l.topology().unwrap();
        for (pick, on, value) in steps {
            let edit = any_edit(&t, pick, on, value);
            let before = t.clone();
            match t.apply(&edit) {
                Ok(()) => {
                    l = l.with_edit(&edit).unwrap();
                    prop_assert_eq!(&l.topology().unwrap(), &t);
                }
                Err(_) => {
                    prop_assert_eq!(&t, &before);
                    prop_assert!(l.with_edit(&edit).is_err());
                }
            }
            let base = l.base_document().unwrap();
            let document = l.document().unwrap();
            let patch = diff(&base, &document);
            prop_assert_eq!(&patched(&base, &patch), &document);
            prop_assert_eq!(l.edits.as_ref().map(|Edits(p)| p.clone()).unwrap_or(serde_json::json!({})), patch);
        }
        if l.edits_fit_in_link() {
            let pairs = LabSession::new(l.clone()).to_pairs();
            let (read, problems) = LabSession::<BoxOfficeLab>::read_pairs(
                pairs.iter().map(|(n, v)| (*n, v.as_str())),
            );
            prop_assert!(problems.is_empty(), "{:?}", problems);
            prop_assert_eq!(read, l);
        }
    }
}

/// A link's edits that serde_json cannot read get serde_json's reason: a well-formed object
/// nested past its 128 levels was called "not a JSON object".
#[test]
fn edits_json_cannot_read_say_why() {
    use resilience_sim::model::boxoffice::edit::read_edits;
    let deep = format!("{}1{}", r#"{"a":"#.repeat(300), "}".repeat(300));
    let error = read_edits(&deep).unwrap_err().to_string();
    assert!(error.contains("recursion limit exceeded"), "{error}");
    let surrogate = r#"{"description":"\ud800"}"#;
    let error = read_edits(surrogate).unwrap_err().to_string();
    assert!(error.contains("a surrogate without its pair"), "{error}");
    let cut = r#"{"clients":"#;
    let error = read_edits(cut).unwrap_err().to_string();
    assert!(
        error.starts_with("edits: cannot be read as JSON: EOF"),
        "{error}"
    );
    assert!(error.ends_with(r#"(got “{"clients":”)"#), "{error}");
    assert_eq!(
        read_edits("[1]").unwrap_err().to_string(),
        "edits: must be a JSON object"
    );
}
