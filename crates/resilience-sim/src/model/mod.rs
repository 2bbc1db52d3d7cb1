//! The worlds the course simulates. Each model owns its policies and advances only when
//! the caller asks, by a tick or a step of virtual time.

pub mod amplification;
pub mod boxoffice;
pub mod brownout;
pub mod checkout;
pub mod jitter;
pub mod retry_policies;
pub mod shared_pool;
pub use resilience_tick::{run_facts, summary, tick, window_log};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::Millis;

/// The `percent`-th percentile of `sorted` by nearest rank (the smallest value with at least
/// `percent` % of the values at or below it); `None` when there are none. The latency
/// percentiles of Demos 11 and 14. Callers sort with `sort_unstable`, not a selection: see
/// clippy.toml on `select_nth_unstable`.
pub(crate) fn nearest_rank(sorted: &[u32], percent: u64) -> Option<u32> {
    let n = sorted.len() as u64;
    let rank = (percent * n).div_ceil(100).max(1);
    sorted.get(usize::try_from(rank - 1).ok()?).copied()
}

/// Distinct seeded generators for the streams of a run (arrivals, work times, ...): the
/// same seed gives the same run, and one stream's draws never shift another's.
pub(crate) fn stream_rng(seed: u64, stream: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// `ms` drawn uniformly within ± `percent` % of itself, at least 1 ms.
pub(crate) fn vary(ms: Millis, percent: Millis, rng: &mut Pcg64Mcg) -> Millis {
    let spread = ms * percent / 100;
    rng.random_range(ms - spread..=ms + spread).max(1)
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<u32> = (1..=100).collect();
        assert_eq!(nearest_rank(&values, 50), Some(50));
        assert_eq!(nearest_rank(&values, 99), Some(99));
        assert_eq!(nearest_rank(&values, 100), Some(100));
        assert_eq!(nearest_rank(&values, 0), Some(1));
        assert_eq!(nearest_rank(&[7], 99), Some(7));
        assert_eq!(nearest_rank(&[1, 3], 50), Some(1));
        assert_eq!(nearest_rank(&[], 50), None);
    }
}
