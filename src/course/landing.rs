//! The course's front page (the address without `?demo=`): what the course teaches, the
//! path through the demos with the time each takes, the words it uses, and where to
//! start. It is a part of its own (`src/bin/landing.rs`), so the first page a visitor opens
//! loads no engine; the tick demos' part is prefetched while the visitor reads it.

use leptos::prelude::*;
use resilience_sim::scenario::catalogue;

use crate::nav::{DemoLink, LinkLabel, Location};

/// The page number the router gives the front page (no demo has it).
pub const LANDING: u32 = u32::MAX;

/// The course in stretches: a heading, what it shows, its demos.
const STRETCHES: [(&str, &str, u32, u32); 5] = [
    (
        "One API, one sick dependency",
        "An order API with six worker threads calls recommendations and payment. You step through it tick by tick while recommendations fails or slows down, and add a circuit breaker or a bulkhead.",
        1,
        7,
    ),
    (
        "Retries, at scale",
        "A shop that sends 1,000 requests a second, then 1,000 clients cut off together, retry a struggling provider. You move sliders and watch three retries keep it down, and jitter spread the load.",
        8,
        9,
    ),
    (
        "Incidents",
        "A breaker you drive call by call, then three production incidents: a shared thread pool, a pricing brownout and a payment provider that loses answers.",
        10,
        13,
    ),
    (
        "A whole system",
        "A ticket shop on its on-sale day: clients, a door that limits and sheds, replicas with their threads, a payment provider. You load an incident, watch requests move through the system, compare protections on the same run, and change the system yourself.",
        14,
        14,
    ),
    (
        "The retry policy you ship",
        "Eight retry policies side by side, from none and Resilience4j's to those of Finagle, gRPC and the AWS SDKs, against the same failing server. You see which keep retrying when every call fails, and which loads and slowdowns each one never recovers from.",
        15,
        15,
    ),
];

/// The words the course uses, each in one sentence.
const VOCABULARY: [(&str, &str); 9] = [
    ("Timeout", "How long a caller waits for an answer before it gives up; the thread is held the whole time."),
    ("Retry", "Sending a failed call again, after a wait; it helps with brief glitches and hurts a service that is overloaded."),
    ("Circuit breaker", "Counts recent outcomes and, when too many fail or are slow, refuses calls for a while (OPEN), then lets a few trials through (HALF_OPEN) before trusting the service again (CLOSED)."),
    ("Sliding window", "The recent calls the breaker judges: the last N calls (COUNT_BASED) or the last N seconds (TIME_BASED)."),
    ("CallNotPermittedException", "What a breaker throws instead of calling when it lets no call through: OPEN or FORCED_OPEN, or HALF_OPEN with its trials taken. It costs no thread and no wait."),
    ("Bulkhead", "A limit on the calls one dependency may have in flight, so it cannot take every thread."),
    ("BulkheadFullException", "What a full bulkhead throws instead of calling."),
    ("Fallback", "The answer given when a call fails or is refused: a cached list, an estimate, or an honest error."),
    ("Resilience4j", "The Java library whose behaviour the numbers here follow, setting for setting; Demo 15 adds the retry rules of other clients."),
];

/// The front page.
#[component]
pub fn Landing(location: RwSignal<Location>) -> impl IntoView {
    let stretch = move |(heading, about, first, last): (&'static str, &'static str, u32, u32)| {
        let demos = catalogue::course()
            .filter(|(n, _)| (first..=last).contains(n))
            .map(|(number, title)| {
                let minutes = super::minutes(number).unwrap_or_default();
                view! {
                    <li>
                        <DemoLink number=number location=location class="landing-demo" testid="landing-demo"
                            label=LinkLabel::Numbered(number, title) />
                        <span class="muted">{format!(" about {minutes} min")}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <section class="landing-stretch">
                <h3>{heading}</h3>
                <p>{about}</p>
                <ol>{demos}</ol>
            </section>
        }
    };
    let total: u32 = catalogue::course()
        .filter_map(|(n, _)| super::minutes(n))
        .sum();
    view! {
        <article class="landing" data-testid="landing" aria-labelledby="landing-heading">
            <h1 id="landing-heading">"What happens when a service gets slow or fails?"</h1>
            <p class="lead">
                "Fifteen demos show what timeouts, retries, circuit breakers, bulkheads and fallbacks do to a system in trouble: you predict, step through the run, and see threads fill up, breakers open and retries pile up. Every number comes from a deterministic simulation that behaves as Resilience4j and the other client libraries it models do."
            </p>
            <p class="landing-start">
                <DemoLink number=1 location=location class="button-link" testid="landing-start" label=LinkLabel::Text(format!(
                    "Start with Demo 1: {}",
                    catalogue::course().next().map_or("", |(_, t)| t)
                )) />
                <a href="?overview=1" class="secondary-link">"Teaching it? The course at a glance"</a>
            </p>
            <h2>"The path"</h2>
            <p>{format!("About {} hours in all, predicting and discussing included; each demo stands alone, so start anywhere.", total.div_ceil(60))}</p>
            {STRETCHES.map(stretch).collect_view()}
            <h2>"The words it uses"</h2>
            <dl class="vocabulary">
                {VOCABULARY.map(|(word, meaning)| view! { <dt>{word}</dt><dd>{meaning}</dd> }).collect_view()}
            </dl>
        </article>
    }
}
