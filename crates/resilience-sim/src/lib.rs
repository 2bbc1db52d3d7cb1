//! # resilience-sim
//!
//! The engine of Resilience Playground: Resilience4j 2.x policies and the models that run
//! them, as plain deterministic Rust. Nothing here reads a clock or touches a browser: the
//! caller passes virtual time in (milliseconds or ticks) and reads back state and typed
//! events. The UI, the `resilience-sim` CLI and the tests are three thin drivers of the same
//! engine, so a number on the page is a number a test has checked.
//!
//! Read it top-down:
//! - [`model`]: the worlds the course simulates (the tick model of an API with a thread pool,
//!   from the `resilience-tick` crate, and the labs' models).
//! - [`policy`]: one module per Resilience4j policy, each opening with why it exists (from
//!   the `resilience-policy` crate, as are the shared vocabulary and the exceptions).
//! - [`scenario`]: the serde scenario format and the catalogue of numbered demos.
//! - [`resilience4j`]: every demo's settings as Spring Boot YAML and Java, and back.
//! - [`outcome`] and [`duration`]: the shared vocabulary (outcome classes, virtual time).
//! - [`exceptions`]: the Java exception classes the policies classify by.

pub use resilience_policy::{duration, error, exceptions, number, outcome, policy};
pub mod model;
pub mod resilience4j;
pub mod scenario;
pub mod workload;

pub use resilience_policy::{ConfigError, Millis, Outcome};
