//! The part of the course with Demo 8, retries that keep a system down
//! ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Amplification, app::amplification_pages);
}
