//! The worlds the course simulates. Each model owns its policies and advances only when
//! the caller asks, by a tick or a step of virtual time.

pub mod amplification;
pub mod brownout;
pub mod checkout;
pub mod jitter;
pub mod shared_pool;
pub mod summary;
pub mod tick;
pub mod window_log;
