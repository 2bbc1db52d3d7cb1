//! Validation errors for settings, shared by every policy and model.
//!
//! The UI shows `message` next to the field named by `field`, and the CLI prints
//! `field: message` on one line; neither ever panics on bad input.

use std::fmt;

/// A setting that was refused, named as in Resilience4j (camelCase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting's Resilience4j name, e.g. `failureRateThreshold`.
    pub field: String,
    /// What is wrong, in plain words, e.g. `must be between 1 and 100`.
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Checks that a whole-number setting lies in `min..=max`, with the message every
/// model uses.
pub fn check_range(field: &str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("must be between {min} and {max} (got {value})"),
        ))
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}
