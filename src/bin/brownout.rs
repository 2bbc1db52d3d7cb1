//! The part of the course with Demo 12, the pricing brownout ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::Brownout, app::brownout_pages);
}
