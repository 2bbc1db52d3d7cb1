//! # BoxOffice: a whole system, assembled from a palette (Demo 14's engine)
//!
//! The other models protect one call. This one puts the patterns where they live: a
//! ticketing company before a stadium on-sale, with clients outside, a door, a waiting
//! room, a load balancer with health checks, order replicas with their Resilience4j stacks,
//! and the dependencies behind them. Every policy is the engine's own (`crate::policy`),
//! wired, never re-implemented; what is new here is the system around them.
//!
//! ## How it is built
//!
//! - [`kernel`]: the discrete-event kernel. Virtual time in ms, one event queue ordered by
//!   (time, sequence), slabs of live objects whose keys go stale when the object goes. It
//!   knows nothing of ticketing.
//! - One component, one module, each opening with why it exists: [`clients`], [`door`],
//!   [`waiting_room`], [`balancer`], [`probes`], [`replica`] (threads, local work, the
//!   stacks), [`dependency`] (workers, queue, faults, charges). A component holds its own
//!   state and rules and never schedules anything itself.
//! - [`sim`]: the assembly. It turns kernel events into calls on the components and routes
//!   a request from one to the next. It owns no rule of its own.
//! - [`topology`]: the scenario file format (versioned JSON, validated) and [`scenarios`]:
//!   the five scenarios the course ships, with their variants, as files of that format.
//! - [`report`]: the per-second rows and the summary the CLI prints and the page draws.
//!
//! ## Where a new component goes
//!
//! A new kind of component (a cache, a second gateway, a message queue) gets its own module
//! here: its state, its rules as methods that take `now` and return what happened, and a
//! why-essay on top. Its settings go in [`topology`] (a field of the document, checked in
//! `Topology::problems`), its timers in `sim`'s `Ev` enum, and its place on a request's path
//! in `sim` (one function per hop). Nothing else changes: the kernel stays generic.
//!
//! ## Shared with the earlier labs
//!
//! Seeded streams are `model::stream_rng` (one per client population, dependency,
//! local work, retries) and service and work times vary by `model::vary` (± a
//! percentage, uniform), the same pieces Demos 11-13 use, so their figures stay theirs.
//! Arrivals differ on purpose: those labs spread arrivals evenly (jittered slots); the
//! playground's clients are Poisson, because bursts are part of what it teaches.
//!
//! ## Running in slices
//!
//! [`sim::Sim::advance_to`] handles every event up to an instant and can be called again
//! later: a page runs a long scenario in slices of a few milliseconds of work each, the CLI
//! and the tests call [`run`] once. Both get the same result for the same seed.

pub mod balancer;
pub mod clients;
pub mod dependency;
pub mod door;
pub mod edit;
pub mod kernel;
pub mod probes;
pub mod replica;
pub mod report;
pub mod scenarios;
pub mod sim;
pub mod topology;
pub mod waiting_room;

pub use report::BoxOfficeRun;
pub use sim::Sim;
pub use topology::Topology;

use crate::ConfigError;

/// The default seed.
pub const DEFAULT_SEED: u64 = 1;

/// Runs `topology` (already patched with its variant) to the end.
pub fn run(
    topology: Topology,
    scenario: &str,
    variant: &str,
    seed: u64,
    seconds: Option<u32>,
) -> Result<BoxOfficeRun, ConfigError> {
    Ok(Sim::new(topology, scenario, variant, seed, seconds)?.finish())
}
