//! The part of the course with Demo 14, the BoxOffice playground
//! ([`resilience_playground::part`]).

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

fn main() {
    app::report_panics();
    mount(Part::BoxOffice, app::boxoffice_pages);
}
