//! Teacher notes per numbered demo (issue 13): learning objectives, the expected answer to
//! the page's predict question and why, one discussion question, the time a class needs and
//! common misconceptions. Shown in each demo's collapsible "For teachers" section and on the
//! printable course overview. Plain text (the UI escapes it); the facts and figures are those
//! of ../shared/spec/ (01-tick-model.md for Demos 1-7, 02-retry-labs.md for 8-9,
//! 03-incident-labs.md for 10-13, 04-boxoffice-playground.md for 14, 05-retry-policies.md
//! for 15).

pub struct TeacherNotes {
    /// What a learner can do after the demo, each starting with a verb.
    pub objectives: &'static [&'static str],
    /// The expected answer to the page's predict question (the question itself is the page's
    /// `predict` text, not repeated here).
    pub answer: &'static str,
    /// Why, from the run's own figures.
    pub reasoning: &'static str,
    pub discussion: &'static str,
    pub misconceptions: &'static [&'static str],
}

/// The notes of demo `demo` (1 to 15), `None` for any other number.
pub fn notes(demo: u32) -> Option<&'static TeacherNotes> {
    NOTES.get(demo.checked_sub(1)? as usize)
}

const NOTES: [TeacherNotes; 15] = [
    // 1: Errors trip the breaker
    TeacherNotes {
        objectives: &[
            "Trace how a COUNT_BASED window of 4 fills with failures until the breaker opens.",
            "Explain why a call the open breaker refuses costs no thread and no time.",
        ],
        answer: "It opens at t = 3. The calls it refuses from then on take no thread: they fail at once with CallNotPermittedException and are not recorded.",
        reasoning: "The calls sent at t = 1 and t = 2 come back as errors one tick later, so at t = 3 the window holds 4 failures: minimumNumberOfCalls (4) is reached and 100 % is above the 50 % threshold. The breaker is asked before the pool, so a refused call never reaches it.",
        discussion: "The page still shows recommendations while the breaker is open. Where do they come from, and what could the page do if payment failed, which has no fallback?",
        misconceptions: &[
            "The breaker opens on the first failure. It judges nothing until the window holds minimumNumberOfCalls outcomes.",
            "An open breaker still calls the service and hides the error. It sends nothing.",
        ],
    },
    // 2: Half-open: it is back
    TeacherNotes {
        objectives: &[
            "Describe what HALF_OPEN lets through: 2 trial calls, the rest refused.",
            "Predict from the trials' outcomes whether the breaker closes or opens again.",
        ],
        answer: "It closes, at t = 6 itself, and starts a fresh window.",
        reasoning: "The breaker opened at t = 3 and waits 3 ticks, so at t = 6 it is HALF_OPEN and that tick's 2 recommendations calls are the trials (permittedNumberOfCallsInHalfOpenState 2). Both answer within the tick: 0 % failures is below 50 %, so CLOSED.",
        discussion: "Why not simply close after the wait, or send all traffic as the trial? What would each do to a service that has only just come back?",
        misconceptions: &[
            "After the wait the breaker closes by itself. Only the trials' outcomes close it.",
            "HALF_OPEN lets all traffic through. It sends 2 trials and refuses the rest.",
        ],
    },
    // 3: Half-open: still broken
    TeacherNotes {
        objectives: &[
            "Trace the cycle OPEN, HALF_OPEN, OPEN while the dependency stays down.",
            "Compute when the next trials are sent from the wait and the trials' answers.",
        ],
        answer: "It opens again at t = 7, when the trials' errors arrive, and tries again at t = 10, when it is HALF_OPEN for 2 new trials.",
        reasoning: "The 2 trials sent at t = 6 fail one tick later: 2 failures of 2 is 100 %, at or above 50 %, so OPEN at t = 7 with a new 3-tick wait, 7 + 3 = 10. The broken service now gets 2 calls every 4 ticks instead of 2 every tick.",
        discussion: "Resilience4j can make the wait grow with each reopening (waitIntervalFunctionInOpenState). When would you want that, and what does it cost once the service is back?",
        misconceptions: &[
            "Failed trials send the breaker back to CLOSED to count again. It goes straight back to OPEN for another full wait.",
        ],
    },
    // 4: Slow service, no protection
    TeacherNotes {
        objectives: &[
            "Explain how a slow dependency exhausts a shared thread pool.",
            "Trace a cascading failure to a healthy service that shares the pool.",
            "Compare a slow dependency with one that is down.",
        ],
        answer: "Yes: 4 payments fail, at t = 3, 4, 5 and 6, although payment itself is healthy.",
        reasoning: "Each tick 2 recommendations calls take a thread and hold it for the 3-tick timeout: 2, 4, then 6 threads after t = 1, 2, 3. From t = 3 on, the 2 recommendations calls arrive first and take the only free threads (from t = 4, the 2 just freed by timeouts), and payment finds none free.",
        discussion: "Would a timeout of 1 tick or of 10 ticks change the result? What would 2 retries on recommendations do?",
        misconceptions: &[
            "Down is the worst case. An error frees its thread after one tick; a slow call holds it for the whole timeout.",
            "A healthy service cannot fail because of another one. Here both share the same 6 threads.",
        ],
    },
    // 5: Slow service, circuit breaker
    TeacherNotes {
        objectives: &[
            "Explain why a breaker reacts late to a slow dependency.",
            "Trace the threads draining after the breaker opens.",
        ],
        answer: "No. Payments still fail at t = 3 and t = 4; the breaker opens at t = 5, and from then on payment succeeds while the threads drain.",
        reasoning: "At t = 3 nothing has been recorded, and at t = 4 the window holds only the 2 timeouts of the t = 1 calls, fewer than minimumNumberOfCalls (4). At t = 5 the t = 2 timeouts make 4 failures: OPEN, and recommendations holds 4, then 2 threads.",
        discussion: "Which change would have saved the payments: a timeout of 1 tick (OPEN at t = 3, none lost), a minimumNumberOfCalls of 2 (OPEN at t = 4, one lost), a slow-call threshold (no change: a call is timed only when it ends)? What does each cost?",
        misconceptions: &[
            "A breaker protects from the first slow call. Each failure takes a whole timeout to arrive, and it needs 4 of them.",
            "Opening frees the threads at once. Calls already sent keep theirs until they time out.",
        ],
    },
    // 6: Bulkhead
    TeacherNotes {
        objectives: &[
            "Explain how a bulkhead keeps one slow dependency from taking every thread.",
            "Recognise that a bulkhead still sends calls to a broken service.",
        ],
        answer: "No payment fails. Yes: recommendations keeps sending calls to the slow service, at most 3 at a time; the calls over the cap are rejected at once with BulkheadFullException.",
        reasoning: "maxConcurrentCalls 3 caps recommendations at 3 of the 6 threads (2, 3, 3, 3, 3, 3), so payment always has its own 3. Each timeout frees a permit, and the next recommendations call takes it and waits another 3 ticks.",
        discussion: "The page keeps working but keeps paying for calls that cannot succeed. How would you notice that in production, and what would you add?",
        misconceptions: &[
            "A bulkhead stops calls to a broken service. It only limits how many run at once.",
        ],
    },
    // 7: Breaker and bulkhead together
    TeacherNotes {
        objectives: &[
            "Explain what the bulkhead and the breaker each contribute, and when.",
            "Trace how the bulkhead's rejections make the breaker open sooner.",
        ],
        answer: "The bulkhead acts first: it caps recommendations at 3 threads and rejects its first call at t = 2. The breaker opens at t = 4, and recommendations holds no thread from t = 5.",
        reasoning: "The breaker records the bulkhead's rejections as failures (1 at t = 2, 2 at t = 3); the first timeout at t = 4 fills the window of 4: OPEN, a tick sooner than the breaker alone. Threads held: 2, 3, 3, 1, 0, 0.",
        discussion: "Production configs usually put BulkheadFullException in ignoreExceptions. How would this run change, and why might you still want that?",
        misconceptions: &[
            "The two are redundant, so pick one. The bulkhead limits the damage at once; the breaker then stops the waste.",
            "Retrying a refused call helps. Retry outside the breaker and never retry CallNotPermittedException.",
        ],
    },
    // 8: Retries can keep a system down
    TeacherNotes {
        objectives: &[
            "Explain how retries can hold a provider down after the trigger is gone (metastable failure).",
            "Distinguish spreading retries (backoff, jitter) from capping them (attempts, a retry budget).",
        ],
        answer: "Grey (no retries) and blue (the budget) both get their successes back the moment the provider is healthy, at 15 s. Red (3 retries) does not: it stays degraded to the end of the run.",
        reasoning: "Demand is 1,000 requests/s against a capacity of 1,200/s. Red offers up to 4 calls per request; an overloaded provider wastes work, fewer calls succeed, and the failures return as retries, keeping the load above capacity. The budget lets retries add at most 10 %: 1,100 calls/s, under the capacity.",
        discussion: "Which retry settings in your own systems have no cap on the extra load they can add, and how would you find out before an incident?",
        misconceptions: &[
            "Backoff and jitter cure it. At the default waits none of them brings red back; only waits of several seconds do, and every user who failed waits that long. A cap lowers the load without that price.",
            "Once the cause is fixed, the system recovers by itself.",
        ],
    },
    // 9: Jitter against synchronized waves
    TeacherNotes {
        objectives: &[
            "Explain why clients that fail together and back off alike retry together.",
            "Compare the waves without jitter with the spread of full jitter.",
        ],
        answer: "They come back in waves at 1, 3, 7 and 15 s, and 250 clients are still waiting after 15 s. With full jitter the retries spread out: nearly everyone is served within about 1.5 s, with fewer calls in all.",
        reasoning: "Every refused client waits the same 1, 2, 4, 8 s, so they return together; each wave gets 150 served and the rest refused: 1,000, 850, 700, 550, 400, leaving 250. Full jitter draws each wait in [0, backoff], so the 850 arrive over a second, about 85 per 100 ms against 150.",
        discussion: "The server sat idle between the waves while clients waited. Where do many of your clients fail at the same instant: deploys, failovers, cache expiry?",
        misconceptions: &[
            "Exponential backoff alone spreads the load. Without jitter it only widens the gaps between identical waves.",
            "Jitter limits the load. It spreads retries in time; here that saves calls only because the server sat idle between the waves. Against a server that fails whatever the timing, only a cap on attempts limits them.",
        ],
    },
    // 10: The breaker sandbox
    TeacherNotes {
        objectives: &[
            "Apply minimumNumberOfCalls and an inclusive threshold to tell when a breaker opens.",
            "Predict which call after waitDurationInOpenState becomes a HALF_OPEN trial.",
        ],
        answer: "No: 9 outcomes are fewer than minimumNumberOfCalls (10), so no rate is computed and it stays CLOSED. One more failure makes 5 of 10 = 50 %, at the threshold: it opens at once. The next call gets through only when sent strictly after the 10 s wait, as the first of 3 trials.",
        reasoning: "Thresholds are inclusive and checked after every recorded outcome, never on a timer. OPEN refuses calls with CallNotPermittedException; without automatic transition, the first call after the wait makes it HALF_OPEN.",
        discussion: "Which answers of your dependencies are not failures (a 404, a decline)? What does a storm of them do to a breaker that does not ignore them?",
        misconceptions: &[
            "The breaker opens once half the calls so far have failed. Nothing is judged before minimumNumberOfCalls.",
            "After the wait the breaker turns HALF_OPEN by itself. Here the next call does it.",
        ],
    },
    // 11: One pool of 24 threads, and a bulkhead of 8
    TeacherNotes {
        objectives: &[
            "Apply Little's law to estimate the threads a slow dependency needs.",
            "Explain how a semaphore bulkhead isolates an endpoint that never calls the vendor.",
        ],
        answer: "Without a bulkhead /fast goes down too: the stuck /drm calls take all 24 threads and /fast waits for one until its clients give up. With a bulkhead of 8, /drm degrades alone and /fast keeps serving on the other 16 threads.",
        reasoning: "By Little's law /drm needs 50/s x 5 s = 250 threads once the vendor is slow (50 x 0.1 s = 5 before), against 24. The bulkhead lets at most 8 wait on the vendor and refuses the rest at once with BulkheadFullException, which frees their threads.",
        discussion: "How would you size a bulkhead per vendor, and what should /drm users see when theirs is full?",
        misconceptions: &[
            "An endpoint that never calls the vendor is safe. It shares the pool and waits behind the stuck threads.",
            "A thread-pool bulkhead protects the same way. If the caller waits for the answer, queued calls still hold request threads.",
        ],
    },
    // 12: The 09:00 pricing brownout
    TeacherNotes {
        objectives: &[
            "Identify which mechanism of a protection stack turns a slow dependency into an outage.",
            "Compare what each fix does for users with what it does for the system.",
        ],
        answer: "The retries, as configured: the bulkhead's short queue refuses at once, and every refusal is tried three times more, about 4 attempts per submission for the same 5 admitted calls a second. (With a queue of 200 the bulkhead becomes the worst: its queued calls hold order's threads until none is left.)",
        reasoning: "At 4 s a call, 20 threads admit 5 pricing calls/s; Little's law asks for 250 x 4 s = 1,000 in flight. The breaker never opens: pricing returns no errors. The retries cannot reach pricing past the bulkhead; they multiply the attempts and keep order's threads asleep.",
        discussion: "A 300 ms timeout saves order and pricing but no user gets a price once the cache is 30 s old, and after pricing recovers the open breaker keeps refusing until its 60 s wait is over: users get errors for about 8 s more. What would you watch to see that difference?",
        misconceptions: &[
            "More protection is always safer. Each mechanism did what it was told, and together they turned a slow pricing service into failed submissions (with a queue of 200, order history went down too).",
            "A breaker catches a brownout. One that counts errors only never opens on a slow dependency that returns none.",
        ],
    },
    // 13: Payment and shipping: what counts as a failure
    TeacherNotes {
        objectives: &[
            "Classify outcomes as answers, failures or unknown before choosing retries and fallbacks.",
            "Explain why a read timeout on a capture ends UNCERTAIN and is never retried.",
        ],
        answer: "Decline storm: the breaker stays CLOSED, nothing retried. Quoter stall: no payment permit taken, no capture lost. Connection reset: at most 2 requests a capture, until the breaker opens on 10 failures; later captures are NOT_SENT. Lost response: 1 request a capture, UNCERTAIN; the breaker opens on the 10th read timeout (captures in flight still end UNCERTAIN), and later captures are NOT_SENT. Provider timeouts: the same on our side; only reconciling by the idempotency key tells them apart: the provider captured every lost answer and none of the timed-out captures. Game day: shipping's breaker opens; the decline does not count.",
        reasoning: "Declines are in ignoreExceptions on the breaker and the retry. Only a connect failure is retried, once: after a read timeout the provider may have captured, so the saga reconciles by the idempotency key. The breaker judges from minimumNumberOfCalls 10 at 50 %; each dependency has its own bulkhead.",
        discussion: "Which of your provider's outcomes are answers, failures or unknown, and who reconciles the unknown?",
        misconceptions: &[
            "A fallback may report the payment as done. Only the provider's answer can say CAPTURED.",
            "A read timeout is safe to retry. The capture may have happened.",
        ],
    },
    // 14: BoxOffice: a whole system on its on-sale day
    TeacherNotes {
        objectives: &[
            "Predict which users a slow or overloaded dependency takes down, from the threads and queues they share.",
            "Choose between a bulkhead, a retry budget, a breaker, load shedding and a probe for a given incident.",
        ],
        answer: "Cascading failure: unprotected, holds and catalog fall below 10 % in time within 5 s; the bulkhead of 50 keeps them at 99 % and more. Retry storm: naive retries never recover; a budget, a breaker or dropping stale work each recover within about 10 s. Flash sale: no shedding collapses goodput below 20 % of capacity; shedding by priority keeps purchases at 95 % and more in time.",
        reasoning: "Little's law: threads needed = rate x time held. 100 purchases a second at 4 s need 400 threads, the replica has 200. A retry storm keeps the offered load near 4x after the trigger. Shedding says no before any work is done.",
        discussion: "Which of your services share threads, connections or a queue with a dependency that can turn slow, and what turns work away first?",
        misconceptions: &[
            "Backoff with jitter ends a retry storm. Not while new users keep arriving: it only spreads the same retries.",
            "A liveness probe should check the dependencies. A restart cannot fix payment; it only takes the healthy pages down too.",
        ],
    },
    // 15: Which retry policy survives?
    TeacherNotes {
        objectives: &[
            "Compute the attempts per request of 3 retries at a failure rate f, and of a shared retry brake.",
            "Explain why a brake fed by successes stops retrying sooner than a budget counted on requests.",
            "Place a load and a slowdown on a metastability map and tell whether it recovers.",
        ],
        answer: "At 100 % failures all but Resilience4j send about one attempt per request or fewer: none, the token bucket, gRPC and AWS 1.0 (gRPC stops retrying once 0.1 x (1 - f) falls below f, about 9 % failures), the budget 1.1, Finagle about 1.2, adaptive throttling almost none. Resilience4j's 3 retries make 1 + f + f^2 + f^3 attempts: 4.0 at 100 %. It also leaves the largest region that never recovers: 24 of 45 cells at seed 1 (the budget 6, Finagle 8, the others none).",
        reasoning: "A brake caps all requests' retries together: the budget at 10 % of them, Finagle at 20 % plus 10 a second. The token bucket, gRPC and AWS are fed by successes, so they run dry as successes vanish. On the map, while every call times out, 4 attempts per request hold the load at 4x: above capacity, the queue never drains.",
        discussion: "Which retry policy does your client library ship by default, and what does it do when the dependency fails every call?",
        misconceptions: &[
            "Backoff makes 3 retries safe. It only moves the attempts: at 100 % failures, still 4 per request.",
            "Every retry budget is alike. One counted on requests keeps retrying into a dead server (1.1); one fed by successes stops (1.0).",
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::scenario::catalogue::course;

    fn strings(n: &TeacherNotes) -> Vec<&'static str> {
        let mut all = vec![n.answer, n.reasoning, n.discussion];
        all.extend(n.objectives.iter().copied());
        all.extend(n.misconceptions.iter().copied());
        all
    }

    #[test]
    fn every_demo_of_the_course_has_complete_notes() {
        let mut count = 0;
        for (number, title) in course() {
            let n = notes(number).unwrap_or_else(|| panic!("no notes for Demo {number}: {title}"));
            let minutes = super::super::minutes(number).unwrap_or_default();
            assert!(
                (5..=30).contains(&minutes),
                "Demo {number}: {minutes} minutes"
            );
            assert!(
                (2..=3).contains(&n.objectives.len()),
                "Demo {number}: objectives"
            );
            assert!(
                (1..=2).contains(&n.misconceptions.len()),
                "Demo {number}: misconceptions"
            );
            for s in strings(n) {
                assert!(!s.trim().is_empty(), "Demo {number}: an empty field");
                assert!(
                    !s.contains(['<', '>', '&']),
                    "Demo {number}: markup in {s:?}"
                );
            }
            count += 1;
        }
        assert_eq!(count, NOTES.len());
        assert!(notes(0).is_none() && notes(16).is_none());
    }

    #[test]
    fn the_notes_stay_within_their_size_budget() {
        let mut total = 0;
        for (number, _) in course() {
            let size: usize = strings(notes(number).unwrap())
                .iter()
                .map(|s| s.len())
                .sum();
            assert!(size <= 1_400, "Demo {number}: {size} characters");
            total += size;
        }
        println!("teacher notes: {total} characters in all");
        // About 1,000 characters a demo on average.
        assert!(total <= NOTES.len() * 1_000, "{total} characters in all");
    }

    fn answer(demo: u32) -> &'static str {
        notes(demo).unwrap().answer
    }

    #[test]
    fn the_tick_demos_answers_state_the_specs_ticks() {
        // 01-tick-model.md, "Failing recommendations with the circuit breaker": "opens at
        // t = 3 (4 failures recorded), HALF_OPEN at t = 6"; "still failing: ... OPEN again at
        // t = 7, HALF_OPEN again at t = 10"; "recovered from t = 6 ...: CLOSED at t = 6".
        assert!(answer(1).contains("t = 3"));
        assert!(answer(2).contains("closes") && answer(2).contains("t = 6"));
        assert!(answer(3).contains("t = 7") && answer(3).contains("t = 10"));
        // 01-tick-model.md, "The table every implementation must reproduce", row "none":
        // payment calls failed "4 (t = 3, 4, 5, 6)".
        assert!(answer(4).contains("4 payments fail, at t = 3, 4, 5 and 6"));
        // Same table, row "circuit breaker": payment failed "2 (t = 3, 4)", "opens at t = 5".
        assert!(answer(5).contains("t = 3 and t = 4") && answer(5).contains("opens at t = 5"));
        // Row "bulkhead": payment calls failed "0".
        assert!(answer(6).starts_with("No payment fails"));
        // Row "breaker + bulkhead": "opens at t = 4"; threads "2, 3, 3, 1, 0, 0" (none
        // after t = 5).
        assert!(answer(7).contains("opens at t = 4") && answer(7).contains("from t = 5"));
    }

    #[test]
    fn the_labs_answers_state_the_specs_figures() {
        // 02-retry-labs.md, Lab B: waves "at 0, 1, 3, 7 and 15 s" and "**250** clients are
        // still waiting after the slot at 15 s"; full jitter: "about 1.5 s".
        assert!(answer(9).contains("1, 3, 7 and 15 s") && answer(9).contains("250 clients"));
        assert!(answer(9).contains("1.5 s"));
        // 03-incident-labs.md, Lab D: "a shared request pool of 24 threads", "a semaphore
        // bulkhead of 8".
        assert!(answer(11).contains("24 threads") && answer(11).contains("bulkhead of 8"));
        // 03-incident-labs.md, Lab C: "a short queue refuses at once, so the retries fire
        // and multiply offered load (the course's answer ...: the retries)"; the long
        // queue (200) is the other regime.
        assert!(answer(12).starts_with("The retries") && answer(12).contains("queue of 200"));
        // 03-incident-labs.md, Lab E: payment breaker "minimumNumberOfCalls 10"; "a connect
        // failure may be retried once" (2 requests); a read timeout records UNCERTAIN.
        assert!(answer(13).contains("10 failures") && answer(13).contains("at most 2 requests"));
        assert!(answer(13).contains("UNCERTAIN"));
        // 05-retry-policies.md, failure sweep: 3 retries "1 + f + f^2 + f^3, 4.0 at 100 %";
        // gRPC "retries stop once failures exceed about 9 % (0.1 x (1 - f) < f)".
        assert!(answer(15).contains("1 + f + f^2 + f^3") && answer(15).contains("4.0 at 100 %"));
        assert!(answer(15).contains("0.1 x (1 - f)") && answer(15).contains("about 9 %"));
    }

    #[test]
    fn the_demo_5_question_says_what_each_change_does_to_the_run() {
        use resilience_sim::model::tick::{Behaviour, Protection, TickConfig, TickModel};
        use resilience_sim::policy::circuit_breaker::State;
        // Demo 5's run of six ticks with one setting changed: (tick the breaker opens at,
        // payments failed).
        let run = |change: fn(&mut TickConfig)| {
            let mut config = TickConfig::new(Behaviour::Slow, Protection::CircuitBreaker);
            change(&mut config);
            let mut model = TickModel::new(config).unwrap();
            for _ in 0..6 {
                model.step();
            }
            let opened = model
                .transitions()
                .find(|t| t.to == State::Open)
                .map(|t| t.tick);
            (opened, model.tally().payment_failures)
        };
        // 01-tick-model.md's table, row "circuit breaker": opens at t = 5, 2 payments fail.
        assert_eq!(run(|_| {}), (Some(5), 2));
        // A 1-tick timeout: the t = 1 and t = 2 calls fail at t = 2 and 3, 4 failures at
        // t = 3, and recommendations never holds more than 2 threads.
        assert_eq!(run(|c| c.world.timeout_ticks = 1), (Some(3), 0));
        // A minimum of 2: the two t = 1 timeouts at t = 4 decide; t = 3's payment is lost.
        assert_eq!(
            run(|c| c.circuit_breaker.minimum_number_of_calls = 2),
            (Some(4), 1)
        );
        // A slow-call threshold: a call is timed when it ends, and these end as timeouts,
        // already failures, at the same ticks.
        assert_eq!(
            run(|c| {
                c.circuit_breaker.slow_call_duration_threshold = 1_000;
                c.circuit_breaker.slow_call_rate_threshold = 50.0;
            }),
            (Some(5), 2)
        );
        let question = notes(5).unwrap().discussion;
        assert!(question.contains("a timeout of 1 tick (OPEN at t = 3, none lost)"));
        assert!(question.contains("a minimumNumberOfCalls of 2 (OPEN at t = 4, one lost)"));
        assert!(question.contains("a slow-call threshold (no change"));
    }

    #[test]
    fn the_sandbox_answer_matches_the_sandbox_breaker() {
        // The page's own settings (Demo 10's intro; 03-incident-labs.md Lab F leaves them to
        // the page): window 10, judged from 10 calls, 50 %, 10 s wait, 3 trials.
        let c = resilience_sim::scenario::sandbox::sandbox_defaults();
        assert_eq!(
            (c.minimum_number_of_calls, c.wait_duration_in_open_state),
            (10, 10_000)
        );
        assert_eq!(c.permitted_number_of_calls_in_half_open_state, 3);
        assert!(answer(10).contains("minimumNumberOfCalls (10)"));
        assert!(answer(10).contains("5 of 10 = 50 %") && answer(10).contains("10 s wait"));
        assert!(answer(10).contains("3 trials"));
    }
}
