//! Decorator order: which policy wraps which.
//!
//! Policies compose by wrapping: `Retry(CircuitBreaker(call))` means the retry calls the
//! breaker, which calls the dependency. The order is not cosmetic; it decides what each
//! policy *sees* and therefore what it counts:
//!
//! - Retry outside the breaker: every attempt is a separate call for the breaker, so a
//!   failing dependency's retries fill the breaker's window faster, and once the breaker
//!   opens the remaining attempts fail fast with `CallNotPermittedException` (which a
//!   well-configured retry does not retry).
//! - Breaker outside the retry: the breaker sees one outcome per logical call, after all
//!   its retries, and an open breaker stops the retries from even starting.
//! - Time limiter outside the bulkhead: the timeout includes the time a call waits in a
//!   thread-pool bulkhead's queue (`submit` returns at once), but not a wait for a
//!   semaphore bulkhead's permit, which is taken on the caller's thread before the time
//!   limiter schedules its timeout (`TimeLimiterImpl.decorateCompletionStage` calls the
//!   supplier first): that wait ends with the permit or with `BulkheadFullException`.
//!
//! Resilience4j's default composition (the Spring Boot aspect order: Retry lowest
//! precedence value, then CircuitBreaker, RateLimiter, TimeLimiter, Bulkhead), outermost
//! first, is `Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call)))))`:
//! [`DecoratorOrder::default`]. Lab E compares it with a wrong order.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ConfigError;

/// One Resilience4j decorator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Decorator {
    #[serde(alias = "retry")]
    Retry,
    #[serde(alias = "circuitBreaker")]
    CircuitBreaker,
    #[serde(alias = "rateLimiter")]
    RateLimiter,
    #[serde(alias = "timeLimiter")]
    TimeLimiter,
    #[serde(alias = "bulkhead")]
    Bulkhead,
}

impl Decorator {
    /// Resilience4j's default order, outermost first.
    pub const DEFAULT_ORDER: [Decorator; 5] = [
        Decorator::Retry,
        Decorator::CircuitBreaker,
        Decorator::RateLimiter,
        Decorator::TimeLimiter,
        Decorator::Bulkhead,
    ];

    /// The name as Resilience4j writes it (`CircuitBreaker`).
    pub fn name(self) -> &'static str {
        match self {
            Decorator::Retry => "Retry",
            Decorator::CircuitBreaker => "CircuitBreaker",
            Decorator::RateLimiter => "RateLimiter",
            Decorator::TimeLimiter => "TimeLimiter",
            Decorator::Bulkhead => "Bulkhead",
        }
    }
}

impl fmt::Display for Decorator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The decorators in use, outermost first; each at most once, any may be left out.
///
/// Serialized as a list of names (`["Retry", "CircuitBreaker", "Bulkhead"]`; camelCase names
/// are accepted too); displayed as the nesting, `Retry(CircuitBreaker(Bulkhead(call)))`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<Decorator>", into = "Vec<Decorator>")]
pub struct DecoratorOrder(Vec<Decorator>);

impl Default for DecoratorOrder {
    fn default() -> Self {
        DecoratorOrder(Decorator::DEFAULT_ORDER.to_vec())
    }
}

impl DecoratorOrder {
    /// An order, outermost first; refuses a decorator listed twice.
    pub fn new(decorators: Vec<Decorator>) -> Result<Self, ConfigError> {
        let order = DecoratorOrder(decorators);
        order.validate()?;
        Ok(order)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        for (i, decorator) in self.0.iter().enumerate() {
            if self.0[..i].contains(decorator) {
                return Err(ConfigError::new(
                    "decoratorOrder",
                    format!("{decorator} is listed more than once"),
                ));
            }
        }
        Ok(())
    }

    /// The decorators, outermost first.
    pub fn as_slice(&self) -> &[Decorator] {
        &self.0
    }

    /// Where `decorator` sits (0 = outermost), if it is used.
    pub fn position(&self, decorator: Decorator) -> Option<usize> {
        self.0.iter().position(|d| *d == decorator)
    }

    pub fn contains(&self, decorator: Decorator) -> bool {
        self.position(decorator).is_some()
    }

    /// Whether `a` wraps `b` (both used and `a` further out). False if either is missing.
    pub fn is_outside(&self, a: Decorator, b: Decorator) -> bool {
        match (self.position(a), self.position(b)) {
            (Some(pa), Some(pb)) => pa < pb,
            _ => false,
        }
    }

    /// Whether the circuit breaker records every retry attempt as its own call (retry
    /// outside the breaker), rather than one outcome per logical call.
    pub fn breaker_sees_each_attempt(&self) -> bool {
        self.is_outside(Decorator::Retry, Decorator::CircuitBreaker)
    }
}

impl TryFrom<Vec<Decorator>> for DecoratorOrder {
    type Error = ConfigError;

    fn try_from(decorators: Vec<Decorator>) -> Result<Self, Self::Error> {
        DecoratorOrder::new(decorators)
    }
}

impl From<DecoratorOrder> for Vec<Decorator> {
    fn from(order: DecoratorOrder) -> Self {
        order.0
    }
}

impl fmt::Display for DecoratorOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for decorator in &self.0 {
            write!(f, "{decorator}(")?;
        }
        f.write_str("call")?;
        for _ in &self.0 {
            f.write_str(")")?;
        }
        Ok(())
    }
}
