//! The part of the course with Demos 1-7, the tick model ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::TickDemos, app::tick_demos_pages);
}
