//! Demo 14's system as a diagram: one box per component in the order a request meets
//! them (clients, the door and its waiting room, the order replicas, the dependencies),
//! edges between them, each box's live state at the second shown, and requests as dots
//! moving along the edges, coloured by what became of them.
//!
//! The dots are a sample: an edge carries 1 + log2(n) dots for n requests a second (at
//! most [`MAX_DOTS_PER_EDGE`]), split between outcomes in proportion, and its label gives
//! the exact count. They are elements in a layer under the drawing, each moved along its
//! edge by a `transform` animation that the compositor runs, so the page does no work per
//! frame (SVG's `animateMotion` repainted the page every frame). Each edge has slots for
//! the most dots it carries in the run, moving all along; a second colours the slots it
//! uses, so showing another second starts no animation. Under `prefers-reduced-motion`
//! the style sheet hides them and the counts remain.
//!
//! Layout and contents are plain functions of the topology and the run's second (tested
//! natively); the component only draws them.

use std::collections::BTreeMap;

use leptos::prelude::*;
use resilience_sim::model::boxoffice::edit::Edit;
use resilience_sim::model::boxoffice::report::{KeyRow, Second};
use resilience_sim::model::boxoffice::topology::{QueueOrder, Topology};

use crate::format::trim;

/// The most thread cells drawn for one replica: a cell stands for several threads above it.
pub const MAX_CELLS: u32 = 50;
/// The most replicas drawn one by one.
pub const MAX_REPLICAS_SHOWN: usize = 8;
pub const MAX_DOTS_PER_EDGE: usize = 6;
/// The most dots on the whole diagram (a topology of many edges shares them out).
pub const MAX_DOTS: usize = 150;

const PAD: f64 = 8.0;
const LINE: f64 = 15.0;
const GAP: f64 = 14.0;
const CELL: f64 = 7.0;
const CELLS_PER_ROW: u32 = 25;

/// What a box stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Client(String),
    Door,
    Queue,
    /// The replica's index in the run's rows (`order-1` is 0).
    Replica(usize),
    Dependency(String),
}

impl NodeKind {
    /// The component's kind, as the page's tests and styles name it.
    pub fn component(&self) -> &'static str {
        match self {
            NodeKind::Client(_) => "clients",
            NodeKind::Door => "door",
            NodeKind::Queue => "queue",
            NodeKind::Replica(_) => "replicas",
            NodeKind::Dependency(_) => "dependency",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Node {
    fn right(&self) -> (f64, f64) {
        (self.x + self.w, self.y + self.h / 2.0)
    }
    fn left(&self) -> (f64, f64) {
        (self.x, self.y + self.h / 2.0)
    }
}

/// A connection requests travel along, from node `from` to node `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    /// The SVG path.
    pub d: String,
    /// The path as [`TRACK_STEPS`] + 1 points an equal distance apart along it, for a dot
    /// that moves at a steady speed.
    pub track: Vec<(f64, f64)>,
    /// Where its count is written.
    pub label_at: (f64, f64),
}

/// Straight steps a dot's track is made of: the curves are short, and 6 chords of one are
/// within about a unit of it (a dot is 8 across). Each step is a keyframe the browser
/// reads for each dot: 13 of them made starting 100 dots take 15 ms, 7 of them 8 ms.
pub const TRACK_STEPS: usize = 6;

/// Where everything is drawn, for one topology.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Threads a cell stands for, and cells per replica.
    pub per_cell: u32,
    pub cells: u32,
}

/// The dependencies a replica calls (any endpoint's `calls`), in name order.
fn called(t: &Topology) -> Vec<String> {
    let mut names: Vec<String> = t
        .replicas
        .endpoints
        .values()
        .flat_map(|e| e.calls.iter().cloned())
        .filter(|d| t.dependencies.contains_key(d))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Lines of text a box holds (its height follows).
fn lines_of(kind: &NodeKind, t: &Topology) -> usize {
    match kind {
        NodeKind::Client(_) => 5,
        NodeKind::Door => 4 + usize::from(t.door.token_bucket.is_some()),
        NodeKind::Queue => 4,
        NodeKind::Replica(_) => {
            4 + t
                .replicas
                .stacks
                .values()
                .map(|s| {
                    usize::from(s.circuit_breaker.is_some()) + usize::from(s.bulkhead.is_some())
                })
                .sum::<usize>()
        }
        NodeKind::Dependency(_) => 6,
    }
}

fn column(kinds: Vec<NodeKind>, x: f64, w: f64, t: &Topology, extra: f64) -> Vec<Node> {
    let mut y = 0.0;
    kinds
        .into_iter()
        .map(|kind| {
            let cells = if matches!(kind, NodeKind::Replica(_)) {
                extra
            } else {
                0.0
            };
            let h = 2.0 * PAD + LINE * lines_of(&kind, t) as f64 + cells;
            let node = Node { kind, x, y, w, h };
            y += h + GAP;
            node
        })
        .collect()
}

/// Centres a column in `height`.
fn centre(nodes: &mut [Node], height: f64) {
    let Some(last) = nodes.last() else {
        return;
    };
    let used = last.y + last.h;
    let shift = ((height - used) / 2.0).max(0.0);
    for n in nodes {
        n.y += shift;
    }
}

/// The control points of the S-curve from one box's right side to the next one's left.
fn curve_points(from: (f64, f64), to: (f64, f64)) -> [(f64, f64); 4] {
    let dx = ((to.0 - from.0) / 2.0).max(10.0);
    [from, (from.0 + dx, from.1), (to.0 - dx, to.1), to]
}

fn curve(from: (f64, f64), to: (f64, f64)) -> String {
    let [a, b, c, d] = curve_points(from, to);
    format!(
        "M{} {} C{} {} {} {} {} {}",
        trim(a.0),
        trim(a.1),
        trim(b.0),
        trim(b.1),
        trim(c.0),
        trim(c.1),
        trim(d.0),
        trim(d.1)
    )
}

/// The cubic Bézier curve through `p` at `t` (0 to 1).
fn bezier(p: &[(f64, f64); 4], t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    (
        a * p[0].0 + b * p[1].0 + c * p[2].0 + d * p[3].0,
        a * p[0].1 + b * p[1].1 + c * p[2].1 + d * p[3].1,
    )
}

/// [`TRACK_STEPS`] + 1 points an equal distance apart along the curve `p`: the curve is
/// measured as 96 chords, and each point put where its share of the length falls.
fn track(p: &[(f64, f64); 4]) -> Vec<(f64, f64)> {
    const FINE: usize = 96;
    let fine: Vec<(f64, f64)> = (0..=FINE)
        .map(|i| bezier(p, i as f64 / FINE as f64))
        .collect();
    let mut lengths = vec![0.0];
    for w in fine.windows(2) {
        let last = lengths[lengths.len() - 1];
        lengths.push(last + (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1));
    }
    let total = lengths[FINE];
    let mut chord = 0;
    (0..=TRACK_STEPS)
        .map(|k| {
            let at = total * k as f64 / TRACK_STEPS as f64;
            while chord < FINE - 1 && lengths[chord + 1] < at {
                chord += 1;
            }
            let span = lengths[chord + 1] - lengths[chord];
            let f = if span > 0.0 {
                ((at - lengths[chord]) / span).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (a, b) = (fine[chord], fine[chord + 1]);
            (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)
        })
        .collect()
}

/// The diagram of `t` with `replicas` replicas (the most the run had).
pub fn layout(t: &Topology, replicas: usize) -> Layout {
    let per_cell = t.replicas.threads.div_ceil(MAX_CELLS).max(1);
    let cells = t.replicas.threads.div_ceil(per_cell);
    let cell_rows = cells.div_ceil(CELLS_PER_ROW);
    let cells_h = f64::from(cell_rows) * CELL + 4.0;
    let (cw, dw, rw, pw, gap) = (140.0, 135.0, 200.0, 155.0, 34.0);
    let x_door = cw + gap;
    let x_rep = x_door + dw + gap;
    let x_dep = x_rep + rw + gap;
    let deps = called(t);
    let mut clients = column(
        t.clients.keys().cloned().map(NodeKind::Client).collect(),
        0.0,
        cw,
        t,
        0.0,
    );
    let mut front = vec![NodeKind::Door];
    if t.waiting_room.is_some() {
        front.push(NodeKind::Queue);
    }
    let mut front = column(front, x_door, dw, t, 0.0);
    let shown = replicas.clamp(1, MAX_REPLICAS_SHOWN);
    let mut reps = column(
        (0..shown).map(NodeKind::Replica).collect(),
        x_rep,
        rw,
        t,
        cells_h,
    );
    let mut dependencies = column(
        t.dependencies
            .keys()
            .cloned()
            .map(NodeKind::Dependency)
            .collect(),
        x_dep,
        pw,
        t,
        0.0,
    );
    let height = [&clients, &front, &reps, &dependencies]
        .iter()
        .filter_map(|c| c.last().map(|n| n.y + n.h))
        .fold(0.0, f64::max);
    for c in [&mut clients, &mut front, &mut reps, &mut dependencies] {
        centre(c, height);
    }
    let mut nodes = Vec::new();
    nodes.extend(clients);
    nodes.extend(front);
    nodes.extend(reps);
    nodes.extend(dependencies);
    let index = |kind: &NodeKind| nodes.iter().position(|n| &n.kind == kind);
    let mut edges = Vec::new();
    let mut connect = |from: usize, to: usize, nodes: &[Node]| {
        let (a, b) = (&nodes[from], &nodes[to]);
        let (p, q) = if a.kind == NodeKind::Door && b.kind == NodeKind::Queue {
            ((a.x + a.w / 2.0, a.y + a.h), (b.x + b.w / 2.0, b.y))
        } else {
            (a.right(), b.left())
        };
        // A client's count by the client; the others half way, where edges from one
        // box part.
        let label_at = if matches!(a.kind, NodeKind::Client(_)) {
            (p.0 + 6.0, p.1 - 5.0)
        } else if p.0 == q.0 {
            (p.0 + 6.0, (p.1 + q.1) / 2.0 + 4.0)
        } else {
            ((p.0 + q.0) / 2.0 - 12.0, (p.1 + q.1) / 2.0 - 5.0)
        };
        let straight = p.0 == q.0;
        edges.push(Edge {
            from,
            to,
            d: if straight {
                format!("M{} {} L{} {}", trim(p.0), trim(p.1), trim(q.0), trim(q.1))
            } else {
                curve(p, q)
            },
            track: track(&if straight {
                [p, p, q, q]
            } else {
                curve_points(p, q)
            }),
            label_at,
        });
    };
    let door = index(&NodeKind::Door).unwrap_or(0);
    for (i, n) in nodes.iter().enumerate() {
        if matches!(n.kind, NodeKind::Client(_)) {
            connect(i, door, &nodes);
        }
    }
    let entry = match index(&NodeKind::Queue) {
        Some(queue) => {
            connect(door, queue, &nodes);
            queue
        }
        None => door,
    };
    for r in 0..shown {
        let Some(rep) = index(&NodeKind::Replica(r)) else {
            continue;
        };
        connect(entry, rep, &nodes);
        for d in &deps {
            if let Some(dep) = index(&NodeKind::Dependency(d.clone())) {
                connect(rep, dep, &nodes);
            }
        }
    }
    Layout {
        width: x_dep + pw + 2.0,
        height: height.max(60.0),
        nodes,
        edges,
        per_cell,
        cells,
    }
}

// ---- connecting by dragging ---------------------------------------------------------------

/// A box dragged onto dependency `dependency`: the connection it asks for. From a client,
/// the endpoint its users call now calls the dependency too. From a replica, the one
/// endpoint it serves does; a replica serving several endpoints cannot say which, so the
/// learner is sent to the clients (or the list view). Anything else is refused with a
/// sentence the page shows.
pub fn connect_by_drag(t: &Topology, from: &NodeKind, dependency: &str) -> Result<Edit, String> {
    let endpoint = match from {
        NodeKind::Client(name) => t
            .clients
            .get(name)
            .map(|c| c.endpoint.clone())
            .ok_or_else(|| format!("There is no client “{name}” any more."))?,
        NodeKind::Replica(_) => {
            let mut endpoints = t.replicas.endpoints.keys();
            match (endpoints.next(), endpoints.next()) {
                (Some(only), None) => only.clone(),
                _ => {
                    let all: Vec<&str> = t.replicas.endpoints.keys().map(String::as_str).collect();
                    return Err(format!(
                        "A replica serves {}: drag from the clients whose endpoint should call {dependency}, or tick it in the list below.",
                        all.join(", ")
                    ));
                }
            }
        }
        NodeKind::Door | NodeKind::Queue | NodeKind::Dependency(_) => {
            return Err(
                "Drag from a client or a replica to a dependency to connect them.".to_string(),
            );
        }
    };
    if !t.dependencies.contains_key(dependency) {
        return Err("Drop it on a dependency to connect them.".to_string());
    }
    if t.replicas
        .endpoints
        .get(&endpoint)
        .is_some_and(|e| e.calls.iter().any(|c| c == dependency))
    {
        return Err(format!("{endpoint} already calls {dependency}."));
    }
    Ok(Edit::Connect {
        endpoint,
        dependency: dependency.to_string(),
        on: true,
    })
}

// ---- what each box says at a second --------------------------------------------------------

fn probe_mark(result: Option<bool>) -> &'static str {
    match result {
        Some(true) => "✓",
        Some(false) => "✗",
        None => "–",
    }
}

fn client_lines(name: &str, t: &Topology, row: Option<&KeyRow>) -> Vec<String> {
    let class = t.clients.get(name).map_or("", |c| c.class.name());
    let empty = KeyRow::default();
    let r = row.unwrap_or(&empty);
    // Attempts (retries included) are the edge's count.
    vec![
        name.to_string(),
        format!("{class}: {} new", r.offered),
        format!("{} in time, {} late", r.in_time, r.late),
        // A fallback's answer is fast, not late: a line of its own.
        format!("{} from a fallback", r.fallback),
        format!("{} failed, {} refused", r.failed, r.rate_limited + r.shed),
    ]
}

/// The title and lines of `kind`'s box at second `s`.
pub fn node_lines(kind: &NodeKind, t: &Topology, s: &Second) -> Vec<String> {
    match kind {
        NodeKind::Client(name) => client_lines(name, t, s.clients.get(name)),
        NodeKind::Door => {
            let mut lines = vec!["The door".to_string()];
            if let Some(tb) = &t.door.token_bucket {
                lines.push(format!(
                    "{}/s a key, burst {}",
                    trim(tb.rate_per_second),
                    tb.burst
                ));
            }
            lines.push(match s.door.limit {
                Some(limit) if t.door.adaptive.is_some() => format!("limit {limit} (adaptive)"),
                Some(limit) => format!("limit {limit}"),
                None => "no limit".to_string(),
            });
            lines.push(format!("{} in flight", s.door.in_flight));
            lines.push(format!(
                "{} × 429, {} × 503",
                s.door.rate_limited, s.door.shed
            ));
            lines
        }
        NodeKind::Queue => {
            let (capacity, order) = t.waiting_room.as_ref().map_or((0, "FIFO"), |r| {
                (
                    r.capacity,
                    match r.order {
                        QueueOrder::Fifo => "FIFO",
                        QueueOrder::Lifo => "LIFO",
                    },
                )
            });
            vec![
                format!("Waiting room ({order})"),
                format!("{} of {capacity} waiting", s.queue.length),
                format!("oldest {} s", trim(s.queue.oldest_ms as f64 / 1000.0)),
                format!("{} stale dropped", s.queue.dropped_stale),
            ]
        }
        NodeKind::Replica(i) => {
            let Some(r) = s.replicas.get(*i) else {
                return vec![format!("order-{} (not started)", i + 1)];
            };
            let mut lines = vec![
                format!(
                    "{} {}{}",
                    r.name,
                    r.state.replace('_', " "),
                    if r.restarts > 0 {
                        format!(", restarted {}×", r.restarts)
                    } else {
                        String::new()
                    }
                ),
                format!("{} of {} threads busy", r.threads_busy, t.replicas.threads),
                format!(
                    "{} on payment, {} queued",
                    r.threads_on_payment, r.accept_queue
                ),
                format!(
                    "probes: start {} live {} ready {}",
                    probe_mark(r.probes.startup),
                    probe_mark(r.probes.liveness),
                    probe_mark(r.probes.readiness)
                ),
            ];
            for (dep, stack) in &t.replicas.stacks {
                let key = format!("{}/{dep}", r.name);
                if stack.circuit_breaker.is_some() {
                    let state = s.breakers.get(&key).map_or("–", String::as_str);
                    lines.push(format!("{dep} breaker {state}"));
                }
                if let Some(b) = &stack.bulkhead {
                    let used = s.bulkheads.get(&key).copied().unwrap_or(0);
                    lines.push(format!(
                        "{dep} bulkhead {used} of {}",
                        b.max_concurrent_calls
                    ));
                }
            }
            lines
        }
        NodeKind::Dependency(name) => {
            let workers = t.dependencies.get(name).map_or(0, |d| d.workers);
            let Some(d) = s.dependencies.get(name) else {
                return vec![name.clone()];
            };
            let mut lines = vec![
                format!("{name} ({})", d.state),
                format!("{} of {workers} workers", d.in_flight),
                format!("{} calls, {} queued", d.offered, d.queue),
                format!("{} answered", d.served),
                format!("{} wasted, {} refused", d.wasted, d.refused),
            ];
            // Charges are payment's (the report's `payment`); another dependency's answers
            // are not charges.
            if name == "payment" && d.charges + d.declines > 0 {
                lines.push(format!(
                    "{} charged, {} twice",
                    d.charges, d.duplicate_charges
                ));
            }
            lines
        }
    }
}

/// The state a box's border shows (`data-state`).
pub fn node_state(kind: &NodeKind, s: &Second) -> String {
    match kind {
        NodeKind::Replica(i) => s
            .replicas
            .get(*i)
            .map_or("absent".to_string(), |r| r.state.clone()),
        NodeKind::Dependency(name) => s
            .dependencies
            .get(name)
            .map_or(String::new(), |d| d.state.clone()),
        _ => String::new(),
    }
}

/// How many of a replica's cells are waiting on payment, and how many are busy in all, at
/// second `s`.
fn cell_bounds(per_cell: u32, t: &Topology, s: &Second, replica: usize) -> (u32, u32) {
    let threads = t.replicas.threads;
    let (on_payment, busy) = s.replicas.get(replica).map_or((0, 0), |r| {
        (
            r.threads_on_payment.min(threads),
            r.threads_busy.min(threads),
        )
    });
    (
        on_payment.div_ceil(per_cell),
        busy.max(on_payment).div_ceil(per_cell),
    )
}

fn cell_class((pay_cells, busy_cells): (u32, u32), cell: u32) -> &'static str {
    if cell < pay_cells {
        "cell-payment"
    } else if cell < busy_cells {
        "cell-local"
    } else {
        "cell-free"
    }
}

/// A replica's cells at second `s`: waiting on payment first, then local work, then free.
pub fn cell_classes(
    layout: &Layout,
    t: &Topology,
    s: &Second,
    replica: usize,
) -> Vec<&'static str> {
    let bounds = cell_bounds(layout.per_cell, t, s, replica);
    (0..layout.cells).map(|c| cell_class(bounds, c)).collect()
}

// ---- requests on the edges -----------------------------------------------------------------

/// What became of the requests a dot stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    InTime,
    Late,
    Failed,
    Refused,
}

impl Outcome {
    pub fn class(self) -> &'static str {
        match self {
            Outcome::InTime => "box-dot dot-ok",
            Outcome::Late => "box-dot dot-late",
            Outcome::Failed => "box-dot dot-failed",
            Outcome::Refused => "box-dot dot-refused",
        }
    }
}

/// The requests on one edge in one second.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    pub edge: usize,
    pub count: u64,
    pub dots: Vec<Outcome>,
}

/// Dots for `count` requests: 1 + log2(count), at most [`MAX_DOTS_PER_EDGE`].
pub fn dots_for(count: u64) -> usize {
    if count == 0 {
        0
    } else {
        (1 + count.ilog2() as usize).min(MAX_DOTS_PER_EDGE)
    }
}

/// `n` dots shared between outcomes in proportion to `weights` (largest remainder), in an
/// interleaved order so that every outcome shows along the edge.
fn share(n: usize, weights: [(Outcome, u64); 4]) -> Vec<Outcome> {
    let total: u64 = weights.iter().map(|(_, w)| w).sum();
    if n == 0 || total == 0 {
        return vec![Outcome::InTime; n];
    }
    let mut counts: Vec<(Outcome, usize, u64)> = weights
        .iter()
        .map(|&(o, w)| {
            let exact = w * n as u64;
            (o, (exact / total) as usize, exact % total)
        })
        .collect();
    let mut left = n - counts.iter().map(|c| c.1).sum::<usize>();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by(|&a, &b| counts[b].2.cmp(&counts[a].2));
    for i in order {
        if left == 0 {
            break;
        }
        if counts[i].2 > 0 {
            counts[i].1 += 1;
            left -= 1;
        }
    }
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let before = out.len();
        for c in counts.iter_mut() {
            if c.1 > 0 {
                out.push(c.0);
                c.1 -= 1;
            }
        }
        if out.len() == before {
            break;
        }
    }
    out
}

/// The flow on every edge of `layout` at second `s`. Requests are split evenly across
/// replicas (the balancer's round robin), and a dependency's calls across the replicas
/// that call it.
pub fn flows(layout: &Layout, s: &Second) -> Vec<Flow> {
    let classes = [
        &s.classes.critical,
        &s.classes.important,
        &s.classes.sheddable,
    ];
    let sum = |f: fn(&resilience_sim::model::boxoffice::report::ClassRow) -> u64| -> u64 {
        classes.iter().map(|c| f(c)).sum()
    };
    let admitted = sum(|c| c.admitted);
    let served = [
        (Outcome::InTime, sum(|c| c.in_time)),
        (Outcome::Late, sum(|c| c.late + c.fallback)),
        (Outcome::Failed, sum(|c| c.failed)),
        (Outcome::Refused, 0),
    ];
    let replicas = layout
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Replica(_)))
        .count()
        .max(1) as u64;
    let ready = s.replicas.iter().filter(|r| r.ready).count().max(1) as u64;
    let mut out: Vec<Flow> = layout
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (from, to) = (&layout.nodes[e.from].kind, &layout.nodes[e.to].kind);
            let (count, weights) = match (from, to) {
                (NodeKind::Client(name), _) => {
                    let r = s.clients.get(name).cloned().unwrap_or_default();
                    (
                        r.attempts,
                        [
                            (Outcome::InTime, r.in_time),
                            (Outcome::Late, r.late + r.fallback),
                            (Outcome::Failed, r.failed),
                            (Outcome::Refused, r.rate_limited + r.shed),
                        ],
                    )
                }
                (NodeKind::Door, NodeKind::Queue) => (admitted, served),
                // The balancer sends only to ready replicas.
                (_, NodeKind::Replica(r)) if s.replicas.get(*r).is_some_and(|r| r.ready) => {
                    (admitted.div_ceil(ready), served)
                }
                (_, NodeKind::Replica(_)) => (0, served),
                (NodeKind::Replica(_), NodeKind::Dependency(name)) => {
                    let d = s.dependencies.get(name).cloned().unwrap_or_default();
                    (
                        d.offered.div_ceil(replicas),
                        [
                            (Outcome::InTime, d.served),
                            (Outcome::Late, d.wasted),
                            (Outcome::Failed, d.refused),
                            (Outcome::Refused, 0),
                        ],
                    )
                }
                _ => (0, served),
            };
            Flow {
                edge: i,
                count,
                dots: share(dots_for(count), weights),
            }
        })
        .collect();
    // Many edges share the page's dots out.
    let total: usize = out.iter().map(|f| f.dots.len()).sum();
    if total > MAX_DOTS {
        for f in &mut out {
            let keep = (f.dots.len() * MAX_DOTS / total).max(usize::from(!f.dots.is_empty()));
            f.dots.truncate(keep);
        }
    }
    out
}

/// The most dots each of `edges` edges carries in any of `seconds`: the slots it needs.
pub fn slots_per_edge(layout: &Layout, seconds: &[Second]) -> Vec<usize> {
    let mut most = vec![0; layout.edges.len()];
    for s in seconds {
        for f in flows(layout, s) {
            if let Some(m) = most.get_mut(f.edge) {
                *m = (*m).max(f.dots.len());
            }
        }
    }
    most
}

/// The dots of `flows` in the diagram's dot slots, `slots[e]` for edge `e`, edge after
/// edge, each edge's evenly spaced along it. An edge's `n` dots take slots spread over the
/// edge in their order; the others stay empty.
pub fn dot_slots(slots: &[usize], flows: &[Flow]) -> Vec<Option<Outcome>> {
    let first: Vec<usize> = slots
        .iter()
        .scan(0, |at, n| {
            let first = *at;
            *at += n;
            Some(first)
        })
        .collect();
    let mut out = vec![None; slots.iter().sum()];
    for f in flows {
        let Some(&m) = slots.get(f.edge) else {
            continue;
        };
        let n = f.dots.len().min(m);
        for (k, outcome) in f.dots.iter().take(n).enumerate() {
            out[first[f.edge] + k * m / n] = Some(*outcome);
        }
    }
    out
}

// ---- the component ---------------------------------------------------------------------------

/// How long a dot takes along an edge.
const DOT_SECONDS: f64 = 1.6;

fn text_lines(lines: Vec<String>, x: f64, y: f64) -> impl IntoView {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let class = if i == 0 { "box-title" } else { "" };
            view! {
                <text x=trim(x + PAD) y=trim(y + PAD + LINE * (i as f64 + 0.8)) class=class>{line}</text>
            }
        })
        .collect_view()
}

/// The system drawn for `topology` at the second `second` of the run.
#[component]
pub fn SystemDiagram(
    topology: Signal<Option<Topology>>,
    layout: Memo<Option<Layout>>,
    second: Memo<Option<Second>>,
    /// The dots' layer for the run that is in, if any ([`DotPlan`]).
    dots: Signal<Option<DotPlan>>,
    /// A box clicked: the component it stands for.
    on_pick: Callback<NodeKind>,
    /// A client or replica dragged onto a dependency: the connection it asks for, or why
    /// there is none ([`connect_by_drag`]).
    on_connect: Callback<Result<Edit, String>>,
) -> impl IntoView {
    // The drag under way, if any. A touch moves the page rather than drawing a
    // connection (the diagram scrolls on a phone): touch and keyboard use the list view.
    let drag = RwSignal::new(None::<Drag>);
    let draw = move || {
        layout.get().map(|l| {
            let nodes = l
                .nodes
                .iter()
                .enumerate()
                .map(|(index, node)| {
                    let Node { kind, x, y, w, h } = node.clone();
                    let state_kind = kind.clone();
                    let lines_kind = kind.clone();
                    let label = node_lines_label(&kind);
                    let picked = kind.clone();
                    let cells = if let NodeKind::Replica(r) = kind {
                        let cells_y = y + PAD + LINE * 2.0 + 2.0;
                        let per_cell = l.per_cell;
                        // The replica's threads read once a second, for all its cells.
                        let bounds = Memo::new(move |_| {
                            topology.with(|t| {
                                second.with(|s| match (t, s) {
                                    (Some(t), Some(s)) => cell_bounds(per_cell, t, s, r),
                                    _ => (0, 0),
                                })
                            })
                        });
                        (0..l.cells)
                            .map(|c| {
                                let class = move || cell_class(bounds.get(), c);
                                view! {
                                    <rect class=class width="5.5" height="5.5"
                                        x=trim(x + PAD + f64::from(c % CELLS_PER_ROW) * CELL)
                                        y=trim(cells_y + f64::from(c / CELLS_PER_ROW) * CELL) />
                                }
                            })
                            .collect_view()
                            .into_any()
                    } else {
                        ().into_any()
                    };
                    // A replica's probes and breakers go under its cells.
                    let shift = if matches!(kind, NodeKind::Replica(_)) {
                        f64::from(l.cells.div_ceil(CELLS_PER_ROW)) * CELL + 4.0
                    } else {
                        0.0
                    };
                    let lines = move || {
                        topology.with(|t| {
                            second.with(|s| match (t, s) {
                                (Some(t), Some(s)) => {
                                    let mut lines = node_lines(&lines_kind, t, s);
                                    if shift > 0.0 && lines.len() > 2 {
                                        let rest = lines.split_off(2);
                                        view! {
                                            {text_lines(lines, x, y)}
                                            {text_lines_from(rest, x, y + shift, 2)}
                                        }
                                        .into_any()
                                    } else {
                                        text_lines(lines, x, y).into_any()
                                    }
                                }
                                _ => ().into_any(),
                            })
                        })
                    };
                    let state = move || second.with(|s| s.as_ref().map(|s| node_state(&state_kind, s)));
                    view! {
                        <g class="box-node" data-component=kind.component() data-state=state
                            data-node=index.to_string()
                            role="group" aria-label=label
                            on:click=move |_| on_pick.run(picked.clone())>
                            <rect class="box-frame" x=trim(x) y=trim(y) width=trim(w) height=trim(h) rx="8" />
                            {lines}
                            {cells}
                        </g>
                    }
                })
                .collect_view();
            let edges = l
                .edges
                .iter()
                .map(|e| view! { <path class="box-edge" d=e.d.clone() /> })
                .collect_view();
            let shape = l.clone();
            let counts = move || {
                second.with(|s| {
                    s.as_ref().map(|s| {
                        flows(&shape, s)
                            .into_iter()
                            .filter(|f| f.count > 0)
                            .map(|f| {
                                let (x, y) = shape.edges[f.edge].label_at;
                                view! { <text class="box-count" x=trim(x) y=trim(y)>{format!("{}/s", f.count)}</text> }
                            })
                            .collect_view()
                    })
                })
            };
            let (view_w, view_h) = (l.width + 4.0, l.height + 4.0);
            let shape = l.clone();
            let grab = move |ev: leptos::ev::PointerEvent| {
                if ev.button() != 0 || ev.pointer_type() == "touch" {
                    return;
                }
                let Some(node) = node_at(&ev, &shape) else {
                    return;
                };
                if matches!(node.kind, NodeKind::Client(_) | NodeKind::Replica(_)) {
                    // No text selection while dragging.
                    ev.prevent_default();
                    let start = node.right();
                    drag.set(Some(Drag { from: node.kind.clone(), start, at: start, moved: false }));
                }
            };
            let follow = move |ev: leptos::ev::PointerEvent| {
                // Most moves over the diagram are no drag: nothing to redraw.
                if drag.with_untracked(Option::is_none) {
                    return;
                }
                let Some(at) = diagram_point(&ev, view_w, view_h) else {
                    return;
                };
                drag.update(|d| {
                    if let Some(d) = d {
                        // A few units of slack, so a click with a shaking hand stays a click.
                        if !d.moved && (at.0 - d.start.0).hypot(at.1 - d.start.1) < 6.0 {
                            return;
                        }
                        if !d.moved {
                            // From now on the svg gets the pointer's events, wherever it
                            // goes (and the box no longer takes the release as a click).
                            capture(&ev);
                        }
                        d.moved = true;
                        d.at = at;
                    }
                });
            };
            let shape_at_drop = l.clone();
            let drop = move |ev: leptos::ev::PointerEvent| {
                let Some(d) = drag.get_untracked() else {
                    return;
                };
                drag.set(None);
                if !d.moved {
                    return;
                }
                let onto = match pointed_node(&ev).and_then(|i| shape_at_drop.nodes.get(i)) {
                    Some(Node { kind: NodeKind::Dependency(name), .. }) => Some(name.clone()),
                    _ => None,
                };
                let result = topology.with_untracked(|t| match (t, onto) {
                    (Some(t), Some(dependency)) => connect_by_drag(t, &d.from, &dependency),
                    _ => Err("Drop it on a dependency to connect them.".to_string()),
                });
                on_connect.run(result);
            };
            // The line from the box to the pointer, while dragging.
            let draft = move || {
                drag.with(|d| {
                    d.as_ref().filter(|d| d.moved).map(|d| {
                        format!(
                            "M{} {} L{} {}",
                            trim(d.start.0),
                            trim(d.start.1),
                            trim(d.at.0),
                            trim(d.at.1)
                        )
                    })
                })
            };
            view! {
                <svg class="box-diagram" data-testid="box-system" viewBox=format!("-2 -2 {} {}", trim(view_w), trim(view_h))
                    role="group" aria-labelledby="box-system-heading"
                    on:pointerdown=grab on:pointermove=follow on:pointerup=drop
                    on:pointercancel=move |_| drag.set(None)>
                    <g class="box-edges" aria-hidden="true">{edges}</g>
                    {nodes}
                    <g class="box-counts" aria-hidden="true">{counts}</g>
                    <path class="box-draft" aria-hidden="true" d=draft />
                </svg>
            }
        })
    };
    view! {
        // Shown on a narrow screen only (style/boxoffice.css): half the system is out of view
        // there. The region's label says the same to a screen reader.
        <p class="box-scroll-hint" aria-hidden="true">
            "The system is wider than the screen: scroll it sideways to see the rest."
        </p>
        // A region the keyboard can reach, so a phone-width diagram scrolls without a pointer.
        <div class="box-diagram-scroll" tabindex="0" role="region" aria-label="The system (scrolls sideways on a narrow screen)">
            // The dots move on the compositor, in a layer of their own under the drawing:
            // the page does no work per frame, and the boxes and counts stay on top.
            <div class="box-diagram-stack">
                <DotLayer plan=dots second=second />
                {draw}
            </div>
        </div>
    }
}

/// What the dots' layer draws: the drawing's shape and, for each edge, room for the most
/// dots it carries in the run ([`slots_per_edge`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DotPlan {
    pub layout: Layout,
    pub slots: Vec<usize>,
}

impl DotPlan {
    pub fn new(layout: &Layout, seconds: &[Second]) -> Self {
        Self {
            slots: slots_per_edge(layout, seconds),
            layout: layout.clone(),
        }
    }
}

/// The dots, made when the plan changes (a run installed, another shape), not when the
/// second shown does: every edge's slots move from the start, and a second colours the
/// ones it uses, so scrubbing or playing changes classes only.
#[component]
fn DotLayer(plan: Signal<Option<DotPlan>>, second: Memo<Option<Second>>) -> impl IntoView {
    // The dots' animations under way. An animation outlives its element (a removed dot
    // would keep the page's clock busy for ever), so each redraw ends the last one's.
    let moving = StoredValue::new_local(Vec::<web_sys::Animation>::new());
    let stop_moving = move || {
        moving.try_update_value(|all| all.drain(..).for_each(|a| a.cancel()));
    };
    on_cleanup(stop_moving);
    let dots = move || {
        stop_moving();
        let DotPlan { layout, slots } = plan.get()?;
        let (view_w, view_h) = (layout.width + 4.0, layout.height + 4.0);
        let tracks: Vec<Keyframes> = layout
            .edges
            .iter()
            .map(|e| Keyframes::along(&e.track, view_w, view_h))
            .collect();
        let per_edge = slots.clone();
        let shown = Memo::new(move |_| {
            second.with(|s| match s {
                Some(s) => dot_slots(&slots, &flows(&layout, s)),
                None => vec![None; slots.iter().sum()],
            })
        });
        // Slot `first + slot` of the plan is the edge's `slot`th dot.
        let mut first = 0;
        let mut dots = Vec::with_capacity(per_edge.iter().sum());
        for (keyframes, m) in tracks.into_iter().zip(per_edge) {
            for slot in 0..m {
                let index = first + slot;
                let motion = DotMotion {
                    keyframes: keyframes.clone(),
                    phase: slot as f64 / m as f64,
                    moving,
                };
                let class = move || {
                    shown.with(|s| {
                        s.get(index)
                            .copied()
                            .flatten()
                            .map_or("box-dot idle", Outcome::class)
                    })
                };
                dots.push(view! { <i class=class use:move_along=motion /> });
            }
            first += m;
        }
        Some(dots)
    };
    view! { <div class="box-dots" aria-hidden="true">{dots}</div> }
}

/// A dot's motion along an edge: the edge's keyframes, shared by its dots, and where along
/// the edge this dot is (0 to 1) when the document's clock is at a whole lap.
#[derive(Clone)]
struct DotMotion {
    keyframes: Keyframes,
    phase: f64,
    /// Where the animation goes, to be ended with the dot.
    moving: StoredValue<Vec<web_sys::Animation>, LocalStorage>,
}

/// An edge's track as Web Animations keyframes: `translate` in the units of the dots'
/// layer (a size container as large as the drawing), so the dots follow the drawing at any
/// width with no script on a resize.
#[derive(Clone)]
struct Keyframes(js_sys::Array);

impl Keyframes {
    fn along(track: &[(f64, f64)], view_w: f64, view_h: f64) -> Self {
        let frames = js_sys::Array::new();
        for &(x, y) in track {
            // The view box starts at (-2, -2).
            let transform = format!(
                "translate({}cqw, {}cqh)",
                trim((x + 2.0) / view_w * 100.0),
                trim((y + 2.0) / view_h * 100.0)
            );
            let frame = js_sys::Object::new();
            // An own property of a new plain object: this cannot fail.
            let _ = js_sys::Reflect::set(&frame, &"transform".into(), &transform.into());
            frames.push(&frame);
        }
        Keyframes(frames)
    }
}

/// Sets a dot moving along its edge, for ever. A transform animation runs on the
/// compositor (unlike SVG's `animateMotion`, which repaints the page every frame). Its
/// start is fixed against the document's timeline, so an edge's dots keep their spacing
/// whenever each was made.
fn move_along(el: web_sys::Element, motion: DotMotion) {
    let lap = DOT_SECONDS * 1000.0;
    let options = js_sys::Object::new();
    // Own properties of a new plain object: these cannot fail.
    let _ = js_sys::Reflect::set(&options, &"duration".into(), &lap.into());
    let _ = js_sys::Reflect::set(&options, &"iterations".into(), &f64::INFINITY.into());
    let el: &Animatable = wasm_bindgen::JsCast::unchecked_ref(&el);
    let animation = el.animate(&motion.keyframes.0, &options);
    animation.set_start_time(Some(-motion.phase * lap));
    motion.moving.try_update_value(|all| all.push(animation));
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// An element, with `animate(keyframes, options)`: web-sys has that only behind its
    /// unstable APIs' flag, though every browser has shipped it for years.
    #[wasm_bindgen(extends = web_sys::Element)]
    type Animatable;
    #[wasm_bindgen(method)]
    fn animate(
        this: &Animatable,
        keyframes: &js_sys::Array,
        options: &js_sys::Object,
    ) -> web_sys::Animation;
}

/// A drag from a client or replica: where it started (the box's right edge) and where the
/// pointer is, in the diagram's coordinates; `moved` once it is a drag, not a click.
#[derive(Debug, Clone, PartialEq)]
struct Drag {
    from: NodeKind,
    start: (f64, f64),
    at: (f64, f64),
    moved: bool,
}

/// The pointer in the coordinates of the svg the handler is on (its view box is
/// `view_w` by `view_h` from (-2, -2), drawn at whatever size the page gives it).
fn diagram_point(ev: &leptos::ev::PointerEvent, view_w: f64, view_h: f64) -> Option<(f64, f64)> {
    use wasm_bindgen::JsCast;
    let svg = ev.current_target()?.dyn_into::<web_sys::Element>().ok()?;
    let r = svg.get_bounding_client_rect();
    if r.width() <= 0.0 || r.height() <= 0.0 {
        return None;
    }
    Some((
        -2.0 + (f64::from(ev.client_x()) - r.left()) * view_w / r.width(),
        -2.0 + (f64::from(ev.client_y()) - r.top()) * view_h / r.height(),
    ))
}

fn capture(ev: &leptos::ev::PointerEvent) {
    use wasm_bindgen::JsCast;
    if let Some(svg) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    {
        let _ = svg.set_pointer_capture(ev.pointer_id());
    }
}

/// The index of the box under the pointer, if any (read from the page: with the pointer
/// captured, the event's target is the svg, wherever the pointer is).
fn pointed_node(ev: &leptos::ev::PointerEvent) -> Option<usize> {
    document()
        .element_from_point(ev.client_x() as f32, ev.client_y() as f32)?
        .closest("[data-node]")
        .ok()
        .flatten()?
        .get_attribute("data-node")?
        .parse()
        .ok()
}

/// The box the pointer went down on.
fn node_at<'a>(ev: &leptos::ev::PointerEvent, layout: &'a Layout) -> Option<&'a Node> {
    layout.nodes.get(pointed_node(ev)?)
}

fn text_lines_from(lines: Vec<String>, x: f64, y: f64, first: usize) -> impl IntoView {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            view! {
                <text x=trim(x + PAD) y=trim(y + PAD + LINE * ((first + i) as f64 + 0.8))>{line}</text>
            }
        })
        .collect_view()
}

/// What a screen reader announces for a box.
fn node_lines_label(kind: &NodeKind) -> String {
    match kind {
        NodeKind::Client(name) => format!("Clients: {name}"),
        NodeKind::Door => "The door".to_string(),
        NodeKind::Queue => "The waiting room".to_string(),
        NodeKind::Replica(i) => format!("Replica order-{}", i + 1),
        NodeKind::Dependency(name) => format!("Dependency {name}"),
    }
}

/// Counts a test can read: requests per edge kind at a second.
pub fn edge_totals(layout: &Layout, s: &Second) -> BTreeMap<&'static str, u64> {
    let mut out = BTreeMap::new();
    for f in flows(layout, s) {
        let e = &layout.edges[f.edge];
        *out.entry(layout.nodes[e.from].kind.component())
            .or_insert(0) += f.count;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::scenario::boxoffice_lab::BoxOfficeLab;

    /// A fallback's answer comes fast: the clients' box counts it apart from the late ones
    /// (the cascading failure's bulkhead answers most purchases from its fallback).
    #[test]
    fn a_client_box_counts_fallbacks_apart_from_late_answers() {
        let (t, seconds) = run_of("cascading-failure", "bulkhead");
        let s = &seconds[30];
        let row = s.clients.get("purchases").expect("purchases");
        assert!(row.fallback > 0 && row.late == 0, "{row:?}");
        let lines = client_lines("purchases", &t, Some(row));
        assert_eq!(
            lines.len(),
            lines_of(&NodeKind::Client("purchases".into()), &t)
        );
        assert_eq!(lines[2], format!("{} in time, 0 late", row.in_time));
        assert_eq!(lines[3], format!("{} from a fallback", row.fallback));
    }

    fn run_of(scenario: &'static str, variant: &'static str) -> (Topology, Vec<Second>) {
        let mut lab = BoxOfficeLab::default();
        (lab.scenario, lab.variant, lab.seed) = (scenario, variant, 1);
        let run = lab.sim().unwrap().finish();
        (lab.topology().unwrap(), run.seconds)
    }

    #[test]
    fn a_client_dragged_onto_a_dependency_connects_its_endpoint() {
        let (t, _) = run_of("cascading-failure", "unprotected");
        // The holds call the hold endpoint, which calls nothing yet.
        assert_eq!(
            connect_by_drag(&t, &NodeKind::Client("holds".into()), "payment"),
            Ok(Edit::Connect {
                endpoint: "hold".into(),
                dependency: "payment".into(),
                on: true,
            })
        );
        // Purchases already call payment: nothing to do, and the page says so.
        assert_eq!(
            connect_by_drag(&t, &NodeKind::Client("purchases".into()), "payment"),
            Err("purchase already calls payment.".into())
        );
        // Dropped anywhere but on a dependency.
        assert!(connect_by_drag(&t, &NodeKind::Client("holds".into()), "").is_err());
        // The door and the dependencies are not where a call starts.
        assert!(connect_by_drag(&t, &NodeKind::Door, "payment").is_err());
    }

    #[test]
    fn a_replica_connects_only_when_it_serves_one_endpoint() {
        // Three endpoints: which one is the learner's to say, not the page's.
        let (t, _) = run_of("cascading-failure", "unprotected");
        let refused = connect_by_drag(&t, &NodeKind::Replica(0), "payment").unwrap_err();
        assert!(
            refused.starts_with("A replica serves catalog, hold, purchase: "),
            "{refused}"
        );
        // The retry storm's replicas serve purchase alone, which already calls payment.
        let (t, _) = run_of("retry-storm", "naive-retries");
        assert_eq!(
            connect_by_drag(&t, &NodeKind::Replica(0), "payment"),
            Err("purchase already calls payment.".into())
        );
    }

    #[test]
    fn the_layout_follows_the_request_path() {
        let (t, _) = run_of("rate-limiter", "no-limit");
        let l = layout(&t, 1);
        // 3 clients, the door, 1 replica, 2 dependencies.
        assert_eq!(l.nodes.len(), 7);
        // Each client to the door, the door to the replica, the replica to both.
        assert_eq!(l.edges.len(), 3 + 1 + 2);
        // 3,000 threads: a cell is 60 of them, 50 cells.
        assert_eq!((l.per_cell, l.cells), (60, 50));
        for e in &l.edges {
            let (a, b) = (&l.nodes[e.from], &l.nodes[e.to]);
            assert!(a.x < b.x, "{:?} before {:?}", a.kind, b.kind);
        }
        // No two boxes overlap.
        for (i, a) in l.nodes.iter().enumerate() {
            for b in &l.nodes[i + 1..] {
                let apart =
                    a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
                assert!(apart, "{:?} and {:?}", a.kind, b.kind);
            }
        }
    }

    #[test]
    fn a_dot_s_track_runs_from_box_to_box_at_a_steady_speed() {
        let (t, _) = run_of("flash-sale", "waiting-room");
        let l = layout(&t, 4);
        let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1) < 0.01;
        let mut curves = 0;
        for e in &l.edges {
            let (a, b) = (&l.nodes[e.from], &l.nodes[e.to]);
            assert_eq!(e.track.len(), TRACK_STEPS + 1);
            let (first, last) = (e.track[0], e.track[TRACK_STEPS]);
            if a.kind == NodeKind::Door && b.kind == NodeKind::Queue {
                // Straight down, from the door's bottom to the waiting room's top.
                assert!(close(first, (a.x + a.w / 2.0, a.y + a.h)), "{first:?}");
                assert!(close(last, (b.x + b.w / 2.0, b.y)), "{last:?}");
            } else {
                assert!(
                    close(first, a.right()) && close(last, b.left()),
                    "{:?}",
                    e.track
                );
            }
            // Steps of one length (within a hundredth of the curve's own), each shorter
            // than the curve, which is never shorter than the straight line between ends.
            let steps: Vec<f64> = e
                .track
                .windows(2)
                .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
                .collect();
            let total: f64 = steps.iter().sum();
            let ends = (last.0 - first.0).hypot(last.1 - first.1);
            assert!(total >= ends - 1e-9);
            for step in &steps {
                assert!(
                    (step - total / TRACK_STEPS as f64).abs() < total * 0.01,
                    "{steps:?}"
                );
            }
            // An S-curve is symmetric about its middle: half way along is half way between.
            if first.1 != last.1 && first.0 != last.0 {
                curves += 1;
                let mid = e.track[TRACK_STEPS / 2];
                assert!(
                    close(mid, ((first.0 + last.0) / 2.0, (first.1 + last.1) / 2.0)),
                    "{mid:?}"
                );
            }
        }
        assert!(
            curves > 0,
            "the flash sale's replicas fan out to the dependencies"
        );
    }

    #[test]
    fn a_waiting_room_sits_under_the_door_and_feeds_the_replicas() {
        let (t, _) = run_of("flash-sale", "waiting-room");
        let l = layout(&t, 4);
        let door = l
            .nodes
            .iter()
            .position(|n| n.kind == NodeKind::Door)
            .unwrap();
        let queue = l
            .nodes
            .iter()
            .position(|n| n.kind == NodeKind::Queue)
            .unwrap();
        assert!(l.nodes[queue].y > l.nodes[door].y);
        assert!(l.edges.iter().any(|e| e.from == door && e.to == queue));
        let into_replicas = l
            .edges
            .iter()
            .filter(|e| matches!(l.nodes[e.to].kind, NodeKind::Replica(_)))
            .collect::<Vec<_>>();
        assert_eq!(into_replicas.len(), 4);
        assert!(into_replicas.iter().all(|e| e.from == queue));
    }

    #[test]
    fn the_boxes_say_the_cascading_failures_second() {
        let (t, seconds) = run_of("cascading-failure", "bulkhead");
        let s = &seconds[30];
        let replica = node_lines(&NodeKind::Replica(0), &t, s);
        // The spec: the bulkhead holds payment's threads at 50 of the replica's 200.
        assert_eq!(
            replica[1],
            format!("{} of 200 threads busy", s.replicas[0].threads_busy)
        );
        assert!(replica[2].starts_with("50 on payment"), "{replica:?}");
        assert!(
            replica.contains(&"payment bulkhead 50 of 50".to_string()),
            "{replica:?}"
        );
        let l = layout(&t, 1);
        let cells = cell_classes(&l, &t, s, 0);
        // 200 threads: 50 cells of 4; 50 on payment fill 13 cells.
        assert_eq!(cells.len(), 50);
        assert_eq!(cells.iter().filter(|c| **c == "cell-payment").count(), 13);
        let dep = node_lines(&NodeKind::Dependency("payment".into()), &t, s);
        assert!(dep[0].starts_with("payment (slow"), "{dep:?}");
    }

    #[test]
    fn the_door_counts_its_refusals() {
        let (t, seconds) = run_of("rate-limiter", "token-bucket");
        let s = seconds.iter().find(|s| s.door.rate_limited > 0).unwrap();
        let door = node_lines(&NodeKind::Door, &t, s);
        assert!(door[1].starts_with("10/s a key, burst"), "{door:?}");
        assert!(door
            .last()
            .unwrap()
            .starts_with(&format!("{} × 429", s.door.rate_limited)));
    }

    #[test]
    fn dots_grow_with_the_log_of_the_flow_and_follow_the_outcomes() {
        assert_eq!(dots_for(0), 0);
        assert_eq!(dots_for(1), 1);
        assert_eq!(dots_for(3), 2);
        assert_eq!(dots_for(16), 5);
        assert_eq!(dots_for(1_000_000), MAX_DOTS_PER_EDGE);
        let dots = share(
            6,
            [
                (Outcome::InTime, 50),
                (Outcome::Late, 0),
                (Outcome::Failed, 0),
                (Outcome::Refused, 50),
            ],
        );
        assert_eq!(dots.len(), 6);
        assert_eq!(dots.iter().filter(|o| **o == Outcome::Refused).count(), 3);
        // Interleaved, not in blocks.
        assert_ne!(dots[0], dots[1]);
        // A rare outcome still gets a dot when the remainder goes its way.
        let rare = share(
            2,
            [
                (Outcome::InTime, 99),
                (Outcome::Late, 0),
                (Outcome::Failed, 1),
                (Outcome::Refused, 0),
            ],
        );
        assert_eq!(rare, vec![Outcome::InTime, Outcome::InTime]);
    }

    #[test]
    fn an_edge_s_dots_take_slots_spread_along_it() {
        use Outcome::*;
        let flow = |edge, dots: Vec<Outcome>| Flow {
            edge,
            count: 1,
            dots,
        };
        // Edge 0 has room for 6 dots, edge 1 none, edge 2 for 2.
        let slots = dot_slots(
            &[6, 0, 2],
            &[
                flow(0, vec![InTime, Refused, InTime]),
                flow(2, vec![Failed; 2]),
            ],
        );
        assert_eq!(slots.len(), 8);
        // Three dots on six slots: every other slot, in their order.
        assert_eq!(
            &slots[..6],
            &[Some(InTime), None, Some(Refused), None, Some(InTime), None]
        );
        assert_eq!(&slots[6..], &[Some(Failed), Some(Failed)]);
        // Any number of dots keeps its outcomes, with gaps that differ by at most a slot.
        for m in 1..=MAX_DOTS_PER_EDGE {
            for n in 1..=m {
                let slots = dot_slots(&[m], &[flow(0, vec![Late; n])]);
                let filled: Vec<usize> = (0..m).filter(|&i| slots[i].is_some()).collect();
                assert_eq!(filled.len(), n);
                let gaps: Vec<usize> = (0..n)
                    .map(|k| (filled[(k + 1) % n] + m - filled[k] - 1) % m + 1)
                    .collect();
                assert!(
                    gaps.iter().max().unwrap() - gaps.iter().min().unwrap() <= 1,
                    "{n} of {m}: {filled:?}"
                );
            }
        }
    }

    #[test]
    fn an_edge_has_a_slot_for_each_dot_it_ever_carries() {
        let (t, seconds) = run_of("flash-sale", "scale-out");
        let l = layout(
            &t,
            seconds.iter().map(|s| s.replicas.len()).max().unwrap_or(1),
        );
        let most = slots_per_edge(&l, &seconds);
        assert_eq!(most.len(), l.edges.len());
        for s in &seconds {
            let flows = flows(&l, s);
            assert!(flows.iter().all(|f| f.dots.len() <= most[f.edge]));
            // Every dot of the second finds its slot.
            let shown = dot_slots(&most, &flows);
            assert_eq!(
                shown.iter().flatten().count(),
                flows.iter().map(|f| f.dots.len()).sum::<usize>()
            );
        }
        // Some edge carries the most an edge may, and no edge more.
        assert_eq!(most.iter().max(), Some(&MAX_DOTS_PER_EDGE));
    }

    #[test]
    fn the_flash_sales_edges_carry_the_door_s_refusals() {
        let (t, seconds) = run_of("flash-sale", "priority-shedding");
        let l = layout(&t, seconds.iter().map(|s| s.replicas.len()).max().unwrap());
        let peak = seconds.iter().max_by_key(|s| s.door.shed).unwrap();
        assert!(peak.door.shed > 0);
        let f = flows(&l, peak);
        let refused = f
            .iter()
            .flat_map(|f| f.dots.iter())
            .filter(|o| **o == Outcome::Refused)
            .count();
        assert!(refused > 0, "the 503s show as grey dots");
        assert!(f.iter().map(|f| f.dots.len()).sum::<usize>() <= MAX_DOTS);
        let totals = edge_totals(&l, peak);
        let attempts: u64 = peak.clients.values().map(|c| c.attempts).sum();
        assert_eq!(totals["clients"], attempts);
    }
}
