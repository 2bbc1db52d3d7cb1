use resilience_playground::app::mount;
use resilience_playground::part::Part;
fn main() {
    console_error_panic_hook::set_once();
    mount(Part::TickDemos, |_, _, _| None);
}
