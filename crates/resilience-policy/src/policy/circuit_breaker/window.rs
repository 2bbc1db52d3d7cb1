//! The sliding windows a breaker measures with, and their totals ([`Snapshot`]).
//!
//! - COUNT_BASED (`FixedSizeSlidingWindowMetrics` in Resilience4j): a ring of the last N
//!   outcomes. Recording one when the ring is full pushes the oldest out.
//! - TIME_BASED (`SlidingTimeWindowMetrics`): N one-second buckets, each stamped with the
//!   whole epoch second it covers. An outcome goes into the bucket of the second in which
//!   it completes; when time reaches a new second the window moves, and every bucket older
//!   than N seconds leaves at once, with all its outcomes.
//!
//! Both keep running totals, so recording is O(1) and never allocates; moving a time window
//! by k seconds costs min(k, N) bucket resets.

use serde::Serialize;
use std::collections::VecDeque;

use crate::Millis;

/// One recorded outcome, as the window stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum WindowCell {
    Success = 0,
    Failure = 1,
    SlowSuccess = 2,
    SlowFailure = 3,
}

impl WindowCell {
    /// The cell for an outcome: a failure or not, slow or not.
    #[inline]
    pub fn new(failure: bool, slow: bool) -> Self {
        match (failure, slow) {
            (false, false) => WindowCell::Success,
            (true, false) => WindowCell::Failure,
            (false, true) => WindowCell::SlowSuccess,
            (true, true) => WindowCell::SlowFailure,
        }
    }

    #[inline]
    pub fn is_failure(self) -> bool {
        (self as u8) & 1 != 0
    }

    #[inline]
    pub fn is_slow(self) -> bool {
        (self as u8) & 2 != 0
    }
}

/// The totals of a window (Resilience4j's `Snapshot`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// Recorded outcomes ("buffered calls").
    pub calls: u32,
    /// Failures, slow or not.
    pub failed: u32,
    /// Slow calls, successful or not.
    pub slow: u32,
    /// Calls both slow and failed (counted in `failed` and in `slow`).
    pub slow_failed: u32,
}

impl Snapshot {
    #[inline]
    pub fn successful(&self) -> u32 {
        self.calls - self.failed
    }

    #[inline]
    pub fn slow_successful(&self) -> u32 {
        self.slow - self.slow_failed
    }

    /// Failures in percent of the calls, computed in `f32` as Resilience4j does
    /// (`failed * 100.0f / calls`); 0 for an empty window.
    #[inline]
    pub fn failure_rate(&self) -> f32 {
        percent(self.failed, self.calls)
    }

    /// Slow calls in percent of the calls; 0 for an empty window.
    #[inline]
    pub fn slow_call_rate(&self) -> f32 {
        percent(self.slow, self.calls)
    }
}

/// Running totals in four 32-bit lanes (calls, failed, slow, slow_failed) packed in two
/// `u64`s: recording an outcome is two additions, and the totals are always read and
/// written whole (no partial-register or store-forwarding stalls). Two halves rather than
/// one `u128`, whose addition wasm makes in several steps (docs/performance.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Packed {
    /// calls (low 32 bits) and failed (high 32 bits).
    lo: u64,
    /// slow (low 32 bits) and slow_failed (high 32 bits).
    hi: u64,
}

impl Packed {
    /// What one outcome adds to each half, computed from its two bits (no table to load).
    #[inline(always)]
    fn delta(cell: WindowCell) -> (u64, u64) {
        let failed = u64::from(cell as u8 & 1);
        let slow = u64::from(cell as u8 >> 1);
        (1 | failed << 32, slow | (slow & failed) << 32)
    }

    #[inline(always)]
    fn add(&mut self, cell: WindowCell) {
        let (lo, hi) = Self::delta(cell);
        self.lo = self.lo.wrapping_add(lo);
        self.hi = self.hi.wrapping_add(hi);
    }

    #[inline(always)]
    fn remove(&mut self, cell: WindowCell) {
        let (lo, hi) = Self::delta(cell);
        self.lo = self.lo.wrapping_sub(lo);
        self.hi = self.hi.wrapping_sub(hi);
    }

    #[inline(always)]
    fn remove_all(&mut self, other: Packed) {
        self.lo = self.lo.wrapping_sub(other.lo);
        self.hi = self.hi.wrapping_sub(other.hi);
    }

    #[inline(always)]
    fn calls(self) -> u32 {
        self.lo as u32
    }

    #[inline(always)]
    fn snapshot(self) -> Snapshot {
        Snapshot {
            calls: self.lo as u32,
            failed: (self.lo >> 32) as u32,
            slow: self.hi as u32,
            slow_failed: (self.hi >> 32) as u32,
        }
    }
}

/// `part` in percent of `whole`, as Resilience4j's `SnapshotImpl` computes it:
/// `part * 100.0f / whole` in `f32`; 0 when `whole` is 0.
#[inline]
pub fn percent(part: u32, whole: u32) -> f32 {
    if whole == 0 {
        0.0
    } else {
        part as f32 * 100.0 / whole as f32
    }
}

/// One second of a TIME_BASED window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// The whole second (virtual milliseconds / 1000) this bucket covers.
    pub epoch_second: u64,
    pub totals: Snapshot,
}

/// The shape of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowKind {
    /// The last N outcomes.
    CountBased(u32),
    /// The last N whole seconds.
    TimeBased(u32),
    /// The zero-size window of DISABLED and FORCED_OPEN (which record nothing). An OPEN
    /// state entered from them keeps it, and its totals count the outcomes reported there
    /// (Resilience4j counts them before it throws), with no cell to list.
    Empty,
}

/// One second of a TIME_BASED window, as stored.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    epoch_second: u64,
    totals: Packed,
}

/// A COUNT_BASED or TIME_BASED sliding window with running totals.
#[derive(Debug, Clone)]
pub struct SlidingWindow {
    kind: WindowKind,
    total: Packed,
    /// COUNT_BASED ring; `next` is where the next outcome goes.
    cells: Vec<WindowCell>,
    next: usize,
    /// TIME_BASED: the seconds of the window that recorded something, oldest first. An
    /// empty second takes no memory, so a window of a million seconds costs what it
    /// records, not a million buckets at every state change.
    seconds: VecDeque<Slot>,
    /// TIME_BASED: the window's length in seconds, and its latest second.
    span: u64,
    current: u64,
    /// TIME_BASED: the first instant of the next second (the window must move when `now`
    /// reaches it); `None` for other windows, which never move (not a sentinel time: every
    /// time, `Millis::MAX` included, is a time a clock may reach).
    roll_at: Option<Millis>,
}

impl SlidingWindow {
    /// A window of the given shape, its time buckets starting at `now`.
    pub fn new(kind: WindowKind, now: Millis) -> Self {
        let mut window = SlidingWindow {
            kind: WindowKind::Empty,
            total: Packed::default(),
            cells: Vec::new(),
            next: 0,
            seconds: VecDeque::new(),
            span: 0,
            current: 0,
            roll_at: None,
        };
        window.reset(kind, now);
        window
    }

    /// Empties the window and gives it a new shape, reusing its memory.
    pub fn reset(&mut self, kind: WindowKind, now: Millis) {
        self.kind = kind;
        self.total = Packed::default();
        self.next = 0;
        self.cells.clear();
        self.seconds.clear();
        self.roll_at = None;
        match kind {
            // The ring grows as outcomes arrive: a breaker entering HALF_OPEN 500 times a
            // tick with a window of a million trials must not write a million cells each time.
            WindowKind::CountBased(_) => {}
            WindowKind::TimeBased(seconds) => {
                // Resilience4j's buckets, one per second, hold nothing until a second
                // records: only the seconds that did are kept.
                self.span = u64::from(seconds.max(1));
                self.current = now / 1000;
                self.roll_at = Some(next_second(self.current));
            }
            WindowKind::Empty => {}
        }
    }

    pub fn kind(&self) -> WindowKind {
        self.kind
    }

    /// The most outcomes a COUNT_BASED window can hold (`None` for TIME_BASED, which is
    /// bounded by time, not count; `Some(0)` for an empty window).
    pub fn capacity(&self) -> Option<u32> {
        match self.kind {
            WindowKind::CountBased(size) => Some(size),
            WindowKind::TimeBased(_) => None,
            WindowKind::Empty => Some(0),
        }
    }

    /// The current totals (as of the last `record` / `roll_to`).
    #[inline]
    pub fn snapshot(&self) -> Snapshot {
        self.total.snapshot()
    }

    /// Records one outcome completed at `now` and returns the new totals. An empty window
    /// keeps no cell but counts it in its totals.
    #[inline(always)]
    pub fn record(&mut self, now: Millis, cell: WindowCell) -> Snapshot {
        // The hot path, a full ring, is inline; the rest is out of line, so a caller that
        // records millions of outcomes stays small enough for a wasm engine to compile well.
        if let WindowKind::CountBased(size) = self.kind {
            let full = self.cells.len() >= size as usize;
            if let (true, Some(oldest)) = (full, self.cells.get_mut(self.next)) {
                self.total.remove(*oldest);
                *oldest = cell;
                self.next += 1;
                if self.next >= size as usize {
                    self.next = 0;
                }
                self.total.add(cell);
                return self.total.snapshot();
            }
        }
        self.record_elsewhere(now, cell);
        self.total.snapshot()
    }

    /// [`Self::record`] in a ring still filling, a time window or an empty one (returning
    /// nothing: in wasm a returned `Snapshot` goes through memory).
    #[inline(never)]
    fn record_elsewhere(&mut self, now: Millis, cell: WindowCell) {
        match self.kind {
            WindowKind::CountBased(size) => {
                let size = size.max(1) as usize;
                if self.cells.len() < size {
                    // Still filling: the oldest outcome stays at index 0 (`next`).
                    self.cells.push(cell);
                } else {
                    let oldest = self.cells[self.next];
                    self.total.remove(oldest);
                    self.cells[self.next] = cell;
                    self.next += 1;
                    if self.next == size {
                        self.next = 0;
                    }
                }
                self.total.add(cell);
            }
            WindowKind::TimeBased(_) => {
                self.roll_to(now);
                match self.seconds.back_mut() {
                    Some(slot) if slot.epoch_second == self.current => slot.totals.add(cell),
                    _ => {
                        let mut totals = Packed::default();
                        totals.add(cell);
                        self.seconds.push_back(Slot {
                            epoch_second: self.current,
                            totals,
                        });
                    }
                }
                self.total.add(cell);
            }
            // No cell to keep, but the total counts it: Resilience4j's zero-size window
            // (`new FixedSizeSlidingWindowMetrics(0)`) adds to its total aggregation before
            // it fails to move its head. Only OPEN entered from DISABLED or FORCED_OPEN
            // records here (those states record nothing themselves).
            WindowKind::Empty => self.total.add(cell),
        }
    }

    /// Moves a TIME_BASED window to the second containing `now`, dropping every bucket that
    /// is now older than the window. Earlier times are ignored; other windows do not move.
    #[inline(always)]
    pub fn roll_to(&mut self, now: Millis) {
        if self.roll_at.is_some_and(|at| now >= at) {
            self.roll_slow(now);
        }
    }

    #[cold]
    fn roll_slow(&mut self, now: Millis) {
        let second = now / 1000;
        if second <= self.current {
            return;
        }
        self.current = second;
        self.roll_at = Some(next_second(second));
        // Drop the seconds now older than the window: work per second recorded, never per
        // second of the window.
        while let Some(oldest) = self.seconds.front() {
            if oldest.epoch_second + self.span > second {
                break;
            }
            self.total.remove_all(oldest.totals);
            self.seconds.pop_front();
        }
    }

    /// The outcomes in the window, oldest first. For TIME_BASED the order inside one second
    /// is not kept: each second lists its successes, slow successes, failures, then slow
    /// failures.
    pub fn cells(&self) -> Vec<WindowCell> {
        match self.kind {
            WindowKind::CountBased(_) => {
                let calls = self.total.calls() as usize;
                if calls < self.cells.len() {
                    self.cells[..calls].to_vec()
                } else {
                    let mut out = Vec::with_capacity(calls);
                    out.extend_from_slice(&self.cells[self.next..]);
                    out.extend_from_slice(&self.cells[..self.next]);
                    out
                }
            }
            WindowKind::TimeBased(_) => {
                let mut out = Vec::with_capacity(self.total.calls() as usize);
                for slot in &self.seconds {
                    let t = slot.totals.snapshot();
                    let fast_failed = t.failed - t.slow_failed;
                    let fast_ok = t.calls - t.failed - t.slow_successful();
                    out.extend(std::iter::repeat_n(WindowCell::Success, fast_ok as usize));
                    out.extend(std::iter::repeat_n(
                        WindowCell::SlowSuccess,
                        t.slow_successful() as usize,
                    ));
                    out.extend(std::iter::repeat_n(
                        WindowCell::Failure,
                        fast_failed as usize,
                    ));
                    out.extend(std::iter::repeat_n(
                        WindowCell::SlowFailure,
                        t.slow_failed as usize,
                    ));
                }
                out
            }
            WindowKind::Empty => Vec::new(),
        }
    }

    /// TIME_BASED: the window's seconds, oldest first, one bucket per second (empty seconds
    /// included, seconds before 0 left out): as long as the window, for a page that draws
    /// it. Empty for other windows.
    pub fn buckets(&self) -> Vec<Bucket> {
        let WindowKind::TimeBased(_) = self.kind else {
            return Vec::new();
        };
        let first = (self.current + 1).saturating_sub(self.span);
        let mut recorded = self.seconds.iter().peekable();
        (first..=self.current)
            .map(|second| {
                let totals = match recorded.next_if(|slot| slot.epoch_second == second) {
                    Some(slot) => slot.totals.snapshot(),
                    None => Snapshot::default(),
                };
                Bucket {
                    epoch_second: second,
                    totals,
                }
            })
            .collect()
    }
}

/// The first millisecond of the second after `second`.
fn next_second(second: u64) -> Millis {
    second.saturating_add(1).saturating_mul(1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use WindowCell::*;

    #[test]
    fn count_based_keeps_the_last_n_outcomes() {
        let mut w = SlidingWindow::new(WindowKind::CountBased(3), 0);
        w.record(0, Failure);
        w.record(0, Success);
        assert_eq!(w.cells(), [Failure, Success]);
        w.record(0, SlowFailure);
        w.record(0, SlowSuccess);
        assert_eq!(w.cells(), [Success, SlowFailure, SlowSuccess]);
        let s = w.snapshot();
        assert_eq!((s.calls, s.failed, s.slow, s.slow_failed), (3, 1, 2, 1));
    }

    /// A window of a million seconds, re-created at every state change of a flapping
    /// breaker, holds only the seconds that recorded: each reset costs nothing per second
    /// of the window (it once filled a million buckets each time).
    #[test]
    fn a_huge_time_window_costs_what_it_records() {
        let mut w = SlidingWindow::new(WindowKind::TimeBased(1_000_000), 0);
        for i in 0..100_000u64 {
            w.reset(WindowKind::TimeBased(1_000_000), i * 1000);
            w.record(i * 1000, Failure);
            w.record(i * 1000 + 500, Success);
        }
        assert_eq!(w.snapshot().calls, 2);
        assert!(w.seconds.capacity() < 16, "{}", w.seconds.capacity());
        // Seconds keep adding up until they leave the window, a million seconds later.
        // (second 99,999's two, then second 100,000's one).
        w.record(100_000_000, Failure);
        w.roll_to(1_099_998_999);
        assert_eq!(w.snapshot().calls, 3);
        w.roll_to(1_099_999_000);
        assert_eq!(w.snapshot().calls, 1);
        w.roll_to(1_100_000_000);
        assert_eq!(w.snapshot().calls, 0);
        assert!(w.seconds.is_empty());
    }

    /// Resilience4j's SlidingTimeWindowMetricsTest.shouldClearSlidingTimeWindowMetrics,
    /// with the mock clock's 12:00:00.000 as virtual time 0.
    #[test]
    fn time_based_drops_whole_seconds() {
        let mut w = SlidingWindow::new(WindowKind::TimeBased(5), 0);
        w.record(0, Failure);
        w.record(100, Success);
        assert_eq!(w.record(800, SlowFailure).calls, 3);
        w.roll_to(4_800);
        assert_eq!(w.snapshot().calls, 3);
        w.roll_to(5_800);
        assert_eq!(w.snapshot(), Snapshot::default());
        assert_eq!(w.record(5_900, Success).calls, 1);
        assert_eq!(w.record(10_900, Success).calls, 1);
    }

    #[test]
    fn time_based_buckets_are_listed_per_second() {
        let mut w = SlidingWindow::new(WindowKind::TimeBased(3), 0);
        w.record(500, Failure);
        w.record(2_100, Success);
        let b = w.buckets();
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].epoch_second, 0);
        assert_eq!(b[0].totals.failed, 1);
        assert_eq!(b[1].totals.calls, 0);
        assert_eq!(b[2].totals.calls, 1);
        assert_eq!(w.cells(), [Failure, Success]);
    }
}
