//! One client population's retry policy, whichever of the lab's eight it is, behind one
//! interface: a request starts (or is dropped locally), each attempt's end is reported,
//! and the policy answers done, retry after a wait, or stop.
//!
//! The brakes are the engine's own policies; this module only wires them to the
//! per-request rules, in the order the real clients use: the per-request limit first
//! (attempts left? is the failure retryable?), then the shared brake (a token, a budget,
//! the quota), so a request that has spent its attempts never draws from the bucket.

use rand::Rng;

use super::{RetryPolicyKind, RetryPolicySettings};
use crate::policy::adaptive_throttling::AdaptiveThrottling;
use crate::policy::retry::aws_standard::{AwsRequest, AwsStandardRetry};
use crate::policy::retry::grpc::GrpcRetry;
use crate::policy::retry::token_bucket::TokenBucket;
use crate::policy::retry::{Retry, RetryBudget, RetryContext, RetryDecision};
use crate::{ConfigError, Millis, Outcome};

/// How an attempt ended, as the client saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptEnd {
    /// An answer.
    Success,
    /// An error answer (a 5xx, a full queue's rejection).
    Error,
    /// No answer within the client's timeout.
    Timeout,
}

impl AttemptEnd {
    /// The engine outcome Resilience4j's retry classifies (both failures are retryable).
    fn outcome(self) -> Outcome {
        match self {
            AttemptEnd::Success => Outcome::Success,
            AttemptEnd::Error => Outcome::Http5xx,
            AttemptEnd::Timeout => Outcome::ReadTimeout,
        }
    }
}

/// What the client does after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The request succeeded.
    Done,
    /// Wait, then send the next attempt.
    RetryAfter(Millis),
    /// The request failed; `refused`: a retry was wanted but the shared brake said no.
    Stop { refused: bool },
}

/// One request's state under the policy.
#[derive(Debug, Clone)]
pub struct Call {
    attempts: u32,
    retry: Option<RetryContext>,
    aws: AwsRequest,
}

impl Call {
    /// Attempts reported so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }
}

#[derive(Debug, Clone)]
enum Brake {
    None,
    Resilience4j(Retry),
    Budget(Retry, RetryBudget),
    TokenBucket(Retry, TokenBucket),
    Grpc(GrpcRetry),
    Aws(AwsStandardRetry),
    Adaptive(Box<AdaptiveThrottling>),
}

/// A client population's policy: the per-request rules and the shared state of its brake.
#[derive(Debug, Clone)]
pub struct ClientPolicy {
    kind: RetryPolicyKind,
    brake: Brake,
}

impl ClientPolicy {
    pub fn new(kind: RetryPolicyKind, settings: &RetryPolicySettings) -> Result<Self, ConfigError> {
        settings.validate()?;
        let retry = || Retry::new(settings.resilience4j.clone());
        let brake = match kind {
            RetryPolicyKind::None => Brake::None,
            RetryPolicyKind::Resilience4j => Brake::Resilience4j(retry()?),
            RetryPolicyKind::RetryBudget => {
                Brake::Budget(retry()?, RetryBudget::new(settings.retry_budget.clone())?)
            }
            RetryPolicyKind::Finagle => {
                Brake::Budget(retry()?, RetryBudget::new(settings.finagle.clone())?)
            }
            RetryPolicyKind::TokenBucket => {
                Brake::TokenBucket(retry()?, TokenBucket::new(settings.token_bucket.clone())?)
            }
            RetryPolicyKind::Grpc => Brake::Grpc(GrpcRetry::new(settings.grpc.clone())?),
            RetryPolicyKind::AwsStandard => {
                Brake::Aws(AwsStandardRetry::new(settings.aws_standard.clone())?)
            }
            RetryPolicyKind::AdaptiveThrottling => Brake::Adaptive(Box::new(
                AdaptiveThrottling::new(settings.adaptive_throttling.clone())?,
            )),
        };
        Ok(Self { kind, brake })
    }

    pub fn kind(&self) -> RetryPolicyKind {
        self.kind
    }

    /// The application makes a request at `now`: its call, or `None` when the policy
    /// drops it locally (adaptive throttling only).
    pub fn start<R: Rng + ?Sized>(&mut self, now: Millis, rng: &mut R) -> Option<Call> {
        let retry = match &mut self.brake {
            Brake::Adaptive(throttle) => {
                if !throttle.admit(now, rng) {
                    return None;
                }
                None
            }
            Brake::Budget(retry, budget) => {
                budget.deposit(now);
                Some(retry.start())
            }
            Brake::Resilience4j(retry) | Brake::TokenBucket(retry, _) => Some(retry.start()),
            Brake::None | Brake::Grpc(_) | Brake::Aws(_) => None,
        };
        Some(Call {
            attempts: 0,
            retry,
            aws: AwsRequest::default(),
        })
    }

    /// Attempt number `call.attempts() + 1` ended at `now` as `end`.
    pub fn on_attempt<R: Rng + ?Sized>(
        &mut self,
        call: &mut Call,
        now: Millis,
        end: AttemptEnd,
        rng: &mut R,
    ) -> Next {
        call.attempts += 1;
        let success = end == AttemptEnd::Success;
        match &mut self.brake {
            Brake::None => plain(success),
            Brake::Adaptive(throttle) => {
                throttle.on_response(now, success);
                plain(success)
            }
            Brake::Resilience4j(_) => resilience4j(call, end, rng, |_| true),
            Brake::Budget(_, budget) => resilience4j(call, end, rng, |_| budget.try_withdraw(now)),
            Brake::TokenBucket(_, bucket) => {
                if success {
                    bucket.on_success();
                }
                resilience4j(call, end, rng, |_| bucket.try_retry())
            }
            Brake::Grpc(grpc) => {
                if success {
                    grpc.on_success();
                    return Next::Done;
                }
                grpc.on_failure();
                let refusals = grpc.refusals();
                match grpc.retry_after(call.attempts, rng) {
                    Some(wait) => Next::RetryAfter(wait),
                    None => Next::Stop {
                        refused: grpc.refusals() > refusals,
                    },
                }
            }
            Brake::Aws(aws) => {
                if success {
                    aws.on_success(&call.aws);
                    return Next::Done;
                }
                let refusals = aws.refusals();
                let timed_out = end == AttemptEnd::Timeout;
                match aws.retry_after(&mut call.aws, call.attempts, timed_out, rng) {
                    Some(wait) => Next::RetryAfter(wait),
                    None => Next::Stop {
                        refused: aws.refusals() > refusals,
                    },
                }
            }
        }
    }
}

fn plain(success: bool) -> Next {
    if success {
        Next::Done
    } else {
        Next::Stop { refused: false }
    }
}

/// Resilience4j's per-request decision, then `permit` for the retry it wants.
fn resilience4j<R: Rng + ?Sized>(
    call: &mut Call,
    end: AttemptEnd,
    rng: &mut R,
    permit: impl FnOnce(&mut R) -> bool,
) -> Next {
    let Some(ctx) = call.retry.as_mut() else {
        return plain(end == AttemptEnd::Success);
    };
    match ctx.on_outcome(end.outcome(), rng) {
        RetryDecision::Done { .. } => Next::Done,
        RetryDecision::GiveUp { .. } => Next::Stop { refused: false },
        RetryDecision::RetryAfter { wait, .. } => {
            if permit(rng) {
                Next::RetryAfter(wait)
            } else {
                ctx.give_up();
                Next::Stop { refused: true }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn failures_until_stop(kind: RetryPolicyKind) -> (u32, Next) {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut p = ClientPolicy::new(kind, &RetryPolicySettings::default()).unwrap();
        let mut call = p.start(0, &mut rng).unwrap();
        loop {
            let next = p.on_attempt(&mut call, 0, AttemptEnd::Error, &mut rng);
            if !matches!(next, Next::RetryAfter(_)) {
                return (call.attempts(), next);
            }
        }
    }

    #[test]
    fn attempts_per_request_when_everything_fails() {
        use RetryPolicyKind::*;
        let unrefused = Next::Stop { refused: false };
        assert_eq!(failures_until_stop(None), (1, unrefused));
        assert_eq!(failures_until_stop(Resilience4j), (4, unrefused));
        // A full bucket, a fresh gRPC count and AWS quota pay for a first request's retries.
        assert_eq!(failures_until_stop(TokenBucket), (4, unrefused));
        assert_eq!(failures_until_stop(Grpc), (4, unrefused));
        assert_eq!(failures_until_stop(AwsStandard), (3, unrefused));
        assert_eq!(failures_until_stop(Finagle), (4, unrefused), "the reserve");
        // The course's budget has no reserve: one deposit is 0.1 retry.
        assert_eq!(
            failures_until_stop(RetryBudget),
            (1, Next::Stop { refused: true })
        );
    }

    #[test]
    fn waits_follow_each_library() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let settings = RetryPolicySettings::default();
        let mut r4j = ClientPolicy::new(RetryPolicyKind::Resilience4j, &settings).unwrap();
        let mut call = r4j.start(0, &mut rng).unwrap();
        assert_eq!(
            r4j.on_attempt(&mut call, 0, AttemptEnd::Timeout, &mut rng),
            Next::RetryAfter(500)
        );
        let mut aws = ClientPolicy::new(RetryPolicyKind::AwsStandard, &settings).unwrap();
        let mut call = aws.start(0, &mut rng).unwrap();
        match aws.on_attempt(&mut call, 0, AttemptEnd::Error, &mut rng) {
            Next::RetryAfter(w) => assert!(w <= 1_000),
            other => panic!("{other:?}"),
        }
    }
}
