//! The app's reader of the browser's JSON values (src/js_de.rs) against serde-wasm-bindgen's,
//! whose place it takes: for breaker scripts and thousands of variations of them (every
//! value replaced by values of every JSON type, every key removed, unknown keys added),
//! both give the same script or the same message.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect, JSON};
use resilience_sim::scenario::breaker_script::BreakerScript;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SCRIPTS: [&str; 3] = [
    r#"{"config": {"failureRateThreshold": 50, "slowCallRateThreshold": 100,
        "slowCallDurationThreshold": "60s", "slidingWindowType": "COUNT_BASED",
        "slidingWindowSize": 100, "minimumNumberOfCalls": 100,
        "permittedNumberOfCallsInHalfOpenState": 10, "waitDurationInOpenState": "60s",
        "automaticTransitionFromOpenToHalfOpenEnabled": false,
        "maxWaitDurationInHalfOpenState": "0ms", "transitionToStateAfterWaitDuration": "OPEN",
        "recordExceptions": ["IOException"], "ignoreExceptions": [], "initialState": "CLOSED",
        "exceptions": {"PaymentException": "RuntimeException", "B": "PaymentException"}},
      "steps": [{"acquire": {}}, {"success": {"duration_ms": 5}},
        {"error": {"duration_ms": 3, "exception": "IOException"}}, {"advance_ms": 1000},
        {"transition": "HALF_OPEN"}, {"release": {}}, {"reset": {}}, {"success": {}}]}"#,
    r#"{"config": {"failureRateThreshold": 12.5, "slidingWindowType": "TIME_BASED",
        "slidingWindowSize": 10, "minimumNumberOfCalls": 2,
        "waitIntervalFunctionInOpenState":
          {"exponential": {"initial": "10s", "multiplier": 1.5, "max": "5m"}},
        "slowCallDurationThreshold": 2000},
      "steps": [{"advance_ms": 0}, {"transition": "FORCED_OPEN"}]}"#,
    r#"{"steps": []}"#,
];

/// JSON values of every type, and the edges of the numbers the engine reads.
const VALUES: [&str; 30] = [
    "null",
    "true",
    "false",
    "0",
    "-0",
    "1",
    "-1",
    "1.5",
    "-1.5",
    "2.5e-7",
    "1e21",
    "1e300",
    "9007199254740993",
    "4294967296",
    "3.4e39",
    "\"\"",
    "\"x\"",
    "\"5s\"",
    "\"10\"",
    "\"CLOSED\"",
    "\"success\"",
    "[]",
    "[1]",
    "[\"A\", \"B\"]",
    "[[\"A\", \"B\"]]",
    "{}",
    "{\"a\": 1}",
    "{\"acquire\": {}}",
    "{\"exponential\": {\"initial\": \"1s\", \"multiplier\": 2}}",
    "{\"success\": {}, \"reset\": {}}",
];

fn parse(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

/// What both readers make of `value`, as text.
fn read(value: &JsValue) -> (String, String) {
    let copy = || parse(&String::from(JSON::stringify(value).unwrap()));
    let ours = resilience_playground::js_de::from_value::<BreakerScript>(copy());
    let theirs = serde_wasm_bindgen::from_value::<BreakerScript>(copy());
    (
        format!("{:?}", ours.map_err(|e| e.to_string())),
        format!("{:?}", theirs.map_err(|e| e.to_string())),
    )
}

/// The paths (object keys and array indices) of every value inside `value`.
fn paths(value: &JsValue, at: &mut Vec<JsValue>, out: &mut Vec<Vec<JsValue>>) {
    let keys: Vec<JsValue> = if Array::is_array(value) {
        (0..value.unchecked_ref::<Array>().length())
            .map(JsValue::from)
            .collect()
    } else if value.is_object() {
        Object::keys(value.unchecked_ref::<Object>())
            .iter()
            .collect()
    } else {
        return;
    };
    for key in keys {
        at.push(key.clone());
        out.push(at.clone());
        paths(&Reflect::get(value, &key).unwrap(), at, out);
        at.pop();
    }
}

/// A copy of `value` with `change` applied to the container of `path`'s last key.
fn changed(value: &JsValue, path: &[JsValue], change: impl FnOnce(&JsValue, &JsValue)) -> JsValue {
    let copy = parse(&String::from(JSON::stringify(value).unwrap()));
    let (last, inner) = path.split_last().unwrap();
    let mut target = copy.clone();
    for key in inner {
        target = Reflect::get(&target, key).unwrap();
    }
    change(&target, last);
    copy
}

#[wasm_bindgen_test]
fn scripts_read_as_serde_wasm_bindgen_reads_them() {
    let mut cases = 0;
    for script in SCRIPTS {
        let base = parse(script);
        let (ours, theirs) = read(&base);
        assert!(ours.starts_with("Ok("), "{script}: {ours}");
        assert_eq!(ours, theirs);
        let mut all = Vec::new();
        paths(&base, &mut Vec::new(), &mut all);
        for path in &all {
            let mut variants: Vec<JsValue> = VALUES
                .iter()
                .map(|v| {
                    changed(&base, path, |target, key| {
                        Reflect::set(target, key, &parse(v)).unwrap();
                    })
                })
                .collect();
            variants.push(changed(&base, path, |target, key| {
                Reflect::delete_property(target.unchecked_ref::<Object>(), key).unwrap();
            }));
            variants.push(changed(&base, path, |target, _| {
                if !Array::is_array(target) {
                    Reflect::set(target, &"unknownKey".into(), &1.into()).unwrap();
                }
            }));
            for variant in variants {
                let (ours, theirs) = read(&variant);
                assert_eq!(
                    ours,
                    theirs,
                    "{}",
                    String::from(JSON::stringify(&variant).unwrap())
                );
                cases += 1;
            }
        }
    }
    // Whole values that are no script.
    for v in VALUES {
        let (ours, theirs) = read(&parse(v));
        assert_eq!(ours, theirs, "{v}");
        cases += 1;
    }
    assert!(cases > 1_000, "{cases}");
    // The messages that need a number written: serde's text, without float formatting.
    for (size, shown) in [
        ("1.5", "1.5"),
        ("-1", "-1.0"),
        ("1e21", "1000000000000000000000.0"),
    ] {
        let script = format!(r#"{{"config": {{"slidingWindowSize": {size}}}, "steps": []}}"#);
        let (ours, theirs) = read(&parse(&script));
        assert_eq!(ours, theirs);
        let expected = format!("invalid type: floating point `{shown}`, expected u32");
        assert!(ours.contains(&expected), "{ours}");
    }
}
