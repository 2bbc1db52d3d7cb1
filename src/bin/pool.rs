//! The part of the course with Demo 11, the shared pool ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Pool, app::pool_pages);
}
