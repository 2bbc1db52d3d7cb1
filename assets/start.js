// Starts the playground. A file rather than Trunk's inline start-up script, so the site
// runs under a Content-Security-Policy without 'unsafe-inline' (see index.html). Trunk
// writes the hashed names of the bindings and the wasm on this script's tag
// (Trunk.toml: pattern_script).
const tag = document.querySelector('script[data-wasm]');
const { default: init } = await import(new URL(tag.dataset.js, document.baseURI).href);
await init({ module_or_path: new URL(tag.dataset.wasm, document.baseURI) });
