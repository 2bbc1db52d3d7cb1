//! Reusable views. Each reads the engine's state through a signal and renders it; none
//! computes an outcome.

pub mod breaker;
pub mod chart;
pub mod compare;
pub mod html;
pub mod morph;
pub mod narration;
pub mod page;
pub mod settings;
pub mod thread_pool;
