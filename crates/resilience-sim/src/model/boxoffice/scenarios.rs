//! The five scenarios the course ships, as scenario files (`assets/boxoffice/*.json`,
//! compiled in), and their variants: what the CLI and the page both offer.

use super::topology::{merge_patch, read_document, Topology};
use crate::ConfigError;

/// Name, file text.
pub const SCENARIOS: [(&str, &str); 5] = [
    (
        "cascading-failure",
        include_str!("../../../../../assets/boxoffice/cascading-failure.json"),
    ),
    (
        "retry-storm",
        include_str!("../../../../../assets/boxoffice/retry-storm.json"),
    ),
    (
        "rate-limiter",
        include_str!("../../../../../assets/boxoffice/rate-limiter.json"),
    ),
    (
        "payment-system",
        include_str!("../../../../../assets/boxoffice/payment-system.json"),
    ),
    (
        "flash-sale",
        include_str!("../../../../../assets/boxoffice/flash-sale.json"),
    ),
];

/// The scenario file named `name`.
pub fn file(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

pub fn names() -> Vec<&'static str> {
    SCENARIOS.iter().map(|(n, _)| *n).collect()
}

/// The variants of a scenario document, in the file's order (sorted by name).
pub fn variants(text: &str) -> Vec<String> {
    read_document(crate::error::without_bom(text))
        .ok()
        .and_then(|v| {
            v.get("variants")?
                .as_object()
                .map(|o| o.keys().cloned().collect())
        })
        .unwrap_or_default()
}

/// A scenario's document with `variant` applied and `controls` (`path`, JSON value) set
/// on top, read and checked.
pub fn load(
    text: &str,
    variant: Option<&str>,
    controls: &[(String, serde_json::Value)],
) -> Result<Topology, ConfigError> {
    if controls.is_empty() {
        return Topology::from_json(text, variant);
    }
    let text = crate::error::without_bom(text);
    let mut value = read_document(text).map_err(|e| ConfigError::new("scenario", e.to_string()))?;
    if let Some(name) = variant {
        // The variant first, through the same path as without controls.
        Topology::from_json(text, Some(name))?;
        if let Some(patch) = value.get("variants").and_then(|v| v.get(name)).cloned() {
            merge_patch(&mut value, &patch);
        }
    }
    for (path, v) in controls {
        set_path(&mut value, path, v.clone())?;
    }
    Topology::from_value(value)
}

/// Sets `a.b.c` to `v`, creating objects on the way.
pub fn set_path(
    target: &mut serde_json::Value,
    path: &str,
    v: serde_json::Value,
) -> Result<(), ConfigError> {
    let mut node = target;
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) || parts.len() > 8 {
        return Err(ConfigError::new(path, "is not a setting's path (a.b.c)"));
    }
    for (i, part) in parts.iter().enumerate() {
        // An array's entry by its index (`timeline.0.atS`): an entry that is there.
        if node.is_array() {
            let len = node.as_array().map_or(0, Vec::len);
            let index = part
                .parse::<usize>()
                .ok()
                .filter(|n| *n < len)
                .ok_or_else(|| {
                    ConfigError::new(
                        path,
                        format!(
                            "“{}” has {len} entries, numbered from 0",
                            parts[..i].join(".")
                        ),
                    )
                })?;
            let slot = &mut node.as_array_mut().expect("checked")[index];
            if i + 1 == parts.len() {
                *slot = v;
                return Ok(());
            }
            node = slot;
            continue;
        }
        if !node.is_object() {
            return Err(ConfigError::new(
                path,
                format!("“{}” is not an object", parts[..i].join(".")),
            ));
        }
        let map = node.as_object_mut().expect("checked");
        if i + 1 == parts.len() {
            map.insert(part.to_string(), v);
            return Ok(());
        }
        node = map
            .entry(part.to_string())
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
    }
    Ok(())
}
