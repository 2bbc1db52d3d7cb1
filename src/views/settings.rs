//! The settings panel: the breaker's and bulkhead's settings by their Resilience4j names.
//! A value that cannot be used gets a message next to its field and changes nothing.

use leptos::prelude::*;
use resilience_sim::scenario::session::TickSession;
use resilience_sim::ConfigError;

use crate::settings_form::{FieldKind, SettingsDraft, FIELDS};

#[component]
pub fn SettingsPanel(
    session: RwSignal<TickSession>,
    draft: RwSignal<SettingsDraft>,
    errors: RwSignal<Vec<ConfigError>>,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let apply = move || {
        let result = session.with_untracked(|s| {
            let tick = &s.scenario().tick;
            draft.with_untracked(|d| d.to_configs(&tick.circuit_breaker, &tick.bulkhead))
        });
        match result {
            Ok((breaker, bulkhead)) => {
                let mut applied = Ok(());
                session.update(|s| applied = s.apply_settings(breaker, bulkhead));
                match applied {
                    Ok(()) => {
                        errors.set(Vec::new());
                        status.set("Settings applied; the demo restarted at t = 0.".into());
                    }
                    Err(e) => {
                        errors.set(vec![e]);
                        status.set("Nothing changed: fix the marked setting.".into());
                    }
                }
            }
            Err(list) => {
                errors.set(list);
                status.set("Nothing changed: fix the marked settings.".into());
            }
        }
    };
    let restore = move || {
        session.update(|s| s.restore_original());
        let fresh = session.with_untracked(|s| {
            let tick = &s.original().tick;
            SettingsDraft::from_configs(&tick.circuit_breaker, &tick.bulkhead)
        });
        draft.set(fresh);
        errors.set(Vec::new());
        status.set("Back to the demo's settings, at t = 0.".into());
    };

    view! {
        <details class="panel settings">
            <summary>"Settings (Resilience4j names)"</summary>
            <p class="muted">"One tick is one second of virtual time. Applying settings restarts the demo at t = 0."</p>
            <form class="settings-form" on:submit=move |ev| { ev.prevent_default(); apply(); }>
                {FIELDS.iter().map(|field| {
                    let name = field.name;
                    let id = format!("setting-{name}");
                    let error_id = format!("{id}-error");
                    let message = move || errors.with(|list| list.iter().find(|e| e.field == name).map(|e| e.message.clone()));
                    let group = if field.bulkhead { "bulkhead" } else { "circuitBreaker" };
                    let input = match field.kind {
                        FieldKind::Choice(options) => view! {
                            <select id=id.clone() data-testid=format!("setting-{name}")
                                aria-invalid=move || message().is_some().to_string()
                                aria-describedby=error_id.clone()
                                prop:value=move || draft.with(|d| d.get(name).to_string())
                                on:change=move |ev| draft.update(|d| d.set(name, event_target_value(&ev)))>
                                {options.iter().map(|o| view! { <option value=*o>{*o}</option> }).collect_view()}
                            </select>
                        }.into_any(),
                        _ => view! {
                            <input id=id.clone() type="text" data-testid=format!("setting-{name}")
                                inputmode=if field.kind == FieldKind::Duration { "text" } else { "decimal" }
                                aria-invalid=move || message().is_some().to_string()
                                aria-describedby=error_id.clone()
                                prop:value=move || draft.with(|d| d.get(name).to_string())
                                on:input=move |ev| draft.update(|d| d.set(name, event_target_value(&ev))) />
                        }.into_any(),
                    };
                    view! {
                        <div class="field" class:invalid=move || message().is_some()>
                            <label for=id.clone()><code>{name}</code><span class="group">{group}</span></label>
                            {input}
                            <p class="help">{field.help}</p>
                            <p class="error" id=error_id.clone() data-testid=format!("error-{name}") role="alert">
                                {move || message().unwrap_or_default()}
                            </p>
                        </div>
                    }
                }).collect_view()}
                <div class="form-actions">
                    <button type="submit" class="primary" data-testid="apply-settings">"Apply settings"</button>
                    <button type="button" data-testid="restore-settings" on:click=move |_| restore()>"Back to the demo's settings"</button>
                </div>
                <p class="status" role="status" data-testid="settings-status">{move || status.get()}</p>
            </form>
        </details>
    }
}
