//! The part of the course with Demo 11, the shared pool ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    console_error_panic_hook::set_once();
    mount(Part::Pool, app::pool_pages);
}
