//! The course: the teaching text of each numbered demo, and the pages that use it.

pub mod amplification;
pub mod jitter;
pub mod outcome;
pub mod tick_demo;

/// What the page says around a tick demo. Written in our own words; the facts and numbers
/// are those of ../shared/spec/01-tick-model.md.
pub struct DemoText {
    pub intro: &'static str,
    pub watch: &'static str,
    /// A question to answer before pressing Next Tick.
    pub predict: &'static str,
    /// The lesson, in one or two sentences. ("What happened" before it is written from the
    /// learner's own run: [`outcome`].)
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
        lesson: "An open breaker turns an expensive remote failure into a cheap local one, and gives the dependency room to recover.",
    },
    DemoText {
        intro: "Recommendations fails at first, so the breaker opens at t = 3. It recovers at t = 6, exactly when the breaker's 3-tick wait is over.",
        watch: "The breaker moving to HALF_OPEN and letting two trial calls through.",
        predict: "The breaker is HALF_OPEN at t = 6 and the trials answer at once. Will it close, or open again?",
        lesson: "HALF_OPEN is the breaker asking a small question before it trusts the dependency again.",
    },
    DemoText {
        intro: "Recommendations stays down. The breaker opens at t = 3 and tries again after its wait.",
        watch: "The trial calls at t = 6, and what the breaker does with their answers.",
        predict: "What will the breaker do when the two trials fail, and when will it try again?",
        lesson: "A breaker probes a broken dependency with a few calls instead of a flood.",
    },
    DemoText {
        intro: "Recommendations is slow: it never answers in time, so each call holds a worker thread for the whole 3-tick timeout. Nothing protects the 6 threads of order-api.",
        watch: "The thread pool, and the payment calls, which are perfectly healthy.",
        predict: "Payment is healthy. Will any payment fail in the first 6 ticks? From which tick?",
        lesson: "Slow is worse than down: a down service answers fast and frees the thread; a slow one holds it for the whole timeout, and a longer timeout or retries make it worse.",
    },
    DemoText {
        intro: "The same slow recommendations, now with a circuit breaker. Timeouts count as failures.",
        watch: "When the breaker opens, and what happens to the threads after it does.",
        predict: "The first timeouts arrive at t = 4. Can the breaker save the payments at t = 3 and t = 4?",
        lesson: "A breaker needs a few failures before it acts; against a slow dependency those failures take a whole timeout each to arrive.",
    },
    DemoText {
        intro: "Slow recommendations again, now behind a bulkhead: each dependency may hold at most 3 threads at once, so payment always has its own 3.",
        watch: "How many threads recommendations holds, and the refused calls.",
        predict: "Will any payment fail now? Will recommendations calls still be sent to the slow service?",
        lesson: "The bulkhead works from the first tick, but it keeps sending calls to a broken service.",
    },
    DemoText {
        intro: "Both protections together: the breaker wraps the bulkhead, as in Resilience4j's default order, so the bulkhead's refusals count as failures for the breaker.",
        watch: "The bulkhead capping the threads at once, then the breaker opening.",
        predict: "Which acts first, and when does recommendations stop holding threads?",
        lesson: "Together: the bulkhead limits the damage at once and the breaker stops the waste. Retry outside the breaker, and never retry CallNotPermittedException.",
    },
];

pub mod labs;

/// What the page says around a retry lab.
pub struct LabText {
    pub intro: &'static str,
    pub watch: &'static str,
    pub predict: &'static str,
    pub lessons: &'static [&'static str],
    /// The model behind the chart, in plain words (docs/retry-labs.md has the details).
    pub model: &'static str,
}

pub fn lab_text(number: u32) -> Option<&'static LabText> {
    match number {
        8 => Some(&AMPLIFICATION_TEXT),
        9 => Some(&JITTER_TEXT),
        _ => None,
    }
}

const AMPLIFICATION_TEXT: LabText = LabText {
    intro: "A shop sends 1,000 purchase requests a second to a provider that can handle 20 % more. For 5 seconds the provider loses half its capacity, then it is healthy again. Three clients face it: one that never retries (grey), one that retries every failed call up to 3 times (red), and one that retries within a budget of 10 % of its requests (blue).",
    watch: "What each line does after the shaded degradation ends, and how much load reaches the provider.",
    predict: "The provider is healthy again at 15 s. Which clients get their successes back, and when?",
    lessons: &[
        "Retries add load exactly when the dependency is weakest. If that load keeps it overloaded, it stays down after the original cause is gone: a metastable failure.",
        "Backoff and jitter spread retries in time; only a cap on their number (fewer attempts, a retry budget) lowers the load. Switch on backoff and jitter for the red line: it stays down.",
        "A retry budget stops retrying by itself when the dependency is really down, and costs almost nothing when it is healthy.",
    ],
    model: "The model: in each 100 ms step the provider is offered O calls with capacity C. If O is above C it wastes work on calls that will time out anyway, and completes only C / (1 + waste × (O / C − 1)) of them. The budget follows Finagle's rule: each new request deposits 10 % of a token, each retry withdraws a whole one, over the last 10 s.",
};

const JITTER_TEXT: LabText = LabText {
    intro: "A failover resets the connections of 1,000 clients, and all of them call again at the same instant, t = 0. The server can take 150 calls per 100 ms: it serves 150 of that first wave and refuses 850. A refused client backs off exponentially (1 s, then 2 s, 4 s, 8 s…) and tries again, until it is served.",
    watch: "The spikes of calls against the capacity line, and how fast the number of waiting clients falls.",
    predict: "Without jitter, when do the refused clients come back, and how many are still waiting after 15 s? What changes with full jitter?",
    lessons: &[
        "Clients that fail together and back off by the same rule retry together. Without jitter the waves fall at 0, 1, 3, 7 and 15 s; the server serves 150 of each and refuses the rest, so each wave is only 150 smaller than the one before (1,000, 850, 700, 550, 400) and 250 clients are still waiting after 15 s, while the server sat idle between the waves.",
        "Jitter spreads the retries over the backoff interval so they fit the capacity: with full jitter nearly everyone is served within about 1.5 s, with far fewer calls. A few clients whose retry fell back into a full slot are refused again and wait a longer backoff: the chart's tail.",
        "Jitter without a cap on attempts is only politeness; the cap is what limits the load.",
    ],
    model: "The model: full jitter waits a uniform time in [0, backoff]; equal jitter waits half the backoff plus a uniform half; decorrelated jitter waits a uniform time in [base, 3 × the previous wait]. Runs are seeded: the same seed gives the same chart.",
};
