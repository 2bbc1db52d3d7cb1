//! Client-side adaptive throttling (Google SRE book, *Handling Overload*).
//!
//! Not a retry policy: it drops the client's **own** requests. When a backend is
//! rejecting most of what it gets, sending it more only spends its capacity on saying no.
//! So each client remembers, over the last two minutes, how many requests its
//! application asked for (`requests`, whether sent or not) and how many the backend
//! accepted (`accepts`), and rejects a new request locally, before it leaves, with
//! probability
//!
//! `max(0, (requests - K x accepts) / (requests + 1))`
//!
//! With `K = 2` (the book's choice) nothing is dropped while the backend accepts at least
//! half of what it is sent. Past that, the client sends only about `K` times what gets
//! accepted, so a backend that accepts nothing is asked almost nothing, and one that comes
//! back is found by the trickle that still leaves (the `+ 1`). A larger `K` is more
//! lenient (more wasted work, faster to notice a recovery), a smaller one stricter.
//!
//! When failures do not depend on the load (a share `f` of calls fail whatever is sent),
//! the rule has no middle ground: below `f = 1 - 1/K` (50 %) it never rejects, above it
//! the rejections feed themselves (fewer sent, fewer accepted, more rejected) until
//! almost everything is dropped locally. That is the intended trade: under real overload
//! the rejections are what lets the backend recover.
//!
//! As implemented: the two counts live in a window of 60 slices of `window / 60` (2 s for
//! the book's two minutes), a slice leaving whole. A request dropped locally is counted
//! when it is dropped, a request sent when its answer (or timeout) comes back, as
//! grpc-go's adaptive throttler does: counted at sending, the requests in flight would
//! have no answer yet and a client that starts cold (ten requests out, none back) would
//! reject 10/11 of its traffic and, the window being two minutes long, stay throttled for
//! minutes. An "accept" is any answer that is not an error or a timeout.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::error::check_number;
use crate::{ConfigError, Millis};

const SLICES: usize = 60;

/// Settings of adaptive throttling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AdaptiveThrottlingConfig {
    /// The multiplier `K` (1 to 100; default 2).
    pub k: f64,
    /// How long requests and accepts are remembered (6 s to 10 min; default 2 min).
    #[serde(with = "crate::duration::serde_millis")]
    pub window: Millis,
}

impl Default for AdaptiveThrottlingConfig {
    fn default() -> Self {
        Self {
            k: 2.0,
            window: 120_000,
        }
    }
}

impl AdaptiveThrottlingConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_number("k", self.k, 1.0, 100.0)?;
        if !(6_000..=600_000).contains(&self.window) {
            return Err(ConfigError::new("window", "must be between 6s and 10m"));
        }
        Ok(())
    }
}

/// A count over the last `window`, in slices that leave whole.
#[derive(Debug, Clone)]
struct SlicedCount {
    slice_len: Millis,
    counts: [u64; SLICES],
    epochs: [u64; SLICES],
}

impl SlicedCount {
    fn new(window: Millis) -> Self {
        Self {
            slice_len: (window / SLICES as u64).max(1),
            counts: [0; SLICES],
            epochs: [u64::MAX; SLICES],
        }
    }

    fn add(&mut self, now: Millis) {
        let epoch = now / self.slice_len;
        let i = (epoch % SLICES as u64) as usize;
        if self.epochs[i] != epoch {
            self.epochs[i] = epoch;
            self.counts[i] = 0;
        }
        self.counts[i] += 1;
    }

    fn sum(&self, now: Millis) -> u64 {
        let epoch = now / self.slice_len;
        self.epochs
            .iter()
            .zip(self.counts.iter())
            .filter(|(&e, _)| e <= epoch && epoch - e < SLICES as u64)
            .map(|(_, &c)| c)
            .sum()
    }
}

/// One client's throttle. Ask [`admit`](Self::admit) for every request the application
/// makes; report how each one ended with [`on_response`](Self::on_response).
#[derive(Debug, Clone)]
pub struct AdaptiveThrottling {
    config: AdaptiveThrottlingConfig,
    requests: SlicedCount,
    accepts: SlicedCount,
    rejected: u64,
}

impl AdaptiveThrottling {
    pub fn new(config: AdaptiveThrottlingConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self {
            requests: SlicedCount::new(config.window),
            accepts: SlicedCount::new(config.window),
            rejected: 0,
            config,
        })
    }

    pub fn config(&self) -> &AdaptiveThrottlingConfig {
        &self.config
    }

    /// The probability that a request made at `now` is rejected locally.
    pub fn rejection_probability(&self, now: Millis) -> f64 {
        let requests = self.requests.sum(now) as f64;
        let accepts = self.accepts.sum(now) as f64;
        ((requests - self.config.k * accepts) / (requests + 1.0)).max(0.0)
    }

    /// The application makes a request at `now`: true if it may be sent. A request
    /// dropped here is counted at once; one that is sent is counted when its answer comes
    /// ([`on_response`](Self::on_response)).
    pub fn admit<R: Rng + ?Sized>(&mut self, now: Millis, rng: &mut R) -> bool {
        let p = self.rejection_probability(now);
        let admitted = p <= 0.0 || rng.random::<f64>() >= p;
        if !admitted {
            self.requests.add(now);
            self.rejected += 1;
        }
        admitted
    }

    /// A request sent earlier ended at `now`; `accepted`: the backend answered it.
    pub fn on_response(&mut self, now: Millis, accepted: bool) {
        self.requests.add(now);
        if accepted {
            self.accepts.add(now);
        }
    }

    /// Requests rejected locally so far.
    pub fn rejected(&self) -> u64 {
        self.rejected
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn the_book_formula() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut t = AdaptiveThrottling::new(AdaptiveThrottlingConfig::default()).unwrap();
        assert!(t.admit(0, &mut rng), "an empty history rejects nothing");
        assert_eq!(
            t.rejection_probability(0),
            0.0,
            "a request in flight is not counted"
        );
        for i in 0..100 {
            t.requests.add(i);
        }
        // 100 requests, none accepted.
        assert!((t.rejection_probability(100) - 100.0 / 101.0).abs() < 1e-12);
        for i in 0..30 {
            t.accepts.add(i);
        }
        assert!((t.rejection_probability(100) - 40.0 / 101.0).abs() < 1e-12);
        // Half accepted: K = 2 rejects nothing.
        for i in 0..20 {
            t.accepts.add(i);
        }
        assert_eq!(t.rejection_probability(100), 0.0);
        // Two minutes later everything has left the window.
        for i in 0..100 {
            t.requests.add(i);
        }
        assert!(t.rejection_probability(100) > 0.4);
        assert_eq!(t.rejection_probability(122_000), 0.0);
    }

    #[test]
    fn k_and_window_are_checked() {
        for config in [
            AdaptiveThrottlingConfig {
                k: 0.5,
                ..AdaptiveThrottlingConfig::default()
            },
            AdaptiveThrottlingConfig {
                window: 1_000,
                ..AdaptiveThrottlingConfig::default()
            },
        ] {
            assert!(AdaptiveThrottling::new(config).is_err());
        }
    }
}
