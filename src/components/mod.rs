//! The few typed components every lab page is made of. Each reads the lab's
//! [`LabSession`] from one signal and sends the learner's change back through
//! [`LabSession::set`]; none decides what a value means (the control table in the engine
//! does) or what a run shows (the engine runs it, the page turns it into a chart spec).
//!
//! - [`LabControl`]: one control of the table, as a slider, a select, a checkbox or a
//!   number field with "New seed", by the control's kind. It sees the control through a
//!   [`ControlBinding`] (signals and a callback), so it is compiled once, not once per lab;
//! - [`Figure`]: a chart drawn on a canvas in an effect, with its legend and summary;
//! - [`Problems`]: what the link or the last change could not use.

use leptos::html::Canvas;
use leptos::prelude::*;
use resilience_sim::number::parse_number;
use resilience_sim::scenario::lab_session::{
    Control, ControlKind, ControlValue, LabModel, LabSession, Section,
};

pub use crate::lab_link::message;
use crate::views::chart::{self, ChartSpec};
use crate::views::html::live_flag;

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

/// What the view of one control needs, with the lab's type erased: the table's words, the
/// current value (read from the session) and where a change goes (to the session). The
/// views below are written once for every lab: only [`bind`] knows the lab's type.
#[derive(Clone, Copy)]
pub struct ControlBinding {
    pub name: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub kind: ControlKind,
    pub section: Section,
    /// The value as the link writes it (`1000`, `full`, `true`).
    pub value: Signal<String>,
    /// The value as the page shows it, with its unit (`1000 requests/s`, `1.5 s`).
    pub shown: Signal<String>,
    pub change: Callback<ControlValue>,
}

/// The binding of `control` to the lab's state.
pub fn bind<L: LabModel>(state: LabState<L>, control: &'static Control<L>) -> ControlBinding {
    let session = state.session;
    bind_to(
        control,
        move |read| session.with(|s| read(s.config())),
        Callback::new(move |value| state.set(control, value)),
    )
}

/// The binding of `control` to any settings: `with` lends them (tracked) to a reader, and
/// `change` applies a new value. For pages whose settings are not a [`LabState`]'s.
pub fn bind_to<C: 'static>(
    control: &'static Control<C>,
    with: impl Fn(&dyn Fn(&C) -> String) -> String + Copy + Send + Sync + 'static,
    change: Callback<ControlValue>,
) -> ControlBinding {
    ControlBinding {
        name: control.name,
        label: control.label,
        help: control.help,
        kind: control.kind,
        section: control.section,
        value: Signal::derive(move || with(&|c| control.text(c))),
        shown: Signal::derive(move || with(&|c| control.display(c))),
        change,
    }
}

/// Every control of the lab's table, bound to its state.
pub fn bind_all<L: LabModel>(state: LabState<L>) -> Vec<ControlBinding> {
    L::controls().iter().map(|c| bind(state, c)).collect()
}

/// The controls of one section, in the table's order.
#[component]
pub fn ControlList(controls: Vec<ControlBinding>, section: Section) -> impl IntoView {
    controls
        .into_iter()
        .filter(|c| c.section == section)
        .map(|binding| view! { <LabControl binding=binding /> })
        .collect_view()
}

/// One control, drawn by its kind: a slider, a number field with "New seed", a select or a
/// checkbox. Each carries `data-testid="lab-control-NAME"`.
#[component]
pub fn LabControl(binding: ControlBinding) -> impl IntoView {
    let ControlBinding {
        name,
        label,
        help,
        kind,
        value,
        shown,
        change,
        ..
    } = binding;
    let id = format!("lab-{name}");
    let testid = format!("lab-control-{name}");
    let help_id = format!("{id}-help");
    let help = view! { <p class="help" id=help_id.clone()>{help}</p> };
    match kind {
        ControlKind::Number { min, max, step, .. } => view! {
            <div class="control">
                <label for=id.clone()>{label}</label>
                <output for=id.clone()>{shown}</output>
                <input type="range" id=id data-testid=testid
                    min=min.to_string() max=max.to_string() step=step.to_string()
                    aria-describedby=help_id prop:value=value aria-valuetext=shown
                    on:input=move |ev| {
                        if let Some(v) = parse_number(&event_target_value(&ev)) {
                            change.run(ControlValue::Number(v));
                        }
                    } />
                {help}
            </div>
        }
        .into_any(),
        ControlKind::Whole { min, max } => view! {
            <div class="control whole">
                <label for=id.clone()>{label}</label>
                <div class="whole-row">
                    <input type="number" id=id data-testid=testid inputmode="numeric"
                        min=min.to_string() max=max.to_string() step="1"
                        aria-describedby=help_id prop:value=value
                        // Text that is no number reaches the session as NaN, which refuses
                        // it with the control's own message.
                        on:change=move |ev| change.run(ControlValue::Number(
                            parse_number(&event_target_value(&ev)).unwrap_or(f64::NAN),
                        )) />
                    <button type="button" data-testid=format!("new-{name}")
                        on:click=move |_| change.run(ControlValue::Number(f64::from(fresh_seed(min, max))))>
                        "New " {label}
                    </button>
                </div>
                {help}
            </div>
        }
        .into_any(),
        ControlKind::Choice { options } => view! {
            <div class="control">
                <label for=id.clone()>{label}</label>
                <select id=id data-testid=testid aria-describedby=help_id
                    on:change=move |ev| {
                        let chosen = event_target_value(&ev);
                        if let Some(option) = options.iter().find(|o| o.0 == chosen) {
                            change.run(ControlValue::Choice(option.0));
                        }
                    }>
                    {options.iter().map(|(option, text)| view! {
                        // A property, not the attribute: the attribute stops counting once
                        // the learner has picked an option.
                        <option value=*option prop:selected=move || value.with(|v| v == option)>{*text}</option>
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
                        prop:checked=live_flag(move || value.with(|v| v == "true"))
                        on:change=move |ev| change.run(ControlValue::Toggle(event_target_checked(&ev))) />
                    " " {label}
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
    /// Its summary is not announced as it changes (a page of several charts announces
    /// only the first one's).
    #[prop(optional)]
    quiet: bool,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let width = RwSignal::new(0);
    // The canvas's CSS width, read once and again after a resize: reading it at every
    // redraw would force a layout per chart while the page around it changes.
    let measured = StoredValue::new(0);
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        measured.set_value(0);
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
        if measured.get_value() == 0 {
            measured.set_value(canvas.client_width());
        }
        let css_width = measured.get_value();
        if spec.with(|spec| chart::draw(&canvas, spec, dark, css_width).is_some()) {
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
                <span data-testid=format!("{testid}-summary") aria-live=(!quiet).then_some("polite")>{summary}</span>
            </figcaption>
        </figure>
    }
}
