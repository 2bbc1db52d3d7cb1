//! # resilience-policy
//!
//! Resilience4j 2.x's policies as sans-IO state machines, and the vocabulary they share:
//! virtual time ([`duration`]), outcome classes ([`outcome`]), the Java exception classes
//! they classify by ([`exceptions`]), configuration errors ([`error`]) and numbers as the
//! course writes them ([`number`]).
//!
//! Every model of the engine runs on these. They are a crate of their own, under
//! `resilience-sim` (which re-exports them at the same paths), so that the tick model
//! (`resilience-tick`) can depend on them alone: see that crate for why.

pub mod duration;
pub mod error;
pub mod exceptions;
pub mod number;
pub mod outcome;
pub mod policy;

pub use duration::Millis;
pub use error::ConfigError;
pub use outcome::Outcome;
