// Starts the playground. The course is built in parts (src/part.rs), one wasm each, so a
// demo opened alone or embedded downloads only its own part. This file picks the part from
// the address, loads it, and prefetches the parts of the demos the page links to once
// those links come into view or the browser is idle.
//
// A file rather than an inline script: the site runs under a Content-Security-Policy
// without 'unsafe-inline' (see index.html). PART_OF_DEMO must be src/part.rs's table (a
// test compares them); FILES is written at build time by scripts/post-build.mjs (Trunk's
// post_build hook) with each part's hashed file names.

const PART_OF_DEMO = {1: 'tick-demos', 2: 'tick-demos', 3: 'tick-demos', 4: 'tick-demos', 5: 'tick-demos', 6: 'tick-demos', 7: 'tick-demos', 8: 'amplification', 9: 'jitter', 10: 'sandbox', 11: 'pool', 12: 'brownout', 13: 'checkout', 14: 'boxoffice', 15: 'retry-policies'};
const TOOLS = 'course-tools';
// The front page (the address names no demo): a part of its own, with no engine.
const LANDING = 'landing';
const FILES = {};

const base = document.baseURI;
const url = (name) => new URL(name, base).href;

// The same reading of the query as the app's (src/url_state.rs, src/embed.rs): its first
// 100 parameters, decoded (`+` a space, a `%` without two hex digits as typed; text that
// is not UTF-8 matches none of the names below either way); the last `demo` that names a
// demo wins, a bad one opens Demo 1; `overview` and `embed` as flags; no `demo` at all,
// outside a frame, is the front page. Read otherwise, the page would load one part and
// the app ask for another (`?demo=%31%34`).
const MAX_QUERY_PAIRS = 100;
function decode(text) {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    return text;
  }
}
function partOf(search) {
  let part = 'tick-demos';
  let overview = false;
  let embed = false;
  let demo = false;
  const pairs = search.replace(/^\?/, '').split('&').filter((p) => p !== '').slice(0, MAX_QUERY_PAIRS);
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    const value = at < 0 ? '' : decode(pair.slice(at + 1));
    const flag = ['', '1', 'true'].includes(value);
    if (key === 'demo') {
      demo = true;
      if (/^\+?[0-9]+$/.test(value) && PART_OF_DEMO[Number(value)]) part = PART_OF_DEMO[Number(value)];
    } else if (key === 'overview' && flag) {
      overview = true;
    } else if (key === 'embed' && flag) {
      embed = true;
    }
  }
  if (overview) return TOOLS;
  return demo || embed ? part : LANDING;
}

// A page's stylesheet, linked once (a failed load draws the page anyway).
const sheets = new Map();
function stylesheet(name) {
  if (!sheets.has(name)) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = url(name);
    sheets.set(name, new Promise((resolve) => { link.onload = link.onerror = resolve; }));
    document.head.append(link);
  }
  return sheets.get(name);
}
// The sheet of a part's pages (FILES, from scripts/post-build.mjs): the tools part as a
// page is the overview; its dialogs bring only their own rules to the page that opens them.
const sheetOf = (part) => (part === TOOLS ? FILES[TOOLS].page : FILES[part].css);

// A part's bindings, loaded once: the wasm and the sheet are fetched while the bindings
// load, and the part starts drawing once its rules are in.
const loading = new Map();
function load(part, sheet) {
  if (!loading.has(part)) {
    const files = FILES[part];
    const wasm = fetch(url(files.wasm));
    loading.set(part, Promise.all([import(url(files.js)), stylesheet(sheet)]).then(async ([bindings]) => {
      await bindings.default({ module_or_path: wasm });
      return bindings;
    }));
  }
  return loading.get(part);
}

// The tools part, for the app: `globalThis.resiliencePlaygroundTools()` resolves to its
// exports (src/tools.rs), loaded on first use with its dialogs' stylesheet.
globalThis.resiliencePlaygroundTools = () => load(TOOLS, FILES[TOOLS].css);

const prefetched = new Set();
function prefetch(part) {
  if (prefetched.has(part) || loading.has(part) || !FILES[part]) return;
  prefetched.add(part);
  const names = [FILES[part].js, FILES[part].wasm];
  if (!sheets.has(sheetOf(part))) names.push(sheetOf(part));
  for (const name of names) {
    const link = document.createElement('link');
    link.rel = 'prefetch';
    link.href = url(name);
    document.head.append(link);
  }
}

function partOfLink(a) {
  const href = a.getAttribute('href');
  if (!href || !href.startsWith('?')) return null;
  return partOf(href);
}

// Links into another part: the pager's (the next and previous demo) and the front page's
// "Start" prefetched when the browser is idle, a link in the demo's own text when it comes
// into view, a link of the course list or of the front page's path when the pointer or
// the focus reaches it (each shows all fifteen at once: fetching them all would cost
// several times the page itself). Nothing is prefetched in a course page's frame, nor
// when the browser asks to save data.
const quiet = /(^|[?&])embed(=1|=true)?(&|$)/.test(location.search) || navigator.connection?.saveData;
const seen = new WeakSet();
const inView = 'IntersectionObserver' in window
  ? new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) {
          const part = partOfLink(e.target);
          if (part) prefetch(part);
          inView.unobserve(e.target);
        }
      }
    })
  : null;
const idle = window.requestIdleCallback ?? ((f) => setTimeout(f, 200));
let scheduled = false;
function watchLinks() {
  scheduled = false;
  for (const a of document.querySelectorAll('main a[href^="?"]')) {
    if (seen.has(a)) continue;
    seen.add(a);
    if (a.matches('.demo-pager a, .landing-start a[href^="?demo="]')) {
      const part = partOfLink(a);
      if (part) prefetch(part);
    } else if (inView && !a.closest('.landing')) {
      inView.observe(a);
    }
  }
}
function schedule() {
  if (!scheduled) {
    scheduled = true;
    idle(watchLinks);
  }
}
function intent(e) {
  const a = e.target.closest?.('a[href^="?"]');
  const part = a && partOfLink(a);
  if (part) prefetch(part);
}

const running = partOf(location.search);
const bindings = await load(running, sheetOf(running));
if (running === TOOLS) bindings.mount_overview();
prefetched.add(running);
if (!quiet) {
  schedule();
  // A new page is a new child of <main>: watching only that keeps a tick's many changes
  // deep in the page from making records here.
  const main = document.querySelector('main') ?? document.body;
  new MutationObserver(schedule).observe(main, { childList: true });
  document.addEventListener('pointerover', intent, { passive: true });
  document.addEventListener('focusin', intent);
}
