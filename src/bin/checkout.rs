//! The part of the course with Demo 13, payment and shipping ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Checkout, app::checkout_pages);
}
