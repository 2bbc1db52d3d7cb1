// Trunk's post_build hook (Trunk.toml): finishes the parts of the course (src/part.rs).
//
// - Trunk names the parts built as `data-type="worker"` links by their binary alone
//   (`brownout.js`, `brownout_bg.wasm`); each gets a content hash, as Trunk gives the main
//   link (already `tick-demos-<hash>.js`), so a host may cache them for ever.
// - Every part's bindings and start.js are minified with terser (Trunk's own minifier
//   cannot read wasm-bindgen's `export default`): about 3 KB gzip off every demo.
// - The stylesheets start.js loads with the parts that use them (the labs', Demo 14's, the
//   tools'), copied as they are, are minified with lightningcss (the engine Trunk minifies
//   the linked stylesheets with: the labs' 6.5 to 4.6 KB gzip) and get a content hash too.
// - start.js gets each part's file names, and the stylesheets', in FILES.
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
// The stylesheets start.js links for some parts only (every quoted `*.css` name in it):
// minified (Trunk minifies only the ones index.html links) and content-hashed.
const sheets = new Set([...start.matchAll(/'([a-z-]+\.css)'/g)].map((m) => m[1]));
if (!sheets.has('labs.css')) throw new Error('post-build: start.js names no labs.css');
for (const sheet of sheets) {
  let css = await readFile(join(dir, sheet));
  if (release) {
    css = transform({ filename: sheet, code: css, minify: true }).code;
    await writeFile(join(dir, sheet), css);
  }
  const hashed = sheet.replace(/\.css$/, `-${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css`);
  await rename(join(dir, sheet), join(dir, hashed));
  files[sheet] = hashed;
}
await writeFile(startPath, start.replace('const FILES = {};', `const FILES = ${JSON.stringify(files)};`));
await writeFile(startPath, await minified(startPath));
console.log(`post-build: ${[...parts].join(', ')}`);
