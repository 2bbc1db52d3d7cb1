//! The course: the teaching text of each numbered demo, and the pages that use it.

pub mod tick_demo;

/// What the page says around a tick demo. Written in our own words; the facts and numbers
/// are those of ../shared/spec/01-tick-model.md.
pub struct DemoText {
    pub intro: &'static str,
    pub watch: &'static str,
    /// A question to answer before pressing Next Tick.
    pub predict: &'static str,
    /// What should have happened once the demo's ticks are done.
    pub outcome: &'static str,
    /// The lesson, in one or two sentences.
    pub lesson: &'static str,
}

pub fn text(demo: u32) -> Option<&'static DemoText> {
    TEXTS.get(demo.checked_sub(1)? as usize)
}

const TEXTS: [DemoText; 7] = [
    DemoText {
        intro: "Recommendations is down: every call comes back with an error one tick after it was sent. A circuit breaker guards it, counting the last 4 outcomes.",
        watch: "The breaker's window filling with failures, and what happens to the calls after it opens.",
        predict: "At which tick will the breaker open, and will the calls it refuses still take a thread?",
        outcome: "The four failures of t = 2 and t = 3 filled the window: a failure rate of 100 %, so the breaker opened at t = 3. From then on recommendations calls were refused at once: no thread, no waiting, and the page showed the cached list.",
        lesson: "An open breaker turns an expensive remote failure into a cheap local one, and gives the dependency room to recover.",
    },
    DemoText {
        intro: "Recommendations fails at first, so the breaker opens at t = 3. It recovers at t = 6, exactly when the breaker's 3-tick wait is over.",
        watch: "The breaker moving to HALF_OPEN and letting two trial calls through.",
        predict: "The breaker is HALF_OPEN at t = 6 and the trials answer at once. Will it close, or open again?",
        outcome: "At t = 6 the wait was over, the breaker went HALF_OPEN and let 2 trial calls through. Both answered, a failure rate of 0 %, below the 50 % threshold, so the breaker closed in the same tick and traffic flowed again.",
        lesson: "HALF_OPEN is the breaker asking a small question before it trusts the dependency again.",
    },
    DemoText {
        intro: "Recommendations stays down. The breaker opens at t = 3 and tries again after its wait.",
        watch: "The trial calls at t = 6, and what the breaker does with their answers.",
        predict: "What will the breaker do when the two trials fail, and when will it try again?",
        outcome: "The trials sent at t = 6 failed at t = 7, so the breaker opened again at t = 7 for another 3-tick wait and went HALF_OPEN at t = 10. Between trials, no recommendations call took a thread.",
        lesson: "A breaker probes a broken dependency with a few calls instead of a flood.",
    },
    DemoText {
        intro: "Recommendations is slow: it never answers in time, so each call holds a worker thread for the whole 3-tick timeout. Nothing protects the 6 threads of order-api.",
        watch: "The thread pool, and the payment calls, which are perfectly healthy.",
        predict: "Payment is healthy. Will any payment fail in the first 6 ticks? From which tick?",
        outcome: "Two new slow calls every tick filled all 6 threads by t = 3. From then on every payment found no free thread and failed: 4 failed payments (t = 3, 4, 5, 6), caused by a service that is only nice to have.",
        lesson: "Slow is worse than down: a down service answers fast and frees the thread; a slow one holds it for the whole timeout, and a longer timeout or retries make it worse.",
    },
    DemoText {
        intro: "The same slow recommendations, now with a circuit breaker. Timeouts count as failures.",
        watch: "When the breaker opens, and what happens to the threads after it does.",
        predict: "The first timeouts arrive at t = 4. Can the breaker save the payments at t = 3 and t = 4?",
        outcome: "The breaker needed 4 outcomes, and the first timeouts only arrived at t = 4, so payments still failed at t = 3 and t = 4. The breaker opened at t = 5, refused new calls, and the threads drained as the old calls timed out.",
        lesson: "A breaker needs a few failures before it acts; against a slow dependency those failures take a whole timeout each to arrive.",
    },
    DemoText {
        intro: "Slow recommendations again, now behind a bulkhead: each dependency may hold at most 3 threads at once, so payment always has its own 3.",
        watch: "How many threads recommendations holds, and the refused calls.",
        predict: "Will any payment fail now? Will recommendations calls still be sent to the slow service?",
        outcome: "Recommendations never held more than 3 threads and no payment failed. But every tick the bulkhead still let calls through to the slow service whenever a permit came free, and refused the rest with BulkheadFullException.",
        lesson: "The bulkhead works from the first tick, but it keeps sending calls to a broken service.",
    },
    DemoText {
        intro: "Both protections together: the breaker wraps the bulkhead, as in Resilience4j's default order, so the bulkhead's refusals count as failures for the breaker.",
        watch: "The bulkhead capping the threads at once, then the breaker opening.",
        predict: "Which acts first, and when does recommendations stop holding threads?",
        outcome: "The bulkhead capped recommendations at 3 threads from t = 2, so no payment failed. Its refusals and the first timeout filled the breaker's window, which opened at t = 4; the last slow call timed out at t = 5 and recommendations held no thread after that.",
        lesson: "Together: the bulkhead limits the damage at once and the breaker stops the waste. Retry outside the breaker, and never retry CallNotPermittedException.",
    },
];
