//! The BoxOffice engine against hostile scenario files: the shipped scenarios with settings
//! set to values at and beyond their bounds (zero workers, zero threads, zero capacity,
//! 1 ms deadlines, huge queues, negative and fractional numbers, null parts, nonsense
//! types), and arbitrary bytes. A file a learner imports runs in the browser, where a
//! panic kills the page: every input is either refused with one line naming a field, or
//! runs (a short run here) with every user accounted for.

use proptest::prelude::*;
use resilience_sim::model::boxoffice::{scenarios, Sim};
use serde_json::{json, Value};

const PATHS: [&str; 24] = [
    "replicas.count",
    "replicas.threads",
    "replicas.acceptQueue",
    "replicas.startupMs",
    "replicas.restartMs",
    "replicas.variancePercent",
    "replicas.propagateDeadlines",
    "replicas.stacks.payment.readTimeoutMs",
    "replicas.stacks.payment.connectTimeoutMs",
    "replicas.stacks.payment.bulkhead",
    "replicas.stacks.payment.retry",
    "replicas.stacks.payment.circuitBreaker",
    "replicas.probes.liveness",
    "replicas.probes.readiness.periodMs",
    "dependencies.payment.workers",
    "dependencies.payment.queue",
    "dependencies.payment.serviceMs",
    "dependencies.payment.declinePercent",
    "door.shedding",
    "door.tokenBucket",
    "door.adaptive",
    "waitingRoom",
    "timeline",
    "seconds",
];

fn hostile() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(1)),
        Just(json!(-1)),
        Just(json!(0.5)),
        Just(json!(1e12)),
        Just(json!(u64::MAX)),
        Just(json!(null)),
        Just(json!("x")),
        Just(json!(true)),
        Just(json!([])),
        Just(json!({})),
        Just(json!({ "maxConcurrentCalls": 0, "maxWaitDuration": "0ms" })),
        Just(json!({ "limit": 0 })),
        Just(json!({ "limit": 1, "shares": { "critical": 0 } })),
        Just(json!({ "ratePerSecond": 0, "burst": 0 })),
        Just(json!({ "initialLimit": 0, "minLimit": 0, "maxLimit": 0 })),
        Just(json!({ "capacity": 0, "order": "lifo" })),
        Just(json!({ "periodMs": 1, "failureThreshold": 1, "check": "resources" })),
        Just(json!([{ "atS": 1, "do": "scale", "replicas": 0 }])),
        Just(json!([{ "atS": 1, "do": "demand", "factor": 1e9 }])),
        Just(json!([{ "atS": 1, "do": "unreachable", "dependency": "payment" }])),
        (0u64..5_000).prop_map(|n| json!(n)),
    ]
}

fn check(text: &str, variant: Option<String>, settings: Vec<(String, Value)>) {
    match scenarios::load(text, variant.as_deref(), &settings) {
        Err(e) => {
            let line = e.to_string();
            assert_eq!(line.lines().count(), 1, "{line}");
            assert!(line.len() < 600, "{line}");
        }
        Ok(topology) => {
            let Ok(mut sim) = Sim::new(topology, "fuzz", "", 3, Some(8)) else {
                return;
            };
            sim.advance_to(8_000);
            let run = sim.finish();
            let s = &run.summary;
            for (i, row) in [
                &s.classes.critical,
                &s.classes.important,
                &s.classes.sheddable,
            ]
            .into_iter()
            .enumerate()
            {
                let ended = row.in_time
                    + row.late
                    + row.failed
                    + row.fallback
                    + row.rate_limited
                    + row.shed;
                assert_eq!(row.offered, ended + s.unfinished[i]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn hostile_settings_are_refused_or_run(
        scenario in 0usize..5,
        variant in 0usize..8,
        edits in prop::collection::vec((0usize..PATHS.len(), hostile()), 1..4),
    ) {
        let name = scenarios::names()[scenario];
        let text = scenarios::file(name).unwrap();
        let variants = scenarios::variants(text);
        let variant = variants.get(variant).cloned();
        let settings = edits
            .into_iter()
            .map(|(p, v)| (PATHS[p].to_string(), v))
            .collect();
        check(text, variant, settings);
    }

    #[test]
    fn arbitrary_bytes_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        check(&text, None, Vec::new());
    }

    #[test]
    fn a_truncated_file_is_refused_or_runs(scenario in 0usize..5, cut in 0usize..4_000) {
        let text = scenarios::file(scenarios::names()[scenario]).unwrap();
        let cut = text.char_indices().map(|(i, _)| i).take_while(|&i| i <= cut).last().unwrap_or(0);
        check(&text[..cut], None, Vec::new());
    }
}
