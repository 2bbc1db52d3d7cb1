//! The part of the course with Demos 8 and 9, the retry labs ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    console_error_panic_hook::set_once();
    mount(Part::RetryLabs, app::retry_labs_pages);
}
