//! Demo 14's list view of the system: every component with its numbers, the door's
//! features, each dependency's callers and stack layers, the timeline's entries (when a
//! fault starts and ends, demand, scaling), add and remove; by keyboard and
//! screen reader as much as by mouse (a box clicked in the diagram brings its entry here).
//! Each change is an [`Edit`] sent to the page, which asks the engine to make it; nothing
//! here decides what the system is.

use leptos::prelude::*;
use resilience_sim::model::boxoffice::edit::{settings, DoorFeature, Edit, Layer, Setting};
use resilience_sim::model::boxoffice::topology::{Action, Topology};
use wasm_bindgen::JsCast;

use super::boxoffice_diagram::NodeKind;
use crate::format::trim;
use crate::views::html::Html;

/// The id of a component's entry in the list.
pub fn entry_id(t: &Topology, kind: &NodeKind) -> String {
    match kind {
        NodeKind::Client(name) => format!(
            "box-edit-client-{}",
            t.clients.keys().position(|n| n == name).unwrap_or(0)
        ),
        NodeKind::Dependency(name) => format!(
            "box-edit-dependency-{}",
            t.dependencies.keys().position(|n| n == name).unwrap_or(0)
        ),
        NodeKind::Door | NodeKind::Queue => "box-edit-door".to_string(),
        NodeKind::Replica(_) => "box-edit-replicas".to_string(),
    }
}

/// Brings a component's entry into view and gives it the focus.
pub fn show_entry(id: &str) {
    let element = document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(e) = element {
        e.scroll_into_view();
        let _ = e.focus();
    }
}

/// A field's id from its path (paths hold names from the file: keep letters and digits).
fn field_id(prefix: &str, path: &str) -> String {
    let mut id = String::from(prefix);
    for c in path.chars() {
        id.push(if c.is_ascii_alphanumeric() { c } else { '-' });
    }
    id
}

fn number_field(
    s: Setting,
    on_edit: Callback<Edit>,
    problem: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = field_id("box-set-", &s.path);
    let path = s.path.clone();
    let label = s.label.clone();
    let change = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        match text.trim().parse::<f64>() {
            Ok(value) => on_edit.run(Edit::Set {
                path: path.clone(),
                value,
            }),
            Err(_) => problem.set(Some(format!(
                "{label}: “{}” is not a number.",
                resilience_sim::error::excerpt(&text)
            ))),
        }
    };
    view! {
        <label class="box-field">
            <span>{if s.unit.is_empty() { s.label.clone() } else { format!("{} ({})", s.label, s.unit) }}</span>
            <input type="number" id=id data-path=s.path.clone() min=trim(s.min) max=trim(s.max) step=trim(s.step)
                value=trim(s.value) on:change=change />
        </label>
    }
}

fn toggle(id: String, label: String, checked: bool, on: Callback<bool>) -> impl IntoView {
    view! {
        <label class="box-toggle">
            <input type="checkbox" id=id checked=checked
                on:change=move |ev| on.run(event_target_checked(&ev)) />
            {label}
        </label>
    }
}

/// The list view: one entry per component.
#[component]
pub fn SystemEditor(
    topology: Signal<Option<Topology>>,
    on_edit: Callback<Edit>,
    problem: RwSignal<Option<String>>,
) -> impl IntoView {
    // What the timeline's add row will add: kept across the list's redraws.
    let new_action = RwSignal::new(0usize);
    let new_dependency = RwSignal::new(String::new());
    let add_entry = move |_| {
        let action = Action::ALL[new_action.get_untracked() % Action::ALL.len()];
        let dependency = Some(new_dependency.get_untracked()).filter(|d| !d.is_empty());
        on_edit.run(Edit::AddTimelineEntry { action, dependency });
    };
    let list = move || {
        topology.with(|t| {
            let t = t.as_ref()?;
            let groups = settings(t);
            let fields = move |group: &str| {
                groups
                    .iter()
                    .filter(|s| s.component == group)
                    .cloned()
                    .map(|s| number_field(s, on_edit, problem))
                    .collect_view()
            };
            let door_features = DoorFeature::ALL
                .into_iter()
                .map(|feature| {
                    toggle(
                        format!("box-door-{feature:?}"),
                        feature.label().to_string(),
                        feature.is_on(t),
                        Callback::new(move |on| on_edit.run(Edit::Door { feature, on })),
                    )
                })
                .collect_view();
            let clients = t
                .clients
                .iter()
                .enumerate()
                .map(|(i, (name, c))| {
                    let remove = name.clone();
                    view! {
                        <li class="box-entry" id=format!("box-edit-client-{i}") tabindex="-1">
                            <h3>{format!("Clients: {name}")}</h3>
                            <p class="muted">{format!("{} users calling {}", c.class.name(), c.endpoint)}</p>
                            {fields(&format!("clients.{name}"))}
                            <button type="button" class="secondary" data-testid="box-remove-client"
                                on:click=move |_| on_edit.run(Edit::RemoveClient(remove.clone()))>
                                {format!("Remove {name}")}
                            </button>
                        </li>
                    }
                })
                .collect_view();
            let endpoints: Vec<String> = t.replicas.endpoints.keys().cloned().collect();
            let dependencies = t
                .dependencies
                .keys()
                .enumerate()
                .map(|(i, name)| {
                    let stack = t.replicas.stacks.get(name);
                    let callers = endpoints
                        .iter()
                        .enumerate()
                        .map(|(e, endpoint)| {
                            let calls = t.replicas.endpoints[endpoint].calls.contains(name);
                            let (endpoint_name, dependency) = (endpoint.clone(), name.clone());
                            toggle(
                                format!("box-call-{i}-{e}"),
                                format!("{endpoint} calls {name}"),
                                calls,
                                Callback::new(move |on| {
                                    on_edit.run(Edit::Connect {
                                        endpoint: endpoint_name.clone(),
                                        dependency: dependency.clone(),
                                        on,
                                    })
                                }),
                            )
                        })
                        .collect_view();
                    let layers = Layer::ALL
                        .into_iter()
                        .map(|layer| {
                            let dependency = name.clone();
                            toggle(
                                format!("box-layer-{i}-{}", layer.field()),
                                layer.label().to_string(),
                                layer.is_in(stack),
                                Callback::new(move |on| {
                                    on_edit.run(Edit::Layer {
                                        dependency: dependency.clone(),
                                        layer,
                                        on,
                                    })
                                }),
                            )
                        })
                        .collect_view();
                    let remove = name.clone();
                    view! {
                        <li class="box-entry" id=format!("box-edit-dependency-{i}") tabindex="-1">
                            <h3>{format!("Dependency: {name}")}</h3>
                            {fields(&format!("dependencies.{name}"))}
                            <fieldset class="box-checks">
                                <legend>"Called by the endpoints"</legend>
                                {callers}
                            </fieldset>
                            <fieldset class="box-checks">
                                <legend>{format!("Each replica's stack around {name}")}</legend>
                                {layers}
                            </fieldset>
                            <button type="button" class="secondary" data-testid="box-remove-dependency"
                                on:click=move |_| on_edit.run(Edit::RemoveDependency(remove.clone()))>
                                {format!("Remove {name}")}
                            </button>
                        </li>
                    }
                })
                .collect_view();
            let entries = t
                .timeline
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let what = match &e.dependency {
                        Some(d) => format!("{} ({d})", e.action.label()),
                        None => e.action.label().to_string(),
                    };
                    let late = e.at_s > f64::from(t.seconds);
                    view! {
                        <li class="box-timeline-entry" id=format!("box-edit-timeline-{i}") tabindex="-1">
                            <p><strong>{format!("At {} s: ", trim(e.at_s))}</strong>{what}
                                {late.then_some(" — after the run's end: it never happens")}</p>
                            {fields(&format!("timeline.{i}"))}
                            <button type="button" class="secondary" data-testid="box-remove-entry"
                                on:click=move |_| on_edit.run(Edit::RemoveTimelineEntry(i))>
                                "Remove this entry"
                            </button>
                        </li>
                    }
                })
                .collect_view();
            // The options as markup, as the config dialog's instance choice is written: a
            // view of `<option>`s costs a part about 2 KB gzip (docs/bundles.md).
            let mut action_options = String::new();
            for (i, action) in Action::ALL.into_iter().enumerate() {
                let selected = new_action.get_untracked() == i;
                action_options.option(&i.to_string(), action.label(), selected);
            }
            let chosen = new_dependency.get_untracked();
            let mut dependency_options = String::new();
            for name in t.dependencies.keys() {
                dependency_options.option(name, name, *name == chosen);
            }
            let seconds = t.seconds;
            Some(view! {
                <ul class="box-edit-list" data-testid="box-edit-list">
                    <li class="box-entry" id="box-edit-replicas" tabindex="-1">
                        <h3>"Order replicas"</h3>
                        {fields("replicas")}
                    </li>
                    <li class="box-entry" id="box-edit-door" tabindex="-1">
                        <h3>"The door"</h3>
                        <fieldset class="box-checks">
                            <legend>"What the door does"</legend>
                            {door_features}
                        </fieldset>
                        {fields("door")}
                    </li>
                    {clients}
                    {dependencies}
                    <li class="box-entry box-timeline" id="box-edit-timeline" tabindex="-1">
                        <h3>"The timeline"</h3>
                        <p class="muted">{format!("What happens during the run's {seconds} seconds. A fault lasts until an entry makes the dependency healthy again.")}</p>
                        <ol class="box-timeline-list" data-testid="box-timeline">{entries}</ol>
                        <label class="box-field">
                            <span>"What happens"</span>
                            <select id="box-new-action" data-testid="box-new-action"
                                on:change=move |ev| new_action.set(event_target_value(&ev).parse().unwrap_or(0))
                                inner_html=action_options>
                            </select>
                        </label>
                        <label class="box-field">
                            <span>"To which dependency"</span>
                            <select id="box-new-dependency" data-testid="box-new-dependency"
                                on:change=move |ev| new_dependency.set(event_target_value(&ev))
                                inner_html=dependency_options>
                            </select>
                        </label>
                        <button type="button" data-testid="box-add-entry" on:click=add_entry>
                            "Add to the timeline"
                        </button>
                    </li>
                    <li class="box-entry box-add">
                        <button type="button" data-testid="box-add-client" on:click=move |_| on_edit.run(Edit::AddClient)>
                            "Add a client population"
                        </button>
                        <button type="button" data-testid="box-add-dependency" on:click=move |_| on_edit.run(Edit::AddDependency)>
                            "Add a dependency"
                        </button>
                    </li>
                </ul>
            })
        })
    };
    view! { {list} }
}
