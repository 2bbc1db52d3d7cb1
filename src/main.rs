fn main() {
    console_error_panic_hook::set_once();
    resilience_playground::mount();
}
