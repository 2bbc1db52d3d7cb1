//! The course's front page, a part of its own ([`resilience_playground::part`]): the page
//! most visitors open first carries none of the demos' engines.

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Landing, app::landing_pages);
}
