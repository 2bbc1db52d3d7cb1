//! The part of the course with Demo 10, the breaker sandbox ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    console_error_panic_hook::set_once();
    mount(Part::Sandbox, app::sandbox_pages);
}
