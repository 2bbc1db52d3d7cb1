//! # resilience-tick
//!
//! The tick model of Demos 1-7 ([`tick`]): an API with a thread pool, its two dependencies
//! and their protections, one tick at a time, with what each tick's narration and panels
//! read ([`run_facts`], [`window_log`], [`summary`]).
//!
//! Why a crate of its own: it is the engine's hot path on the course's most visited pages,
//! and it is made of many small steps. The browser bundle is built for size (`opt-level =
//! "z"`), at which the compiler inlines almost none of them, and in wasm each call costs
//! more than natively; the tick model ran at half its native speed. Cargo sets the
//! optimisation level per crate, so this crate alone is built at level 2 (the workspace's
//! `Cargo.toml`): the tick demos' part grows by about 2 KB gzip and no other part changes.
//! Measured in `docs/performance.md`. `resilience-sim` re-exports it as `model::tick` and
//! its siblings.

pub mod run_facts;
pub mod summary;
pub mod tick;
pub mod window_log;
