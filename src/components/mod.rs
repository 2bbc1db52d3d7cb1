//! The few typed components every lab page is made of. Each reads the lab's
//! [`LabSession`] from one signal and sends the learner's change back through
//! [`LabSession::set`]; none decides what a value means (the control table in the engine
//! does) or what a run shows (the engine runs it, the page turns it into a chart spec).
//!
//! - [`LabControl`]: one control of the table, as a slider, a select, a checkbox or a
//!   number field with "New seed", by the control's kind;
//! - [`Figure`]: a chart drawn on a canvas in an effect, with its legend and summary;
//! - [`Problems`]: what the link or the last change could not use.

use leptos::html::Canvas;
use leptos::prelude::*;
use resilience_sim::scenario::lab_session::{
    Control, ControlKind, ControlValue, LabModel, LabSession, Section,
};
use resilience_sim::ConfigError;

use crate::views::chart::{self, ChartSpec};

/// One lab's state for its page: the session, and the message of the last change the
/// session refused (shown until the next change is taken).
pub struct LabState<L: LabModel> {
    pub session: RwSignal<LabSession<L>>,
    pub refused: RwSignal<Option<String>>,
}

impl<L: LabModel> Clone for LabState<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L: LabModel> Copy for LabState<L> {}

impl<L: LabModel> LabState<L> {
    pub fn new(session: LabSession<L>) -> Self {
        Self {
            session: RwSignal::new(session),
            refused: RwSignal::new(None),
        }
    }

    /// The learner's change to one control. Always notifies, so a refused value springs
    /// back to the session's on the page.
    pub fn set(self, control: &'static Control<L>, value: ControlValue) {
        let mut result = Ok(());
        self.session.update(|s| result = s.set(control.name, value));
        self.refused.set(result.err().map(|e| message::<L>(&e)));
    }

    pub fn reset(self) {
        self.session.update(LabSession::reset);
        self.refused.set(None);
    }
}

/// A refusal in the page's words: the control's label, then the engine's reason.
pub fn message<L: LabModel>(e: &ConfigError) -> String {
    match LabSession::<L>::control(&e.field) {
        Some(c) => format!("{}: {}", c.label, e.message),
        None => e.to_string(),
    }
}

/// The controls of one section of the table, in its order.
#[component]
pub fn ControlList<L: LabModel>(state: LabState<L>, section: Section) -> impl IntoView {
    L::controls()
        .iter()
        .filter(|c| c.section == section)
        .map(|control| view! { <LabControl state=state control=control /> })
        .collect_view()
}

/// One control, drawn by its kind.
#[component]
pub fn LabControl<L: LabModel>(state: LabState<L>, control: &'static Control<L>) -> impl IntoView {
    let id = format!("lab-{}", control.name);
    let testid = format!("lab-control-{}", control.name);
    let session = state.session;
    let shown = move || session.with(|s| control.display(s.config()));
    let help_id = format!("{id}-help");
    let help = view! { <p class="help" id=help_id.clone()>{control.help}</p> };
    match control.kind {
        ControlKind::Number { min, max, step, .. } => view! {
            <div class="control">
                <label for=id.clone()>{control.label}</label>
                <input type="range" id=id data-testid=testid
                    min=min.to_string() max=max.to_string() step=step.to_string()
                    aria-describedby=help_id
                    prop:value=move || session.with(|s| control.text(s.config()))
                    aria-valuetext=shown
                    on:input=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                            state.set(control, ControlValue::Number(v));
                        }
                    } />
                <output for=format!("lab-{}", control.name)>{shown}</output>
                {help}
            </div>
        }
        .into_any(),
        ControlKind::Whole { min, max } => view! {
            <div class="control whole">
                <label for=id.clone()>{control.label}</label>
                <div class="whole-row">
                    <input type="number" id=id data-testid=testid inputmode="numeric"
                        min=min.to_string() max=max.to_string() step="1"
                        aria-describedby=help_id
                        prop:value=move || session.with(|s| control.text(s.config()))
                        on:change=move |ev| {
                            let text = event_target_value(&ev);
                            match control.parse(&text) {
                                Ok(v) => state.set(control, v),
                                Err(e) => {
                                    state.refused.set(Some(message::<L>(&e)));
                                    // Show the session's value again.
                                    session.update(|_| ());
                                }
                            }
                        } />
                    <button type="button" data-testid=format!("new-{}", control.name)
                        on:click=move |_| state.set(control, ControlValue::Number(f64::from(fresh_seed(min, max)))) >
                        "New " {control.label.to_lowercase()}
                    </button>
                </div>
                {help}
            </div>
        }
        .into_any(),
        ControlKind::Choice { options } => view! {
            <div class="control">
                <label for=id.clone()>{control.label}</label>
                <select id=id data-testid=testid aria-describedby=help_id
                    on:change=move |ev| {
                        let name = event_target_value(&ev);
                        if let Some(option) = options.iter().find(|o| o.0 == name) {
                            state.set(control, ControlValue::Choice(option.0));
                        }
                    }>
                    {options.iter().map(|(name, label)| {
                        let selected = move || session.with(|s| (control.get)(s.config()) == ControlValue::Choice(name));
                        // A property, not the attribute: the attribute stops counting once
                        // the learner has picked an option.
                        view! { <option value=*name prop:selected=selected>{*label}</option> }
                    }).collect_view()}
                </select>
                {help}
            </div>
        }
        .into_any(),
        ControlKind::Toggle => view! {
            <div class="control toggle">
                <label>
                    <input type="checkbox" data-testid=testid aria-describedby=help_id
                        prop:checked=move || session.with(|s| (control.get)(s.config()) == ControlValue::Toggle(true))
                        on:change=move |ev| state.set(control, ControlValue::Toggle(event_target_checked(&ev))) />
                    " " {control.label}
                </label>
                {help}
            </div>
        }
        .into_any(),
    }
}

/// A seed from the browser's random source (getrandom), within the control's range; the
/// run stays reproducible because the seed goes into the link.
fn fresh_seed(min: u64, max: u64) -> u32 {
    let span = max.saturating_sub(min).min(u64::from(u32::MAX - 1)) + 1;
    let draw = getrandom::u32().map_or(7, u64::from);
    (min + draw % span) as u32
}

/// What the link or the last change could not use, as a list the screen reader announces.
#[component]
pub fn Problems(
    #[prop(into)] link: Vec<String>,
    refused: RwSignal<Option<String>>,
) -> impl IntoView {
    let has_link = !link.is_empty();
    view! {
        <div class="problems" role="alert" data-testid="lab-problems">
            {has_link.then(|| view! {
                <p>"Some of the link's settings could not be used; the spec's values are shown for them:"</p>
                <ul>{link.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
            })}
            <p class="error" data-testid="lab-error">{move || refused.get().unwrap_or_default()}</p>
        </div>
    }
}

/// A chart: the canvas, drawn from `spec` in an effect (again when the spec, the theme or
/// the width changes), its legend and its summary. The canvas is hidden from screen
/// readers; the summary says in words what the chart shows.
#[component]
pub fn Figure(
    spec: Signal<ChartSpec>,
    summary: Signal<String>,
    testid: &'static str,
    title: &'static str,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let width = RwSignal::new(0);
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        width.update(|w| *w += 1);
    });
    on_cleanup(move || resize.remove());
    let dark = chart::dark_mode();
    // The effect's value is the number of redraws so far.
    Effect::new(move |redraws: Option<u32>| {
        let mut count = redraws.unwrap_or(0);
        width.track();
        let Some(canvas) = canvas.get() else {
            return count;
        };
        if spec.with(|spec| chart::draw(&canvas, spec, dark).is_some()) {
            count += 1;
            // Tests and the timing loop count redraws on the canvas itself.
            let _ = canvas.set_attribute("data-render-count", &count.to_string());
        }
        count
    });
    let legend = move || {
        spec.with(|spec| {
            chart::legend(spec, dark)
                .into_iter()
                .map(|(class, label)| view! { <li><span class=class></span>{label}</li> })
                .collect_view()
        })
    };
    view! {
        <figure class="chart" data-testid=testid>
            <canvas node_ref=canvas aria-hidden="true" data-testid=format!("{testid}-canvas")></canvas>
            <ul class="legend" aria-hidden="true">{legend}</ul>
            <figcaption>
                <strong>{title}</strong>" "
                <span data-testid=format!("{testid}-summary") aria-live="polite">{summary}</span>
            </figcaption>
        </figure>
    }
}
