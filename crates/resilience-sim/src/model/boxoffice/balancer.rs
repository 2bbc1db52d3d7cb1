//! The load balancer: which replica gets the next request.
//!
//! It only ever picks a replica that is ready: readiness is how a replica says "send me
//! nothing for now" without being restarted. Round robin takes the ready replicas in
//! turn, blind to how busy each is; least outstanding takes the one with the fewest
//! requests in flight, so a replica stuck on slow calls gets less. In front of a waiting
//! room the balancer also asks for a free thread, so requests wait in the room, not in a
//! replica's accept queue.

use super::topology::BalancerPolicy;

pub struct Balancer {
    policy: BalancerPolicy,
    cursor: usize,
}

/// What the balancer needs to know of a replica.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub ready: bool,
    pub outstanding: u32,
    pub free_thread: bool,
}

impl Balancer {
    pub fn new(policy: BalancerPolicy) -> Self {
        Self { policy, cursor: 0 }
    }

    /// A ready replica (with a free thread when `need_thread`), or none.
    pub fn pick(&mut self, replicas: &[Candidate], need_thread: bool) -> Option<usize> {
        let n = replicas.len();
        let ok = |c: &Candidate| c.ready && (!need_thread || c.free_thread);
        match self.policy {
            BalancerPolicy::RoundRobin => {
                for step in 0..n {
                    let i = (self.cursor + step) % n;
                    if ok(&replicas[i]) {
                        self.cursor = (i + 1) % n;
                        return Some(i);
                    }
                }
                None
            }
            BalancerPolicy::LeastOutstanding => {
                // Ties go round robin, so equal replicas share the load.
                let mut best: Option<usize> = None;
                for step in 0..n {
                    let i = (self.cursor + step) % n;
                    let c = &replicas[i];
                    if ok(c) && best.is_none_or(|b| c.outstanding < replicas[b].outstanding) {
                        best = Some(i);
                    }
                }
                if let Some(i) = best {
                    self.cursor = (i + 1) % n;
                }
                best
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(ready: bool, outstanding: u32) -> Candidate {
        Candidate {
            ready,
            outstanding,
            free_thread: outstanding < 2,
        }
    }

    #[test]
    fn round_robin_skips_a_replica_that_is_not_ready() {
        let mut lb = Balancer::new(BalancerPolicy::RoundRobin);
        let replicas = [c(true, 0), c(false, 0), c(true, 0)];
        let picks: Vec<_> = (0..4).map(|_| lb.pick(&replicas, false)).collect();
        assert_eq!(picks, [Some(0), Some(2), Some(0), Some(2)]);
        assert_eq!(lb.pick(&[c(false, 0)], false), None);
    }

    #[test]
    fn least_outstanding_avoids_the_busy_replica_and_a_waiting_room_needs_a_thread() {
        let mut lb = Balancer::new(BalancerPolicy::LeastOutstanding);
        let replicas = [c(true, 5), c(true, 1), c(true, 3)];
        assert_eq!(lb.pick(&replicas, false), Some(1));
        let busy = [c(true, 5), c(true, 4)];
        assert_eq!(lb.pick(&busy, true), None);
        assert_eq!(lb.pick(&busy, false), Some(1));
    }
}
