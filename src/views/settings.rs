//! The settings panel: the breaker's and bulkhead's settings by their Resilience4j names.
//! A value that cannot be used gets a message next to its field and changes nothing.

use leptos::either::Either;
use leptos::prelude::*;
use resilience_sim::scenario::session::TickSession;
use resilience_sim::ConfigError;

use super::html::{act, aria_bool, change, click, live, live_attr, Html};
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
            Ok(configs) => {
                let mut configs = Some(configs);
                let mut applied = Ok(0);
                act(session, &mut |s| {
                    if let Some((breaker, bulkhead)) = configs.take() {
                        applied = s.apply_settings(breaker, bulkhead);
                    }
                });
                match applied {
                    Ok(0) => {
                        errors.set(Vec::new());
                        status.set("Settings applied, from t = 0.".into());
                    }
                    Ok(t) => {
                        errors.set(Vec::new());
                        status.set(format!(
                            "Settings applied: the run was played again with them from t = 0 up to t = {t}, where you were."
                        ));
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
    // What is still wrong with the draft (reading, then the engine's checks): a field's
    // message goes as soon as its text is valid, without waiting for Apply.
    let still_wrong = move || {
        session.with_untracked(|s| {
            let tick = &s.scenario().tick;
            draft.with_untracked(
                |d| match d.to_configs(&tick.circuit_breaker, &tick.bulkhead) {
                    Err(list) => list,
                    Ok((b, h)) => b
                        .validate()
                        .err()
                        .into_iter()
                        .chain(h.validate().err())
                        .collect(),
                },
            )
        })
    };
    let restore = move || {
        act(session, &mut |s| s.restore_original());
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
            <p class="muted">"One tick is one second of virtual time. Applying settings plays the run again with them, up to the tick you are at."</p>
            <form class="settings-form" on:submit=move |ev| { ev.prevent_default(); apply(); }>
                {FIELDS.iter().filter(|field| field.form).map(|field| {
                    let name = field.name;
                    let id = format!("setting-{name}");
                    let error_id = format!("{id}-error");
                    let message = move || errors.with(|list| list.iter().find(|e| e.field == name).map(|e| e.message.clone()));
                    let invalid = move || errors.with(|list| list.iter().any(|e| e.field == name));
                    let aria_invalid = live_attr(move || aria_bool(invalid()));
                    let value = live(move || draft.with(|d| d.get(name).to_string()));
                    // `name` comes from the table, so the draft knows it.
                    let edit = change(move |ev| {
                        draft.update(|d| { let _ = d.set(name, event_target_value(&ev)); });
                        if errors.with_untracked(|l| l.iter().any(|e| e.field == name)) {
                            let now: Vec<ConfigError> = still_wrong();
                            errors.update(|l| l.retain(|e| now.iter().any(|n| n.field == e.field)));
                        }
                    });
                    let group = if field.bulkhead { "bulkhead" } else { "circuitBreaker" };
                    let input = match field.kind {
                        FieldKind::Choice(options) => Either::Left(view! {
                            <select id=id.clone() data-testid=id.clone() aria-invalid=aria_invalid aria-describedby=error_id.clone()
                                on:change=edit inner_html=options_html(options) prop:value=value>
                            </select>
                        }),
                        _ => Either::Right(view! {
                            <input id=id.clone() type="text" data-testid=id.clone()
                                inputmode=if field.kind == FieldKind::Duration { "text" } else { "decimal" }
                                aria-invalid=aria_invalid aria-describedby=error_id.clone()
                                prop:value=value on:input=edit />
                        }),
                    };
                    view! {
                        // A field's red border follows its aria-invalid (style/site.css).
                        <div class="field">
                            <label for=id><code inner_html=breakable(name)></code><span class="group">{group}</span></label>
                            {input}
                            <p class="help">{field.help}</p>
                            <p class="error" id=error_id data-testid=format!("error-{name}") role="alert">
                                {live(move || message().unwrap_or_default())}
                            </p>
                        </div>
                    }
                }).collect_view()}
                <div class="form-actions">
                    <button type="submit" class="primary" data-testid="apply-settings">"Apply settings"</button>
                    <button type="button" data-testid="restore-settings" on:click=click(move |_| restore())>"Back to the demo's settings"</button>
                </div>
                <p class="status" role="status" data-testid="settings-status">{live(move || status.get())}</p>
            </form>
        </details>
    }
}

/// A camelCase name as HTML with a line-break opportunity (`<wbr>`) before each hump, so a
/// long one (`permittedNumberOfCallsInHalfOpenState`) breaks between its words in a narrow
/// column; copied, it is the name as written.
fn breakable(name: &str) -> String {
    let mut h = String::new();
    for (i, c) in name.char_indices() {
        if i > 0 && c.is_ascii_uppercase() {
            h.raw("<wbr>");
        }
        h.text(c.encode_utf8(&mut [0; 4]));
    }
    h
}

/// A choice's options, as HTML.
fn options_html(options: &[&str]) -> String {
    let mut h = String::new();
    for o in options {
        h.raw("<option value=\"")
            .text(o)
            .raw("\">")
            .text(o)
            .raw("</option>");
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_breaks_between_its_words() {
        assert_eq!(
            breakable("permittedNumberOfCallsInHalfOpenState"),
            "permitted<wbr>Number<wbr>Of<wbr>Calls<wbr>In<wbr>Half<wbr>Open<wbr>State"
        );
        assert_eq!(
            breakable("slidingWindowType"),
            "sliding<wbr>Window<wbr>Type"
        );
        assert_eq!(breakable("a<b"), "a&lt;b", "anything but a name is escaped");
        for field in FIELDS {
            assert_eq!(breakable(field.name).replace("<wbr>", ""), field.name);
        }
    }
}
