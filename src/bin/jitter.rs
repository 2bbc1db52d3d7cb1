//! The part of the course with Demo 9, jitter against synchronized waves
//! ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Jitter, app::jitter_pages);
}
