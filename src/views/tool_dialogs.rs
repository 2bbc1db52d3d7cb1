//! The dialogs behind a page's "Show as Resilience4j config" and "Embed this demo": drawn
//! by the `course-tools` part ([`crate::tools`]) into the page's host element when a
//! learner first opens one, so a demo's own part carries only the two buttons (the
//! dialogs' views cost each part 8 to 11 KB gzip). Both are native `<dialog>`s opened with
//! `showModal`: the browser keeps focus inside, closes on Escape and returns focus to the
//! button that opened them.
//!
//! What a dialog needs from the page (its link, its settings in Resilience4j's words, a
//! pasted fragment applied) it asks through the page's [`PageHandle`].

use std::cell::RefCell;

use leptos::html::Dialog;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::html::{change, click, live, live_attr, pasted_within, Html, Live};
use crate::embed::{site_base, snippets, Snippets};
use crate::tools::{exports, ConfigText, PageHandle, Refused};
use resilience_sim::resilience4j::MAX_INPUT;

/// What a paste over the reader's limit is told.
const TOO_LARGE: &str =
    "That text is over 64 KB, the most the reader takes (a Resilience4j fragment is far smaller).";

/// The dialogs drawn for one page: its host element, how to open them, and the mounted
/// view (dropped, it is taken off the page).
struct Mounted {
    host: web_sys::HtmlElement,
    dialogs: Dialogs,
    _view: Box<dyn std::any::Any>,
}

thread_local! {
    static MOUNTED: RefCell<Option<Mounted>> = const { RefCell::new(None) };
}

/// Opens the dialog `which` (`"config"` or `"embed"`) of the page `page`, drawing the
/// dialogs into its host the first time (a page drawn again, as a tick demo is when the
/// learner moves to the next demo, brings a new host).
pub fn open(which: &str, page: PageHandle) -> Result<(), String> {
    let host = page
        .host()
        .ok_or("The page has no place for its dialogs.")?;
    let dialogs = MOUNTED.with(|mounted| {
        let mut mounted = mounted.borrow_mut();
        match &*mounted {
            Some(m) if m.host == host => m.dialogs,
            _ => {
                // The last page's dialogs, gone with its page, are let go first.
                *mounted = None;
                let dialogs = Dialogs::new(StoredValue::new_local(page.clone()));
                let view = leptos::mount::mount_to(host.clone(), move || dialogs.view());
                *mounted = Some(Mounted {
                    host,
                    dialogs,
                    _view: Box::new(view),
                });
                dialogs
            }
        }
    });
    dialogs.page.set_value(page);
    match which {
        "embed" => dialogs.open_embed(),
        _ => dialogs.open_config(),
    }
    Ok(())
}

/// The state of a page's two dialogs.
#[derive(Clone, Copy)]
struct Dialogs {
    page: StoredValue<PageHandle, LocalStorage>,
    embed_dialog: NodeRef<Dialog>,
    config_dialog: NodeRef<Dialog>,
    with_state: RwSignal<bool>,
    /// Both snippets, of the demo alone and of where the learner is: [plain, with state].
    snippets: RwSignal<[Snippets; 2]>,
    config: RwSignal<ConfigText>,
    status: RwSignal<String>,
}

impl Dialogs {
    fn new(page: StoredValue<PageHandle, LocalStorage>) -> Self {
        Dialogs {
            page,
            embed_dialog: NodeRef::new(),
            config_dialog: NodeRef::new(),
            with_state: RwSignal::new(false),
            snippets: RwSignal::new([Snippets::default(), Snippets::default()]),
            config: RwSignal::new(ConfigText::default()),
            status: RwSignal::new(String::new()),
        }
    }

    fn snippet(self) -> Snippets {
        self.snippets
            .with(|s| s[usize::from(self.with_state.get())].clone())
    }

    fn open_embed(self) {
        self.status.set(String::new());
        let (number, title, link) = self.page.with_value(|p| (p.number(), p.title(), p.link()));
        let page = window().location().href().unwrap_or_default();
        let base = site_base(&page);
        let title = format!("Resilience Playground — Demo {number}: {title}");
        let plain = snippets(base, &format!("demo={number}"), &title);
        let here = snippets(base, &link, &title);
        self.snippets.set([plain, here]);
        if let Some(d) = self.embed_dialog.get_untracked() {
            let _ = d.show_modal();
        }
    }

    fn open_config(self) {
        self.status.set(String::new());
        self.show_config();
        if let Some(d) = self.config_dialog.get_untracked() {
            let _ = d.show_modal();
        }
    }

    /// The page's settings in Resilience4j's words, asked for again.
    fn show_config(self) {
        match self.page.with_value(PageHandle::config) {
            Ok(text) => self.config.set(text),
            Err(e) => {
                self.config.set(ConfigText::default());
                self.status.set(e);
            }
        }
    }

    fn view(self) -> impl IntoView {
        let Dialogs {
            page,
            embed_dialog,
            config_dialog,
            with_state,
            config,
            status,
            ..
        } = self;
        // One handler per dialog for its copy buttons (`data-copy` names what to copy).
        let copy_clicked = move |e: leptos::ev::MouseEvent| {
            let what = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest("[data-copy]").ok().flatten())
                .and_then(|b| b.get_attribute("data-copy"));
            let text = match what.as_deref() {
                Some("iframe") => self.snippet().iframe,
                Some("script") => self.snippet().script,
                Some("yaml") => config.with_untracked(|c| c.yaml.clone()),
                Some("properties") => config.with_untracked(|c| c.properties.clone()),
                Some("java") => config.with_untracked(|c| c.java.clone()),
                _ => return,
            };
            copy(text, status);
        };
        let imports = page.with_value(PageHandle::takes_imports);
        view! {
            <dialog class="tool-dialog" node_ref=embed_dialog aria-labelledby="embed-heading" data-testid="embed-dialog"
                on:click=click(copy_clicked)>
                <h2 id="embed-heading">"Embed this demo"</h2>
                <p>"Paste one of these into your course page. The demo opens alone, without the course around it, and its links open in a new tab."</p>
                <label class="check">
                    <input type="checkbox" data-testid="embed-with-state"
                        on:change=change(move |e| with_state.set(event_target_checked(&e))) />
                    {if page.with_value(PageHandle::plays_ticks) {
                        " Open it where you are now (tick, changes and settings)"
                    } else {
                        " Open it with your current settings"
                    }}
                </label>
                <label for="embed-iframe">"An iframe, at the height you give it"</label>
                <textarea id="embed-iframe" readonly rows="4" data-testid="embed-iframe"
                    prop:value=live(move || self.snippet().iframe)></textarea>
                <button type="button" data-copy="iframe">"Copy the iframe"</button>
                <label for="embed-script">"Or a script that makes the frame as tall as the demo"</label>
                <p class="muted">"Many learning platforms (Moodle, Canvas, Blackboard) remove scripts from the pages teachers write: use the iframe there."</p>
                <textarea id="embed-script" readonly rows="4" data-testid="embed-script"
                    prop:value=live(move || self.snippet().script)></textarea>
                <button type="button" data-copy="script">"Copy the script"</button>
                <p class="status" role="status">{live(move || status.get())}</p>
                <form method="dialog"><button type="submit" class="primary">"Close"</button></form>
            </dialog>
            <dialog class="tool-dialog wide" node_ref=config_dialog aria-labelledby="r4j-heading" data-testid="r4j-dialog"
                on:click=click(copy_clicked)>
                <h2 id="r4j-heading">"These settings in Resilience4j"</h2>
                <p>"Spring Boot's " <code>"application.yml"</code> " (resilience4j-spring-boot3), then the same as " <code>"application.properties"</code> " and with Resilience4j's builders. Lines starting with # or // say what the simulation does that a setting does not."</p>
                <h3>"application.yml"</h3>
                <pre class="code" tabindex="0" data-testid="export-r4j-text">{live(move || config.with(|c| c.yaml.clone()))}</pre>
                <button type="button" data-copy="yaml">"Copy the YAML"</button>
                <details>
                    <summary>"The same as application.properties"</summary>
                    <pre class="code" tabindex="0" data-testid="export-r4j-properties">{live(move || config.with(|c| c.properties.clone()))}</pre>
                    <button type="button" data-copy="properties">"Copy the properties"</button>
                </details>
                <details>
                    <summary>"The same in Java"</summary>
                    <pre class="code" tabindex="0" data-testid="export-r4j-java">{live(move || config.with(|c| c.java.clone()))}</pre>
                    <button type="button" data-copy="java">"Copy the Java"</button>
                </details>
                {imports.then(|| import_section(page, status, Callback::new(move |_| self.show_config())))}
                <p class="status" role="status" data-testid="r4j-status">{live(move || status.get())}</p>
                <form method="dialog"><button type="submit">"Close"</button></form>
            </dialog>
        }
    }
}

/// The config dialog's "Try your own configuration": the pasted text, read here and
/// applied by the page ([`PageHandle::import`]); `status` is the dialog's status line,
/// `refresh` writes the dialog's texts again after an import.
fn import_section(
    page: StoredValue<PageHandle, LocalStorage>,
    status: RwSignal<String>,
    refresh: Callback<()>,
) -> impl IntoView {
    // What the box holds; `None` when the last paste was over the reader's limit (the box
    // was cleared, and "Read and apply" says why again rather than "no settings found").
    let import_text = RwSignal::new(Some(String::new()));
    let import_errors = RwSignal::new(Vec::<String>::new());
    // A fragment with several instances and none of the page's name: the learner chooses.
    let instances = RwSignal::new(Vec::<String>::new());
    let chosen = RwSignal::new(String::new());
    // A file with documents for Spring profiles: the learner chooses one (or none).
    let profiles = RwSignal::new(Vec::<String>::new());
    let profile = RwSignal::new(String::new());
    // The dialog opened again (its status cleared): the last import's problems go.
    Effect::new(move |_| {
        if status.with(String::is_empty) {
            import_errors.set(Vec::new());
        }
    });
    let imported = move |applied: Result<String, Refused>| match applied {
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
    };
    let apply_import = click(move |_| {
        let Some(text) = import_text.get_untracked() else {
            import_errors.set(vec![TOO_LARGE.to_string()]);
            return;
        };
        let instance = instances.with_untracked(|list| {
            if list.is_empty() {
                String::new()
            } else {
                chosen.get_untracked()
            }
        });
        // The profiles the file has, to choose from (none for most files).
        let found = exports::profile_names(&text);
        if !found.contains(&profile.get_untracked()) {
            profile.set(String::new());
        }
        profiles.set(found);
        let profile = profile.get_untracked();
        imported(page.with_value(|page| page.import(&text, &instance, &profile)));
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

    let label = if page.with_value(PageHandle::plays_ticks) {
        "Paste an application.yml or application.properties fragment, or Java builder code (CircuitBreakerConfig.custom()…), with circuit breaker and bulkhead settings; the demo plays again with it, up to the tick you are at."
    } else {
        "Paste an application.yml or application.properties fragment, or Java builder code (CircuitBreakerConfig.custom()…), with a circuit breaker's settings; the breaker takes them, and the calls sent so far are played again."
    };
    view! {
        <h3>"Try your own configuration"</h3>
        <label for="import-r4j">{label}</label>
        <textarea id="import-r4j" rows="8" spellcheck="false" data-testid="import-r4j-text"
            aria-describedby="import-r4j-errors"
            on:input=change(move |e| {
                // The reader's limit, before the text is copied out of the page.
                match pasted_within(&e, MAX_INPUT) {
                    Some(text) => import_text.set(Some(text)),
                    None => {
                        import_text.set(None);
                        import_errors.set(vec![TOO_LARGE.to_string()]);
                    }
                }
                instances.set(Vec::new());
                chosen.set(String::new());
                profiles.set(Vec::new());
                profile.set(String::new());
            })></textarea>
        {choice("import-r4j-profile", "The Spring profile to read (its documents replace the default ones' settings)", profiles, profile, profile_options_html)}
        {choice("import-r4j-instance", "The instances that play the demo's dependency", instances, chosen, options_html)}
        <button type="button" class="primary" data-testid="import-r4j-apply" on:click=apply_import>"Read and apply"</button>
        <ul id="import-r4j-errors" class="errors" data-testid="import-r4j-errors" role="alert"
            hidden=live_attr(move || import_errors.with(Vec::is_empty).then_some("")) inner_html=errors_html></ul>
    }
}

/// A select of the import section (`id` is also its test id), shown when `names` has any:
/// its options are `options` (markup), the learner's choice goes to `chosen`.
fn choice(
    id: &'static str,
    label: &'static str,
    names: RwSignal<Vec<String>>,
    chosen: RwSignal<String>,
    options: Live,
) -> impl IntoView {
    view! {
        <div class="control" hidden=live_attr(move || names.with(Vec::is_empty).then_some(""))>
            <label for=id>{label}</label>
            <select id=id data-testid=id
                on:change=change(move |e| chosen.set(event_target_value(&e)))
                inner_html=options>
            </select>
        </div>
    }
}

fn copy(text: String, status: RwSignal<String>) {
    let clipboard = window().navigator().clipboard();
    spawn_local(async move {
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
