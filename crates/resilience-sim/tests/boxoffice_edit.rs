//! Demo 14's edits: a learner's changes to a scenario's system, kept as a merge patch on
//! the scenario with its variant, carried by a link when short, and run the same as the
//! scenario file they make.

use resilience_sim::model::boxoffice::edit::{diff, patched, DoorFeature, Edit, Layer};
use resilience_sim::model::boxoffice::{self, scenarios, topology::ProbeCheck, Topology};
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
    }
    out
}

#[test]
fn every_shipped_system_reads_back_as_it_writes() {
    for l in every_variant() {
        let t = l.topology().unwrap();
        let again = Topology::from_value(serde_json::to_value(&t).unwrap()).unwrap();
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
            match t.apply(&edit) {
                Ok(changed) => {
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
