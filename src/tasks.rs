//! Work too long for one browser task (a lab's run while a slider is dragged, a table of
//! runs), done in steps: each task runs steps for about 4 ms, then yields so the page can
//! draw a frame and take the next input, and a newer start of the same work drops the run
//! under way. The page keeps what it showed until the work installs its result.
//!
//! The next task is a message to the page's own `MessageChannel`, not a zero-delay timer:
//! browsers hold a chain of timers to at least 4 ms apart after the fifth, which left the
//! main thread idle half the time between 4 ms tasks (Demo 15's first run: 5 s instead of
//! about 3).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Wall time one task may take before it yields to the browser.
const TASK_BUDGET_MS: f64 = 4.0;

/// What a step of stepped work says about the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More steps; the next may run in this task if its budget allows.
    More,
    /// More steps, from the next task on: the next one is heavy on its own (installing a
    /// run redraws the page) and should not share a task with the work before it.
    MoreInNextTask,
    /// The work is done.
    Done,
}

/// One kind of work on a page: starting it again drops the run under way.
#[derive(Clone, Copy)]
pub struct Stepped {
    generation: StoredValue<u32>,
}

impl Stepped {
    pub fn new() -> Self {
        Self {
            generation: StoredValue::new(0),
        }
    }

    /// Runs `step` after `delay`, then again and again, a task's budget at a time, until
    /// it returns [`Step::Done`]. A later `start` on `self`, or the page going away, ends
    /// this run at its next task.
    pub fn start(self, delay: Duration, step: impl FnMut() -> Step + 'static) {
        self.generation.update_value(|g| *g = g.wrapping_add(1));
        let mine = self.generation.get_value();
        let run = Run {
            generation: self.generation,
            mine,
            step: Box::new(step),
        };
        set_timeout(move || run.task(), delay);
    }
}

impl Default for Stepped {
    fn default() -> Self {
        Self::new()
    }
}

struct Run {
    generation: StoredValue<u32>,
    mine: u32,
    step: Box<dyn FnMut() -> Step>,
}

impl Run {
    fn task(mut self) {
        // A later start took over (or the page is gone).
        if self.generation.try_get_value() != Some(self.mine) {
            return;
        }
        // Steps until the budget is spent (a task per step would wait for the browser's
        // timer clamp between them).
        let clock = web_sys::window().and_then(|w| w.performance());
        let now = || clock.as_ref().map_or(0.0, |c| c.now());
        let start = now();
        loop {
            match (self.step)() {
                Step::Done => return,
                Step::MoreInNextTask => break,
                Step::More if now() - start >= TASK_BUDGET_MS => break,
                Step::More => {}
            }
        }
        soon(move || self.task());
    }
}

type Queue = Rc<RefCell<VecDeque<Box<dyn FnOnce()>>>>;

/// The page's channel to itself: a message posted on `port` runs the next queued task.
struct Channel {
    port: web_sys::MessagePort,
    queue: Queue,
    _receiver: web_sys::MessagePort,
    _on_message: Closure<dyn FnMut()>,
}

impl Channel {
    fn new() -> Option<Self> {
        let channel = web_sys::MessageChannel::new().ok()?;
        let queue: Queue = Rc::default();
        let tasks = queue.clone();
        let on_message = Closure::<dyn FnMut()>::new(move || {
            // Taken before it runs: the task may queue the next one.
            let task = tasks.borrow_mut().pop_front();
            if let Some(task) = task {
                task();
            }
        });
        let receiver = channel.port1();
        receiver.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Some(Self {
            port: channel.port2(),
            queue,
            _receiver: receiver,
            _on_message: on_message,
        })
    }
}

thread_local! {
    static CHANNEL: Option<Channel> = Channel::new();
}

/// Runs `task` in a task of its own, as soon as the browser has drawn what is due and
/// taken the input waiting (a zero-delay timer where there is no channel).
fn soon(task: impl FnOnce() + 'static) {
    let mut task = Some(task);
    CHANNEL.with(|channel| {
        if let Some(channel) = channel {
            if let Some(task) = task.take() {
                channel.queue.borrow_mut().push_back(Box::new(task));
            }
            let _ = channel.port.post_message(&JsValue::NULL);
        }
    });
    if let Some(task) = task {
        set_timeout(task, Duration::ZERO);
    }
}

/// What `source` computes, a task later: a view that reads the copy is redrawn in a task of
/// its own, not in the task that changed the source. A page whose one change redraws much
/// (a run installed: its text, its diagram, its charts) spreads the redraws over tasks, so
/// none holds the browser for long. Only changes are copied, in order.
pub fn in_next_task<T>(source: impl Fn() -> T + Send + Sync + 'static) -> Signal<T>
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let copy = RwSignal::new(untrack(&source));
    Effect::new(move |before: Option<T>| {
        let value = source();
        // Against the last value sent, not the copy: a change and its undoing within one
        // task must both be sent, or the copy would keep the first.
        let changed = match &before {
            Some(before) => *before != value,
            None => copy.with_untracked(|c| *c != value),
        };
        if changed {
            let sent = value.clone();
            soon(move || {
                copy.try_set(sent);
            });
        }
        value
    });
    copy.into()
}
