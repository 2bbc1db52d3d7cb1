//! The course: the teaching text of each numbered demo, and the pages that use it.

pub mod amplification;
pub mod boxoffice;
pub mod boxoffice_diagram;
pub mod boxoffice_edit;
pub mod brownout;
pub mod checkout;
pub mod jitter;
pub mod landing;
pub mod outcome;
pub mod overview;
pub mod tick_demo;

/// Minutes a class needs for demo `number`, predicting and discussing included: the
/// teacher notes and the front page say the same.
pub fn minutes(number: u32) -> Option<u32> {
    const MINUTES: [u32; 15] = [10, 8, 8, 10, 10, 10, 12, 15, 12, 15, 12, 25, 20, 30, 20];
    MINUTES.get(number.checked_sub(1)? as usize).copied()
}

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

pub mod lab_frame;
pub mod pool;
pub mod retry_policies;
pub mod sandbox;
pub mod teacher;

/// What the page says around a lab (Demos 8-15).
pub struct LabText {
    pub intro: &'static str,
    pub watch: &'static str,
    pub predict: &'static str,
    pub lessons: &'static [&'static str],
    /// The model behind the chart, in plain words (docs/retry-labs.md,
    /// docs/incident-labs.md and docs/retry-policies.md have the details).
    pub model: &'static str,
}

pub fn lab_text(number: u32) -> Option<&'static LabText> {
    match number {
        8 => Some(&AMPLIFICATION_TEXT),
        9 => Some(&JITTER_TEXT),
        10 => Some(&SANDBOX_TEXT),
        11 => Some(&POOL_TEXT),
        12 => Some(&BROWNOUT_TEXT),
        13 => Some(&CHECKOUT_TEXT),
        14 => Some(&BOXOFFICE_TEXT),
        15 => Some(&RETRY_POLICIES_TEXT),
        _ => None,
    }
}

pub const AMPLIFICATION_TEXT: LabText = LabText {
    intro: "A shop sends 1,000 purchase requests a second to a provider that can handle 20 % more. For 5 seconds the provider loses half its capacity, then it is healthy again. Three clients face it: one that never retries (grey), one that retries every failed call up to 3 times (red), and one that retries within a budget of 10 % of its requests (blue).",
    watch: "What each line does after the shaded degradation ends, and how much load reaches the provider.",
    predict: "The provider is healthy again at 15 s. Which clients get their successes back, and when?",
    lessons: &[
        "Retries add load exactly when the dependency is weakest. If that load keeps it overloaded, it stays down after the original cause is gone: a metastable failure.",
        "Backoff and jitter spread retries in time; only a cap on their number (fewer attempts, a retry budget) lowers the load. Switch on backoff and jitter for the red line: it stays down. Only waits of several seconds let it recover (decorrelated jitter from a base of 4 s, 22 s after the provider is healthy again): they spread the same retries so thin that the load falls under the capacity, and every user who failed waits that long.",
        "A retry budget stops retrying by itself when the dependency is really down, and costs almost nothing when it is healthy.",
    ],
    model: "The model: in each 100 ms step the provider is offered O calls with capacity C. If O is above C it wastes work on calls that will time out anyway, and completes only C / (1 + waste × (O / C − 1)) of them. The budget follows Finagle's rule: each new request deposits 10 % of a token, each retry withdraws a whole one, over the last 10 s.",
};

pub const JITTER_TEXT: LabText = LabText {
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

pub const SANDBOX_TEXT: LabText = LabText {
    intro: "One Resilience4j circuit breaker, and you are its traffic. Each button sends one call and tells the breaker how it ended; the clock moves only when you advance it. The settings are the course's: a COUNT_BASED window of the last 10 calls, judged once it holds 10, opening at a 50 % failure rate, waiting 10 s, then allowing 3 trial calls. A 404 is an answer, listed in ignoreExceptions.",
    watch: "The window's cells and the failure rate against its threshold; after the breaker opens, the countdown and what the next call gets.",
    predict: "Send 5 successes and 4 failures. Is the breaker open? What does one more failure do, and when will the next call get through?",
    lessons: &[
        "The breaker judges nothing until the window holds minimumNumberOfCalls outcomes; then a rate at or above the threshold opens it at once, on the call that reached it.",
        "OPEN refuses calls without sending them (CallNotPermittedException). The first call strictly after waitDurationInOpenState is a trial (with the automatic transition, under More settings, the breaker is HALF_OPEN at the wait itself); the trials decide whether it closes or opens again, unless maxWaitDurationInHalfOpenState runs out first.",
        "Two settings decide whether the breaker protects anything: which exceptions count (a storm of 404s opens a breaker that does not ignore them) and slowCallDurationThreshold (left at 60 s, calls of 2 s never count as slow). Load the two scenarios to see both.",
        "The fallback is a separate decision: a cached answer while it is young enough, then a degraded default, then an honest error. An open breaker only makes the fallback fast.",
    ],
    model: "The model: the engine's breaker, driven by the same script the command line runs (resilience-sim breaker FILE). A success or a failure takes 100 ms, a slow call the slow-call threshold it was sent under plus 1 s (a replay keeps each call's length). Changing a setting replays every call from t = 0 with the new config, as a new breaker would see them.",
};

pub const POOL_TEXT: LabText = LabText {
    intro: "A service has one pool of 24 request threads for two endpoints, each called 50 times a second: /fast does local work in about 20 ms; /drm calls a vendor that normally answers in about 100 ms. At the chosen second the vendor turns slow and answers in 5 s.",
    watch: "The thread cells: who holds them before and after the vendor turns slow; then the /fast line, with and without the bulkhead.",
    predict: "The vendor turns slow and only /drm calls it. What happens to /fast without a bulkhead? With a semaphore bulkhead of 8 on the vendor call?",
    lessons: &[
        "Little's law: threads needed = requests per second × seconds each one holds a thread. 50 × 0.1 s = 5 threads before the incident; 50 × 5 s = 250 after, against a pool of 24. The pool runs dry in under a second, and /fast, which never calls the vendor, waits behind it.",
        "A semaphore bulkhead of 8 caps the threads the vendor can hold: /drm degrades alone (most of its calls are refused at once with BulkheadFullException) while /fast keeps 16 threads and stays at 100 %.",
        "A thread-pool bulkhead moves the vendor calls to their own threads, but a caller that waits for the answer still holds its request thread, queued calls included: 8 vendor threads and Resilience4j's default queue of 100 let /drm hold 108 request threads, more than the pool, and /fast falls as without a bulkhead. Keep maxThreadPoolSize + queueCapacity well under the pool, or let the caller give up.",
    ],
    model: "The model: event-driven, to the millisecond. Each endpoint gets exactly its rate every second, each request at a random instant of its own slot (or a Poisson process, under More settings), and every work time or vendor call varies within ±20 %. A vendor call takes the slow time if it starts once the vendor is slow. A request holds its thread until it answers; one that finds no free thread waits in the accept queue (refused when the queue is full) until its client gives up, 1 s after sending it. The server never learns that the client left: the thread stays on the vendor call. Runs are seeded: the same seed gives the same run.",
};

pub const BROWNOUT_TEXT: LabText = LabText {
    intro: "At 09:00 the pricing service starts answering in 4 s instead of 80 ms, without a single error, for a minute. The order service calls it for each of its 250 order submissions a second; it also serves 100 order-history requests a second that never call pricing, all on 200 request threads. Four mechanisms guard the call, set up the way many stacks are: a thread-pool bulkhead of 20 threads with a queue of 20, a circuit breaker that counts errors only, 3 retries with jitter on any failure, and a fallback cache of prices that keeps them 30 s. Users give up after 1 s; order does not know and keeps working.",
    watch: "What users saw next to what the system did, second by second; then apply the fixes one at a time and compare the steps in the table.",
    predict: "Which of the four mechanisms makes the outage worse? Pick one below before you look at the answer.",
    lessons: &[
        "Each mechanism did exactly what it was told. The bulkhead ran 20 calls and refused the rest at once; the retries tried every refusal three times more, so the stack saw about four attempts per submission for the same 5 calls a second; the breaker counted errors, and pricing returned none; the cache answered only while its prices were younger than 30 s. The retries never reached pricing (the bulkhead caps what gets through), but they held order's threads asleep and multiplied the work. With a queue of 200 the same stack fails another way: the queued calls hold order's own threads until none is left, and order history goes down with submissions.",
        "+1, a 300 ms read timeout in the HTTP client, frees the bulkhead's thread when it fires and turns slow calls into failures, so the breaker opens within seconds. With the queue of 20 it protects order and pricing, not the users: while the breaker is open no live call refreshes the cache, once its prices are 30 s old every user gets an error, and when pricing recovers the open breaker keeps users waiting until its 60 s are over. With the queue of 200, where nothing got through, it gives about half the users a price and saves most of order history, but the queued calls still take all of order's threads. (A TimeLimiter instead frees the caller only: the call keeps its thread until pricing answers.)",
        "+2, the slow-call rate, changes nothing with the queue of 20: the timeout already turns every slow call into a failure. With the queue of 200 it makes things worse: the breaker's clock includes the wait in the bulkhead's queue, so after the fault the backlog's waits count as slow calls and the breaker opens again on a healthy pricing. The rule counts calls that come back inside the timeout, but slowly. To see it act, set pricing to 260 ms and the bulkhead to 100 threads (so no queue forms): with +1 nearly every user still gets a live price, slow but within the timeout; +2 opens the breaker on those slow calls and turns them into cached prices and errors. A slow-call rule trades slow answers for none: set its threshold from what users can bear.",
        "+3, a retry budget, brings the attempts back near one per submission: less load on a dependency that is struggling, fewer threads asleep between attempts, and no better for users. +4, a cache filled out of band with a TTL of hours, is the step that gives users a price: nearly every submission gets a cached one.",
        "When not to carry all four: for a dependency that is either up or hard-down, a timeout and a breaker on the error rate are the whole answer. The bulkhead, the slow-call rule, the budget and the out-of-band cache earn their keep in a brownout, when the dependency is slow but does not fail.",
    ],
    model: "The model: event-driven, to the millisecond, reported per second from 08:59:50. Each second brings exactly 250 submissions and 100 history requests, each at a random instant of its own slot, and every latency varies within ±20 %. The policies are the engine's models of Resilience4j in their default order, Retry(CircuitBreaker(Bulkhead(call))), with the fallback around them; fix 1's read timeout is inside the call, and pricing keeps working on a call whose connection it closed. Pricing answers in 80 ms again when its fault ends. Each submission prices one product of 10,000, the popular ones more often (Zipf). Runs are seeded: the same seed gives the same run.",
};

pub const BOXOFFICE_TEXT: LabText = LabText {
    intro: "BoxOffice sells stadium tickets. Clients send purchases and seat holds (critical), catalog and order pages (important) and recommendations (sheddable) through a door that can rate-limit each key and shed load by priority, sometimes a waiting room, a load balancer that sends work only to ready replicas, and order replicas whose request threads call payment through a Resilience4j stack. Pick a scenario and a protection, predict, then run the clock and watch who is served in time.",
    watch: "The system at the second shown: every replica's threads, the door, the queue, payment and each breaker; under it, each class of users second by second. Then compare every protection of the scenario on the same seed.",
    predict: "Each scenario asks its question above the system. Answer it before you press Play.",
    lessons: &[
        "Threads are shared: a slow dependency takes down what never calls it, unless a bulkhead caps the threads it can hold. A read timeout alone only halves the need.",
        "A retry storm outlives its cause: retries and abandoned work keep the load above capacity. A retry budget, a breaker or dropping stale work each end it; backoff with jitter alone does not, while users keep arriving.",
        "Say no early and cheaply, most important last: a token bucket per key holds a bot to its rate, load shedding by priority keeps purchases in time while recommendations get 503, and a limit that follows latency needs no hand-tuned number.",
        "A probe must ask what a restart can fix: liveness on a dependency restarts every healthy replica when the dependency fails. A JVM that starts slowly needs a startup probe, or liveness kills it before it ever serves.",
    ],
    model: "The model: the engine's discrete-event simulation in virtual milliseconds (docs/boxoffice.md). Clients arrive as Poisson processes and give up at their deadline; every service and work time varies within ±20 %; each stack is the engine's Resilience4j policies in Resilience4j's order, with the HTTP client's connect and read timeouts inside the call; payment keeps working on calls whose caller has gone. Runs are seeded: the same seed gives the same run, here and on the command line.",
};

pub const CHECKOUT_TEXT: LabText = LabText {
    intro: "Checkout makes two calls. It captures the card with a payment provider, through a breaker (a window of the last 20 calls, judged from 10, opening at 50 % failures or 80 % calls over 800 ms) and a retry that tries a refused connection once more. It asks a shipping quoter for a price, through its own breaker and retry. Bulkheads: payment 20 and shipping 8, one shared, or none. Every capture carries an idempotency key. Pick a scenario, predict, then look at one call layer by layer.",
    watch: "What each layer did with the call: did the breaker count it, did the bulkhead give a permit, what did the provider answer, did the retry try again, and why. Then the saga states of every scenario.",
    predict: "Each scenario comes with its question, under the title. Answer it before you read the run.",
    lessons: &[
        "A decline is an answer, not a failure: in ignoreExceptions on the breaker and the retry, 100 declines leave the breaker CLOSED and retry nothing.",
        "A read timeout on a capture is never retried: the provider may have captured. The saga records UNCERTAIN, keeps the seat and reconciles by the idempotency key. A connection that was never made may be retried, once.",
        "An open breaker and a full bulkhead mean the capture was NOT_SENT; they are inputs to the saga, not errors of the provider. No fallback ever says CAPTURED: only the provider's answer can.",
        "Give each dependency its own bulkhead: on platform threads, with one shared bulkhead a stalled quoter takes the permits payment needs, and payment's breaker opens on a healthy provider. (On virtual threads the quoter's 10 connections cap what it can hold: an attempt that finds none gives its permit back after 200 ms.) With the breaker outside the retry, it counts calls instead of attempts, and a refusing provider gets twice the requests before it opens.",
        "Virtual threads end thread starvation, not the need for a limit: with no bulkhead, calls to a stalled quoter pile up.",
    ],
    model: "The model: captures every 100 ms and quotes every 50 ms; a capture takes about 300 ms, a quote about 100 ms (±20 %, seeded). Payment's connect timeout is 200 ms and its read timeout 800 ms; shipping's read timeout is 2 s. Bulkheads let a call wait 20 ms for a permit. Platform threads: a pool of 40 request threads (a request waits 1 s at most); virtual threads: 10 HTTP connections per dependency. Between them, an order of digital goods every 150 ms (a quarter of the orders) needs no shipping and never asks the quoter.",
};

// The facts and numbers are those of ../shared/spec/05-retry-policies.md and the engine's
// defaults (RetryPolicySettings); formulas rather than measured figures where one exists.
pub const RETRY_POLICIES_TEXT: LabText = LabText {
    intro: "Demo 8 showed that 3 retries can keep a provider down and that a 10 % budget does not. Real clients ship their own answers to the question of when to retry: a Resilience4j Retry set to 3 retries has no brake at all; Finagle, gRPC and the AWS SDKs can put a brake shared by every request behind their retries; Google's SRE book drops the client's own requests instead. Eight policies, from no retries to these, face the same server twice. First, 1,000 requests a second go to a server with spare capacity that fails a share of the attempts, from 0 to 100 %. Then a server of 100 calls a second, loaded from 20 to 95 % of its capacity, turns 3x slower for 1 to 20 s.",
    watch: "The first chart: attempts per request as failures rise, and the mark where each policy starts refusing retries. The second: how many requests still succeed. Then the map of the policy you pick: which loads and slowdowns leave the server still down 60 s after the slowdown ends, and where your own load and slowdown fall.",
    predict: "Before you run it: at 100 % failures, which policies still send about one attempt per request? Which policy leaves the largest part of the map that never recovers?",
    lessons: &[
        "A limit per request is no limit on load. 3 retries make 1 + f + f^2 + f^3 attempts per request at a failure rate f: 1.01 at 1 %, 1.11 at 10 %, and 4.0 when everything fails, just when the server can least take it. On the map that is the large region that never recovers: 3x slower, the server is overloaded from a third of its capacity, and once its queue holds more than 1 s of work, the client's timeout, every attempt times out. Four attempts per request then keep the load above capacity after the slowdown is over.",
        "A shared brake caps the load instead. The course's budget lets retries be at most 10 % of the requests: about 1.1 attempts per request however bad it gets, refusing from about 9 % failures, where f + f^2 + f^3 reaches 0.1. Finagle's defaults allow 20 % plus 10 retries a second: about 1.2. Both shrink the region that never recovers to the highest loads, where 1.1 or 1.2 times the load is already near the capacity.",
        "Where the tokens come from matters. gRPC takes a token for each failure and gives back 0.1 for each success, and retries only while more than half of its 10 tokens are left: it stops once 0.1 × (1 − f) is below f, about 9 % failures, and may refuse a few from about 5 %, its margin being only 5 tokens. Brooker's token bucket, earning 0.1 per success, runs dry near the same rate; the AWS quota of 500, 14 tokens a retry since 2026, starts refusing when about a fifth of the calls fail. All three end at 1.0 attempt per request when nothing succeeds, while a budget counted on requests keeps retrying 10 % of the requests into a dead server.",
        "Adaptive throttling is not a retry policy: it sends one attempt, and once the server accepts fewer than half of them (K = 2) it drops some of the client's own requests before sending them. It never adds load, and sends almost nothing at 100 % failures; the price is requests it refuses that the server might have served.",
        "Find out which of these your own stack ships. The same 3 retries are harmless at 1 % failures and keep a system down at 100 %; the brake behind them decides which.",
    ],
    model: "The model: the engine's discrete-event simulation in virtual milliseconds (docs/retry-policies.md): one client population with Poisson arrivals, whose brake, if its policy has one, is shared by all its requests. The sweep: every attempt is answered after 10 ms and fails with probability f, independently; each point follows the requests that arrive in 20 s after a warm-up (15 s, or adaptive throttling's window if that is longer) until they end. The map: 10 workers at 100 ms a call (100 calls a second) and a queue of 200; each attempt gets 1 s, and a call that timed out is still served, for nobody. After 10 s the service turns 3x slower for the chosen seconds; a cell has recovered if at least 90 % of the requests of the last 10 s of the 60 s after the slowdown succeed. Resilience4j, the budget, the token bucket and Finagle share one per-request retry (by default 4 attempts, 500 ms apart), so only the brake differs. Runs are seeded: the same seed gives the same figures, here and on the command line.",
};
