//! The part of the course with Demo 15, the retry policies real clients ship
//! ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::RetryPolicies, app::retry_policies_pages);
}
