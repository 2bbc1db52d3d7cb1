//! The policies, one module each, with Resilience4j 2.x semantics and names.
//!
//! Each is a sans-IO state machine: the caller passes the virtual time (`now`, in
//! milliseconds) into every operation and reads back decisions and events.

pub mod adaptive_throttling;
pub mod bulkhead;
pub mod circuit_breaker;
pub mod decorators;
pub mod fallback;
pub mod rate_limiter;
pub mod retry;
pub mod time_limiter;
