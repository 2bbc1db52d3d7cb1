//! The door (apigw): the cheapest place to say no.
//!
//! Work refused at the door costs almost nothing; work accepted and then abandoned costs a
//! thread, a connection and a slot in every queue behind it. The door says no three ways:
//!
//! - **Rate limiting per key** (a token bucket per API key: refill rate = the sustained
//!   limit, bucket size = the burst). An empty bucket answers 429 at once. It protects the
//!   many from the one: a bot key gets its burst, then its rate, never the capacity the
//!   people need.
//! - **Load shedding by priority**: a concurrency limit on requests in flight behind the
//!   door. Each class may fill only its share of the limit (sheddable the least, critical
//!   all of it), so as the system fills, recommendations get 503 (with `Retry-After`) first,
//!   catalog pages next and purchases last. The 503 is sent before any work is done.
//! - **An adaptive limit** (AIMD on latency, like Netflix's concurrency-limits): the limit
//!   drops by a ratio when answers get slower than a healthy baseline and grows by one
//!   step per window while it is being used (or turning requests away) and answers are
//!   fast. No hand-tuned number:
//!   the baseline is the fastest window seen.
//!
//! The token bucket and the limiter live here rather than in `policy/`: they are the
//! gateway's, not Resilience4j's (whose `RateLimiter` the replicas' stacks use).

use std::collections::BTreeMap;

use super::topology::{AdaptiveSpec, Class, DoorSpec, SheddingSpec};
use crate::Millis;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Millis,
}

/// The door's answer to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    /// 429, with when the next token comes.
    RateLimited {
        retry_after: Millis,
    },
    /// 503, with the configured `Retry-After`.
    Shed {
        retry_after: Millis,
    },
}

struct Aimd {
    spec: AdaptiveSpec,
    limit: f64,
    window_start: Millis,
    sum_ms: u64,
    samples: u64,
    peak_in_flight: u32,
    /// Whether the limit turned anyone away in the window (it is binding).
    shed_in_window: bool,
    /// The fastest window's mean latency: the healthy baseline.
    baseline: Option<f64>,
}

pub struct Door {
    rate_per_ms: f64,
    burst: f64,
    buckets: Vec<Option<Bucket>>,
    exempt: Vec<bool>,
    limited: bool,
    shedding: Option<SheddingSpec>,
    shares: [f64; 3],
    aimd: Option<Aimd>,
    pub in_flight: u32,
}

impl Door {
    /// `keys` door keys in all; `exempt` those the bucket does not count.
    pub fn new(spec: &DoorSpec, keys: u32, exempt: Vec<bool>) -> Self {
        let (rate_per_ms, burst, limited) = match &spec.token_bucket {
            Some(tb) => (tb.rate_per_second / 1_000.0, f64::from(tb.burst), true),
            None => (0.0, 0.0, false),
        };
        let default_shares = BTreeMap::from([
            (Class::Critical, 100.0),
            (Class::Important, 85.0),
            (Class::Sheddable, 60.0),
        ]);
        let shares_map = spec
            .shedding
            .as_ref()
            .map(|s| &s.shares)
            .unwrap_or(&default_shares);
        let mut shares = [100.0; 3];
        for class in Class::ALL {
            if let Some(s) = shares_map.get(&class) {
                shares[class.index()] = *s;
            }
        }
        Door {
            rate_per_ms,
            burst,
            buckets: if limited {
                vec![None; keys as usize]
            } else {
                Vec::new()
            },
            exempt,
            limited,
            shedding: spec.shedding.clone(),
            shares,
            aimd: spec.adaptive.clone().map(|a| Aimd {
                limit: f64::from(a.initial_limit),
                spec: a,
                window_start: 0,
                sum_ms: 0,
                samples: 0,
                peak_in_flight: 0,
                shed_in_window: false,
                baseline: None,
            }),
            in_flight: 0,
        }
    }

    /// The concurrency limit in force, if the door sheds.
    pub fn limit(&self) -> Option<u32> {
        match (&self.aimd, &self.shedding) {
            (Some(a), _) => Some(a.limit.floor().max(1.0) as u32),
            (None, Some(s)) => Some(s.limit),
            (None, None) => None,
        }
    }

    fn retry_after(&self) -> Millis {
        self.shedding.as_ref().map_or(1_000, |s| s.retry_after_ms)
    }

    /// Decides one attempt at `now`.
    pub fn admit(&mut self, now: Millis, key: u32, class: Class) -> Verdict {
        if self.limited && !self.exempt.get(key as usize).copied().unwrap_or(false) {
            let (rate, burst) = (self.rate_per_ms, self.burst);
            if let Some(slot) = self.buckets.get_mut(key as usize) {
                let b = slot.get_or_insert(Bucket {
                    tokens: burst,
                    at: now,
                });
                b.tokens = (b.tokens + (now - b.at) as f64 * rate).min(burst);
                b.at = now;
                if b.tokens < 1.0 {
                    let retry_after = ((1.0 - b.tokens) / rate).ceil() as Millis;
                    return Verdict::RateLimited { retry_after };
                }
                b.tokens -= 1.0;
            }
        }
        if let Some(limit) = self.limit() {
            let share = self.shares[class.index()] / 100.0;
            let allowed = (f64::from(limit) * share).floor() as u32;
            if self.in_flight >= allowed {
                if let Some(a) = &mut self.aimd {
                    a.shed_in_window = true;
                }
                return Verdict::Shed {
                    retry_after: self.retry_after(),
                };
            }
        }
        self.in_flight += 1;
        if let Some(a) = &mut self.aimd {
            a.peak_in_flight = a.peak_in_flight.max(self.in_flight);
        }
        Verdict::Admit
    }

    /// An admitted attempt answered at `now` after `latency` ms.
    pub fn done(&mut self, now: Millis, latency: Millis) {
        self.in_flight = self.in_flight.saturating_sub(1);
        let Some(a) = &mut self.aimd else { return };
        a.sum_ms += latency;
        a.samples += 1;
        if now < a.window_start + a.spec.window_ms {
            return;
        }
        let mean = a.sum_ms as f64 / a.samples as f64;
        let baseline = a.baseline.map_or(mean, |b| b.min(mean)).max(1.0);
        a.baseline = Some(baseline);
        let threshold = a
            .spec
            .latency_threshold_ms
            .map_or(baseline * 2.0, |t| t as f64);
        let (min, max) = (f64::from(a.spec.min_limit), f64::from(a.spec.max_limit));
        if mean > threshold {
            a.limit = (a.limit * a.spec.backoff_ratio).max(min);
        } else if a.shed_in_window || f64::from(a.peak_in_flight) >= a.limit * 0.8 {
            // Fast answers and a limit in use (or turning requests away): room to grow.
            a.limit = (a.limit + a.limit.sqrt().max(1.0)).min(max);
        }
        a.window_start = now;
        a.sum_ms = 0;
        a.samples = 0;
        a.peak_in_flight = self.in_flight;
        a.shed_in_window = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::boxoffice::topology::TokenBucketSpec;

    fn bucket(rate: f64, burst: u32) -> Door {
        let spec = DoorSpec {
            token_bucket: Some(TokenBucketSpec {
                rate_per_second: rate,
                burst,
                exempt: Vec::new(),
            }),
            ..DoorSpec::default()
        };
        Door::new(&spec, 2, vec![false, false])
    }

    #[test]
    fn a_key_gets_its_burst_then_its_rate_and_429_with_when_the_next_token_comes() {
        let mut door = bucket(10.0, 20);
        let admitted = (0..30)
            .filter(|_| door.admit(0, 0, Class::Important) == Verdict::Admit)
            .count();
        assert_eq!(admitted, 20);
        assert_eq!(
            door.admit(0, 0, Class::Important),
            Verdict::RateLimited { retry_after: 100 }
        );
        // 10 a second: one token every 100 ms.
        assert_eq!(door.admit(100, 0, Class::Important), Verdict::Admit);
        assert!(matches!(
            door.admit(150, 0, Class::Important),
            Verdict::RateLimited { retry_after: 50 }
        ));
        // Another key has its own bucket.
        assert_eq!(door.admit(150, 1, Class::Important), Verdict::Admit);
    }

    #[test]
    fn shedding_turns_away_sheddable_first_and_critical_last() {
        let spec = DoorSpec {
            shedding: Some(SheddingSpec {
                limit: 10,
                retry_after_ms: 2_000,
                shares: BTreeMap::from([
                    (Class::Critical, 100.0),
                    (Class::Important, 80.0),
                    (Class::Sheddable, 50.0),
                ]),
            }),
            ..DoorSpec::default()
        };
        let mut door = Door::new(&spec, 1, vec![false]);
        for _ in 0..5 {
            assert_eq!(door.admit(0, 0, Class::Sheddable), Verdict::Admit);
        }
        let shed = Verdict::Shed { retry_after: 2_000 };
        assert_eq!(door.admit(0, 0, Class::Sheddable), shed);
        for _ in 0..3 {
            assert_eq!(door.admit(0, 0, Class::Important), Verdict::Admit);
        }
        assert_eq!(door.admit(0, 0, Class::Important), shed);
        assert_eq!(door.admit(0, 0, Class::Critical), Verdict::Admit);
        assert_eq!(door.admit(0, 0, Class::Critical), Verdict::Admit);
        assert_eq!(door.admit(0, 0, Class::Critical), shed);
        door.done(10, 10);
        assert_eq!(door.admit(10, 0, Class::Critical), Verdict::Admit);
    }

    #[test]
    fn the_adaptive_limit_grows_while_it_turns_work_away_and_drops_when_answers_slow() {
        let spec = DoorSpec {
            adaptive: Some(AdaptiveSpec {
                initial_limit: 10,
                min_limit: 5,
                max_limit: 100,
                latency_threshold_ms: None,
                backoff_ratio: 0.5,
                window_ms: 100,
            }),
            ..DoorSpec::default()
        };
        let mut door = Door::new(&spec, 1, vec![false]);
        // Fast answers, and more demand than the limit: it grows by √limit a window.
        for window in 0..3 {
            let t = window * 100;
            while door.admit(t, 0, Class::Critical) == Verdict::Admit {}
            for _ in 0..door.in_flight {
                door.done(t + 100, 10);
            }
        }
        let grown = door.limit().unwrap();
        assert!(grown > 10, "{grown}");
        // Answers ten times slower than the baseline: halved a window, down to the minimum.
        for t in (400..=1_000).step_by(100) {
            door.admit(t, 0, Class::Critical);
            door.done(t, 100);
        }
        assert_eq!(door.limit().unwrap(), 5);
        assert!(grown / 2 > 5);
    }
}
