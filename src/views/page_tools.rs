//! What every demo page offers besides the demo: "Embed this demo" (the snippets a teacher
//! pastes into a course page), "Show as Resilience4j config" (the settings as Spring Boot
//! YAML and Java, and on the pages that take one, a fragment pasted back), and the notes
//! for teachers. Both dialogs are native `<dialog>`s opened with `showModal`: the browser
//! keeps focus inside, closes on Escape and returns focus to the button.
//!
//! What the dialogs and the notes show comes from the tools part ([`crate::tools`]),
//! loaded the first time one is opened: the page itself carries only their frames.

use leptos::html::Dialog;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::html::{change, click, live, live_attr, Html};
use crate::embed::{site_base, Snippets};
use crate::tools;

pub use crate::tools::{ConfigText, Refused};

/// A fragment pasted into the config dialog, for the page to read (through the tools part)
/// and apply, its instances named `instance` playing the demo's role (empty: the page's
/// own name, else the only one): `done` says what it did, or why nothing changed.
pub struct Pasted {
    pub text: String,
    pub instance: String,
    /// The Spring profile whose documents are read besides the default ones (empty: none).
    pub profile: String,
    pub done: Callback<Result<String, Refused>>,
}
/// The buttons and their dialogs. `link` is the page's own link (`demo=5&t=3&…`);
/// `config` writes the current settings in Resilience4j's words (through the tools part)
/// and hands them to the callback it is given; `import`, where the page takes a pasted
/// fragment ([`Pasted`]).
#[component]
pub fn PageTools<I: ImportUi>(
    number: u32,
    title: &'static str,
    embedded: bool,
    link: Callback<(), String>,
    config: Callback<Callback<Result<ConfigText, String>>>,
    import: I,
) -> impl IntoView {
    let embed_dialog = NodeRef::<Dialog>::new();
    let config_dialog = NodeRef::<Dialog>::new();
    let with_state = RwSignal::new(false);
    let shown_config = RwSignal::new(ConfigText::default());
    let status = RwSignal::new(String::new());

    // Both snippets, of the demo alone and of where the learner is: [plain, with state].
    let shown_snippets = RwSignal::new([Snippets::default(), Snippets::default()]);
    let snippet = move || shown_snippets.with(|s| s[usize::from(with_state.get())].clone());
    let open_embed = click(move |_| {
        status.set("Loading…".into());
        if let Some(d) = embed_dialog.get() {
            let _ = d.show_modal();
        }
        let page = window().location().href().unwrap_or_default();
        let base = site_base(&page).to_string();
        let links = [format!("demo={number}"), link.run(())];
        let title = format!("Resilience Playground — Demo {number}: {title}");
        spawn_local(async move {
            let mut both = [Snippets::default(), Snippets::default()];
            for (shown, link) in both.iter_mut().zip(&links) {
                match tools::embed_snippets(&base, link, &title).await {
                    Ok(s) => *shown = s,
                    Err(e) => return status.set(e),
                }
            }
            shown_snippets.set(both);
            status.set(String::new());
        });
    });
    let shown = Callback::new(move |text: Result<ConfigText, String>| match text {
        Ok(text) => shown_config.set(text),
        Err(e) => status.set(e),
    });
    let show_config = move || config.run(shown);
    let open_config = click(move |_| {
        shown_config.set(ConfigText::default());
        status.set(String::new());
        show_config();
        if let Some(d) = config_dialog.get() {
            let _ = d.show_modal();
        }
    });
    // One handler per dialog for its copy buttons (`data-copy` names what to copy).
    let copy_clicked = move |e: leptos::ev::MouseEvent| {
        let what = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("[data-copy]").ok().flatten())
            .and_then(|b| b.get_attribute("data-copy"));
        let text = match what.as_deref() {
            Some("iframe") => snippet().iframe,
            Some("script") => snippet().script,
            Some("yaml") => shown_config.with_untracked(|c| c.yaml.clone()),
            Some("properties") => shown_config.with_untracked(|c| c.properties.clone()),
            Some("java") => shown_config.with_untracked(|c| c.java.clone()),
            _ => return,
        };
        copy(text, status);
    };
    view! {
        <div class="page-tools">
            <button type="button" data-testid="export-r4j" aria-haspopup="dialog" on:click=open_config>
                "Show as Resilience4j config"
            </button>
            // A teacher embeds from the full course; a frame keeps to its demo.
            {(!embedded).then(|| view! {
                <button type="button" data-testid="embed-open" aria-haspopup="dialog" on:click=open_embed>
                    "Embed this demo"
                </button>
            })}
        </div>
        <dialog class="tool-dialog" node_ref=embed_dialog aria-labelledby="embed-heading" data-testid="embed-dialog"
            on:click=click(copy_clicked)>
            <h2 id="embed-heading">"Embed this demo"</h2>
            <p>"Paste one of these into your course page. The demo opens alone, without the course around it, and its links open in a new tab."</p>
            <label class="check">
                <input type="checkbox" data-testid="embed-with-state"
                    on:change=change(move |e| with_state.set(event_target_checked(&e))) />
                " Open it where you are now (tick, changes and settings)"
            </label>
            <label for="embed-iframe">"An iframe, at the height you give it"</label>
            <textarea id="embed-iframe" readonly rows="4" data-testid="embed-iframe"
                prop:value=live(move || snippet().iframe)></textarea>
            <button type="button" data-copy="iframe">"Copy the iframe"</button>
            <label for="embed-script">"Or a script that makes the frame as tall as the demo"</label>
            <p class="muted">"Many learning platforms (Moodle, Canvas, Blackboard) remove scripts from the pages teachers write: use the iframe there."</p>
            <textarea id="embed-script" readonly rows="4" data-testid="embed-script"
                prop:value=live(move || snippet().script)></textarea>
            <button type="button" data-copy="script">"Copy the script"</button>
            <p class="status" role="status">{live(move || status.get())}</p>
            <form method="dialog"><button type="submit" class="primary">"Close"</button></form>
        </dialog>
        <dialog class="tool-dialog wide" node_ref=config_dialog aria-labelledby="r4j-heading" data-testid="r4j-dialog"
            on:click=click(copy_clicked)>
            <h2 id="r4j-heading">"These settings in Resilience4j"</h2>
            <p>"Spring Boot's " <code>"application.yml"</code> " (resilience4j-spring-boot3), then the same as " <code>"application.properties"</code> " and with Resilience4j's builders. Lines starting with # or // say what the simulation does that a setting does not."</p>
            <h3>"application.yml"</h3>
            <pre class="code" tabindex="0" data-testid="export-r4j-text">{live(move || shown_config.with(|c| c.yaml.clone()))}</pre>
            <button type="button" data-copy="yaml">"Copy the YAML"</button>
            <details>
                <summary>"The same as application.properties"</summary>
                <pre class="code" tabindex="0" data-testid="export-r4j-properties">{live(move || shown_config.with(|c| c.properties.clone()))}</pre>
                <button type="button" data-copy="properties">"Copy the properties"</button>
            </details>
            <details>
                <summary>"The same in Java"</summary>
                <pre class="code" tabindex="0" data-testid="export-r4j-java">{live(move || shown_config.with(|c| c.java.clone()))}</pre>
                <button type="button" data-copy="java">"Copy the Java"</button>
            </details>
            {import.section(status, Callback::new(move |_| show_config()))}
            <p class="status" role="status" data-testid="r4j-status">{live(move || status.get())}</p>
            <form method="dialog"><button type="submit">"Close"</button></form>
        </dialog>
    }
}

/// The config dialog's import section, by type: a page that takes a pasted fragment
/// passes [`Import`], the others [`NoImport`], so a part whose pages take none does not link
/// the section (the text box, the instance and profile choices: 4-5 KB gzip a lab part).
/// A type rather than a boxed view: erasing it cost the tick demos 3 KB gzip (measured).
pub trait ImportUi: Copy + Send + Sync + 'static {
    fn section(self, status: RwSignal<String>, refresh: Callback<()>) -> impl IntoView;
}

/// A page that takes a pasted fragment: its handler.
#[derive(Clone, Copy)]
pub struct Import(pub Callback<Pasted>);

/// A page that takes none.
#[derive(Clone, Copy)]
pub struct NoImport;

impl ImportUi for Import {
    fn section(self, status: RwSignal<String>, refresh: Callback<()>) -> impl IntoView {
        import_section(self.0, status, refresh)
    }
}

impl ImportUi for NoImport {
    fn section(self, _: RwSignal<String>, _: Callback<()>) -> impl IntoView {}
}

/// The config dialog's "Try your own configuration": the pasted text, read by the page's
/// `import` (through the tools part); `status` is the dialog's status line, `refresh`
/// writes the dialog's texts again after an import.
fn import_section(
    import: Callback<Pasted>,
    status: RwSignal<String>,
    refresh: Callback<()>,
) -> impl IntoView {
    let import_text = RwSignal::new(String::new());
    let import_errors = RwSignal::new(Vec::<String>::new());
    // A fragment with several instances and none of the page's name: the learner chooses.
    let instances = RwSignal::new(Vec::<String>::new());
    let chosen = RwSignal::new(String::new());
    // A YAML file with documents for Spring profiles: the learner chooses one (or none).
    let profiles = RwSignal::new(Vec::<String>::new());
    let profile = RwSignal::new(String::new());
    // The dialog opened again (its status cleared): the last import's problems go.
    Effect::new(move |_| {
        if status.with(String::is_empty) {
            import_errors.set(Vec::new());
        }
    });
    let imported = Callback::new(move |applied: Result<String, Refused>| match applied {
        Ok(mut done) => {
            import_errors.set(Vec::new());
            refresh.run(());
            let instance = chosen.get_untracked();
            if !instance.is_empty() {
                done.push_str(&format!(" The demo plays the instances named {instance}."));
            }
            let found = profiles.get_untracked();
            match profile.get_untracked() {
                p if !p.is_empty() => done.push_str(&format!(" Read with the profile {p}.")),
                _ if !found.is_empty() => done.push_str(&format!(
                    " The file also has documents for the profiles {}: choose one above and read it again to play it.",
                    found.join(", ")
                )),
                _ => {}
            }
            status.set(done);
        }
        Err(refused) => {
            if refused.instances.is_empty() {
                status.set("Nothing was applied: fix the lines below and read it again.".into());
            } else {
                status.set("Nothing was applied: choose the instance the demo should play, or fix the lines below, and read it again.".into());
                if !refused.instances.contains(&chosen.get_untracked()) {
                    chosen.set(refused.instances[0].clone());
                }
            }
            instances.set(refused.instances);
            import_errors.set(refused.problems);
        }
    });
    let apply_import = click(move |_| {
        status.set("Reading…".into());
        let text = import_text.get_untracked();
        let instance = instances.with_untracked(|list| {
            if list.is_empty() {
                String::new()
            } else {
                chosen.get_untracked()
            }
        });
        spawn_local(async move {
            // The profiles the file has, to choose from (none for most files).
            let found = tools::profiles(&text).await.unwrap_or_default();
            if !found.contains(&profile.get_untracked()) {
                profile.set(String::new());
            }
            profiles.set(found);
            import.run(Pasted {
                text,
                instance,
                profile: profile.get_untracked(),
                done: imported,
            });
        });
    });
    let profile_options_html = live(move || {
        let mut h = String::new();
        let current = profile.get_untracked();
        h.option(
            "",
            "No profile: the default documents only",
            current.is_empty(),
        );
        profiles.with(|names| {
            for name in names {
                h.option(name, name, *name == current);
            }
        });
        h
    });
    // The options as markup: the same list as a view of `<option>`s cost every part 2 KB
    // gzip (measured), and every part is over its byte budget (docs/bundles.md).
    let options_html = live(move || {
        let mut h = String::new();
        let current = chosen.get_untracked();
        instances.with(|names| {
            for name in names {
                h.option(name, name, *name == current);
            }
        });
        h
    });
    let errors_html = live(move || {
        let mut h = String::new();
        import_errors.with(|lines| {
            for line in lines {
                h.raw("<li>").text(line).raw("</li>");
            }
        });
        h
    });

    view! {
        <h3>"Try your own configuration"</h3>
        <label for="import-r4j">"Paste an application.yml or application.properties fragment, or Java builder code (CircuitBreakerConfig.custom()…), with circuit breaker and bulkhead settings; the demo plays again with it, up to the tick you are at."</label>
        <textarea id="import-r4j" rows="8" spellcheck="false" data-testid="import-r4j-text"
            aria-describedby="import-r4j-errors"
            on:input=change(move |e| {
                import_text.set(event_target_value(&e));
                instances.set(Vec::new());
                chosen.set(String::new());
                profiles.set(Vec::new());
                profile.set(String::new());
            })></textarea>
        <div class="control" hidden=live_attr(move || profiles.with(Vec::is_empty).then_some(""))>
            <label for="import-r4j-profile">"The Spring profile to read (its documents replace the default ones' settings)"</label>
            <select id="import-r4j-profile" data-testid="import-r4j-profile"
                on:change=change(move |e| profile.set(event_target_value(&e)))
                inner_html=profile_options_html>
            </select>
        </div>
        <div class="control" hidden=live_attr(move || instances.with(Vec::is_empty).then_some(""))>
            <label for="import-r4j-instance">"The instances that play the demo's dependency"</label>
            <select id="import-r4j-instance" data-testid="import-r4j-instance"
                on:change=change(move |e| chosen.set(event_target_value(&e)))
                inner_html=options_html>
            </select>
        </div>
        <button type="button" class="primary" data-testid="import-r4j-apply" on:click=apply_import>"Read and apply"</button>
        <ul id="import-r4j-errors" class="errors" data-testid="import-r4j-errors" role="alert"
            hidden=live_attr(move || import_errors.with(Vec::is_empty).then_some("")) inner_html=errors_html></ul>
    }
}

/// The notes for teachers of demo `number`, folded away under the page; loaded from the
/// tools part when first unfolded.
#[component]
pub fn TeacherNotes(number: u32) -> impl IntoView {
    let notes = RwSignal::new(None::<String>);
    let toggled = move |e: leptos::ev::Event| {
        let open = e
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .is_some_and(|d| d.open());
        if !open || notes.with_untracked(Option::is_some) {
            return;
        }
        notes.set(Some(String::new()));
        spawn_local(async move {
            let html = match tools::teacher_notes_html(number).await {
                Ok(html) => html,
                Err(e) => {
                    let mut h = String::new();
                    h.raw("<p>").text(&e).raw("</p>");
                    h
                }
            };
            notes.set(Some(html));
        });
    };
    view! {
        <details class="panel teacher-notes" data-testid="teacher-notes" on:toggle=toggled>
            <summary>"For teachers"</summary>
            <div aria-live="polite" inner_html=live(move || notes.get().unwrap_or_default())></div>
            <p><a href="?overview=1">"Every demo at a glance, ready to print"</a></p>
        </details>
    }
}

fn copy(text: String, status: RwSignal<String>) {
    let clipboard = window().navigator().clipboard();
    leptos::task::spawn_local(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text)).await;
        status.set(
            match copied {
                Ok(_) => "Copied to the clipboard.",
                Err(_) => "The browser refused the clipboard: select the text and copy it.",
            }
            .to_string(),
        );
    });
}
