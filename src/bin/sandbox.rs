//! The part of the course with Demo 10, the breaker sandbox ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Sandbox, app::sandbox_pages);
}
