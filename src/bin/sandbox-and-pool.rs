//! The part of the course with Demos 10 and 11, the breaker sandbox and the shared pool ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    console_error_panic_hook::set_once();
    mount(Part::SandboxAndPool, app::sandbox_and_pool_pages);
}
