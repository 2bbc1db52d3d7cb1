//! Fallbacks: what to answer when the real answer cannot be had.
//!
//! Every other policy ends some calls early: a timeout, an open breaker, a full bulkhead,
//! the last failed retry. Without a fallback each of those is an error page. A fallback
//! turns them into a *degraded* answer: yesterday's price list, an agreed shipping
//! estimate, "payment status uncertain, we will confirm by e-mail". The failure it protects
//! against is a dependency's outage becoming the *user's* outage.
//!
//! A fallback is a product decision, not a technical one, and some answers are never
//! acceptable: a payment must not be reported as captured when nobody knows whether it
//! was. This module encodes that in the types: [`PaymentFallback`] has no "captured"
//! variant, so no code path can build one:
//!
//! ```compile_fail
//! use resilience_sim::policy::fallback::PaymentFallback;
//! let _ = PaymentFallback::Captured;
//! ```
//!
//! The most useful fallback is often a cache of earlier answers. [`FallbackCache`] keeps
//! values with a time to live and answers only with fresh ones. How it is filled is the
//! lesson of Lab C: filled *inline* by the live calls, it holds only what was asked
//! recently, so it is emptiest exactly when the dependency has been failing for a while;
//! filled *out of band* (a periodic refresh of the whole catalogue) with a long TTL, it
//! can carry the users through an outage.

use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::Millis;

/// A cache of earlier answers with a time to live, counting hits and misses.
///
/// Boundary rule: a value put at `t` is fresh at every instant `now` with
/// `t <= now < t + ttl`, and stale from `t + ttl` on (a TTL of 0 keeps nothing fresh).
/// A later `put` for the same key replaces the value and restarts its TTL.
#[derive(Debug, Clone)]
pub struct FallbackCache<K, V> {
    ttl: Millis,
    entries: HashMap<K, (Millis, V)>,
    hits: u64,
    misses: u64,
    stale_misses: u64,
}

impl<K: Eq + Hash + Clone, V> FallbackCache<K, V> {
    pub fn new(ttl: Millis) -> Self {
        Self {
            ttl,
            entries: HashMap::new(),
            hits: 0,
            misses: 0,
            stale_misses: 0,
        }
    }

    pub fn ttl(&self) -> Millis {
        self.ttl
    }

    /// Stores `value` for `key` as of `now` (a live answer, or an out-of-band refresh).
    pub fn put(&mut self, now: Millis, key: K, value: V) {
        self.entries.insert(key, (now, value));
    }

    /// The fresh value for `key`, counted as a hit; otherwise `None`, counted as a miss
    /// (and as a stale miss when an expired value was there).
    pub fn get(&mut self, now: Millis, key: &K) -> Option<&V> {
        let ttl = self.ttl;
        match self.entries.get(key) {
            Some((stored, value)) if is_fresh(*stored, now, ttl) => {
                self.hits += 1;
                Some(value)
            }
            Some(_) => {
                self.misses += 1;
                self.stale_misses += 1;
                None
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// Like [`get`](Self::get) without counting.
    pub fn peek(&self, now: Millis, key: &K) -> Option<&V> {
        match self.entries.get(key) {
            Some((stored, value)) if is_fresh(*stored, now, self.ttl) => Some(value),
            _ => None,
        }
    }

    /// When `key`'s value was stored, fresh or not.
    pub fn stored_at(&self, key: &K) -> Option<Millis> {
        self.entries.get(key).map(|(stored, _)| *stored)
    }

    /// Drops every stale value (memory only: stale values are never served anyway).
    pub fn purge_expired(&mut self, now: Millis) {
        let ttl = self.ttl;
        self.entries
            .retain(|_, (stored, _)| is_fresh(*stored, now, ttl));
    }

    /// Values stored, fresh or stale.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Fresh values at `now`.
    pub fn fresh_len(&self, now: Millis) -> usize {
        self.entries
            .values()
            .filter(|(stored, _)| is_fresh(*stored, now, self.ttl))
            .count()
    }

    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Every `get` that found nothing fresh (absent or stale).
    pub fn misses(&self) -> u64 {
        self.misses
    }

    /// The misses that found a value, but a stale one.
    pub fn stale_misses(&self) -> u64 {
        self.stale_misses
    }

    /// Hits / (hits + misses), or `None` before any `get`.
    pub fn hit_rate(&self) -> Option<f64> {
        let total = self.hits + self.misses;
        (total > 0).then(|| self.hits as f64 / total as f64)
    }

    /// Zeroes the hit and miss counters (e.g. per chart interval), keeping the values.
    pub fn reset_counters(&mut self) {
        self.hits = 0;
        self.misses = 0;
        self.stale_misses = 0;
    }
}

fn is_fresh(stored: Millis, now: Millis, ttl: Millis) -> bool {
    now >= stored && now - stored < ttl
}

/// A degraded answer, as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FallbackValue {
    /// An earlier answer from the cache (a cached price or list).
    CachedList,
    /// "We do not know yet": the outcome will be settled later (payments).
    Uncertain,
    /// An agreed default instead of the live answer (a shipping estimate).
    Estimate,
    /// A typed error the caller can show or act on, named.
    TypedError(String),
}

impl FallbackValue {
    /// Plain words for narration.
    pub fn describe(&self) -> String {
        match self {
            FallbackValue::CachedList => "served an earlier answer from the cache".to_string(),
            FallbackValue::Uncertain => {
                "answered \"uncertain\": the result will be confirmed later".to_string()
            }
            FallbackValue::Estimate => {
                "served the agreed estimate instead of a live quote".to_string()
            }
            FallbackValue::TypedError(name) => format!("returned a clear error ({name})"),
        }
    }
}

/// What a payment may fall back to. There is deliberately no `Captured`: when the provider
/// could not be asked, or did not answer, nobody knows that the money was taken, so the
/// only honest answers are "uncertain" (to reconcile later) or an error.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PaymentFallback {
    /// The saga records UNCERTAIN and reconciles with the provider later (e.g. after a read
    /// timeout on a capture: the provider may have captured).
    Uncertain,
    /// A typed error such as `PaymentUnavailable`: the order is not placed.
    TypedError(String),
}

impl PaymentFallback {
    /// The payment status this fallback records: never `Captured`.
    pub fn status(&self) -> PaymentStatus {
        match self {
            PaymentFallback::Uncertain => PaymentStatus::Uncertain,
            PaymentFallback::TypedError(_) => PaymentStatus::Failed,
        }
    }

    pub fn describe(&self) -> String {
        FallbackValue::from(self.clone()).describe()
    }
}

impl From<PaymentFallback> for FallbackValue {
    fn from(fallback: PaymentFallback) -> Self {
        match fallback {
            PaymentFallback::Uncertain => FallbackValue::Uncertain,
            PaymentFallback::TypedError(name) => FallbackValue::TypedError(name),
        }
    }
}

/// A payment's status in the order saga. `Captured` comes only from the provider's answer;
/// a [`PaymentFallback`] can only produce `Uncertain` or `Failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PaymentStatus {
    Captured,
    Declined,
    Uncertain,
    Failed,
}

/// What the shipping quoter may fall back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ShippingFallback {
    /// The agreed flat estimate.
    AgreedEstimate,
    /// Hide the quote; checkout goes on without it.
    HideQuote,
}

impl ShippingFallback {
    pub fn describe(self) -> String {
        match self {
            ShippingFallback::AgreedEstimate => FallbackValue::Estimate.describe(),
            ShippingFallback::HideQuote => "hid the shipping quote".to_string(),
        }
    }
}

impl From<ShippingFallback> for FallbackValue {
    fn from(fallback: ShippingFallback) -> Self {
        match fallback {
            ShippingFallback::AgreedEstimate => FallbackValue::Estimate,
            ShippingFallback::HideQuote => FallbackValue::TypedError("QuoteUnavailable".into()),
        }
    }
}
