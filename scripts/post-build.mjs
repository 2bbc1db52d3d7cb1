// Trunk's post_build hook (Trunk.toml): finishes the parts of the course (src/part.rs).
//
// - Trunk names the parts built as `data-type="worker"` links by their binary alone
//   (`brownout.js`, `brownout_bg.wasm`); each gets a content hash, as Trunk gives the main
//   link (already `tick-demos-<hash>.js`), so a host may cache them for ever.
// - Every part's bindings and start.js are minified with terser (Trunk's own minifier
//   cannot read wasm-bindgen's `export default`): about 3 KB gzip off every demo.
// - Each part's pages get one stylesheet, made of the sheets in style/ they use (SHEETS
//   below), minified with lightningcss (the engine Trunk minifies with) and content-hashed.
// - start.js gets each part's file names in FILES.
//
//   node scripts/post-build.mjs [DIR]   (DIR defaults to $TRUNK_STAGING_DIR)
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'lightningcss';
import { minify } from 'terser';

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('post-build: no directory (set TRUNK_STAGING_DIR or pass one)');
  process.exit(2);
}
const release = process.env.TRUNK_PROFILE !== 'debug';

async function minified(path) {
  const code = await readFile(path, 'utf8');
  if (!release) return code;
  const out = await minify(code, { module: true, ecma: 2020 });
  return out.code;
}

const startPath = join(dir, 'start.js');
const start = await readFile(startPath, 'utf8');
const table = start.match(/const PART_OF_DEMO = \{([^}]*)\}/);
const tools = start.match(/const TOOLS = '([a-z-]+)'/);
const landing = start.match(/const LANDING = '([a-z-]+)'/);
if (!table || !tools || !landing || !start.includes('const FILES = {};')) {
  console.error('post-build: start.js has no PART_OF_DEMO, TOOLS, LANDING or empty FILES');
  process.exit(1);
}
const parts = new Set([...table[1].matchAll(/'([a-z-]+)'/g)].map((m) => m[1]));
parts.add(tools[1]);
parts.add(landing[1]);

const files = {};
const names = await readdir(dir);
for (const part of parts) {
  const hashed = names.find((n) => new RegExp(`^${part}-[0-9a-f]+\\.js$`).test(n));
  if (hashed) {
    const wasm = hashed.replace(/\.js$/, '_bg.wasm');
    if (!names.includes(wasm)) throw new Error(`post-build: ${hashed} without ${wasm}`);
    await writeFile(join(dir, hashed), await minified(join(dir, hashed)));
    files[part] = { js: hashed, wasm };
    continue;
  }
  const js = await minified(join(dir, `${part}.js`));
  const wasm = await readFile(join(dir, `${part}_bg.wasm`));
  const hash = createHash('sha256').update(js).update(wasm).digest('hex').slice(0, 16);
  files[part] = { js: `${part}-${hash}.js`, wasm: `${part}-${hash}_bg.wasm` };
  await writeFile(join(dir, files[part].js), js);
  await rename(join(dir, `${part}_bg.wasm`), join(dir, files[part].wasm));
  await rm(join(dir, `${part}.js`));
}
// Each page's stylesheet: the sheets of style/ its part's pages use, in this order, as one
// minified file (one request, compressed as one; a page loads no other page's rules). The
// tools part has two: `css`, its dialogs' rules alone, added to the page that opens one,
// and `page`, the overview's (the rules every page uses, then its own).
const SHEETS = {
  'tick-demos': ['site', 'tick', 'breaker'],
  amplification: ['site', 'labs'],
  jitter: ['site', 'labs'],
  sandbox: ['site', 'labs', 'breaker', 'sandbox'],
  pool: ['site', 'labs', 'pool'],
  brownout: ['site', 'labs', 'brownout'],
  checkout: ['site', 'labs', 'breaker', 'checkout'],
  boxoffice: ['site', 'labs', 'boxoffice'],
  'retry-policies': ['site', 'labs', 'retry-policies'],
  [landing[1]]: ['site', 'landing'],
  [tools[1]]: ['tools'],
};
const OVERVIEW = ['site', 'tools'];
const styleDir = join(dir, 'style');
const used = new Set([...Object.values(SHEETS), OVERVIEW].flat());
for (const name of await readdir(styleDir)) {
  if (!used.has(name.replace(/\.css$/, ''))) throw new Error(`post-build: style/${name} is in no part's sheet`);
}
async function sheet(name, sources) {
  let css = (await Promise.all(sources.map((s) => readFile(join(styleDir, `${s}.css`), 'utf8')))).join('\n');
  if (release) css = transform({ filename: `${name}.css`, code: Buffer.from(css), minify: true }).code;
  const hashed = `${name}-${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css`;
  await writeFile(join(dir, hashed), css);
  return hashed;
}
for (const part of parts) {
  if (!SHEETS[part]) throw new Error(`post-build: no stylesheet for the part ${part}`);
  files[part].css = await sheet(part, SHEETS[part]);
}
files[tools[1]].page = await sheet('overview', OVERVIEW);
await rm(styleDir, { recursive: true });
await writeFile(startPath, start.replace('const FILES = {};', `const FILES = ${JSON.stringify(files)};`));
await writeFile(startPath, await minified(startPath));
console.log(`post-build: ${[...parts].join(', ')}`);
