// Trunk's post_build hook (Trunk.toml). Trunk names the parts of the course built as
// `data-type="worker"` links by their binary name alone (`brownout.js`,
// `brownout_bg.wasm`). This gives each file a content hash, as Trunk does for the main
// link (already `tick-demos-<hash>.js`), so a host may cache them for ever, and writes
// every part's names into start.js's FILES.
//   node scripts/hash-parts.mjs [DIR]   (DIR defaults to $TRUNK_STAGING_DIR)
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('hash-parts: no directory (set TRUNK_STAGING_DIR or pass one)');
  process.exit(2);
}
const startPath = join(dir, 'start.js');
const start = await readFile(startPath, 'utf8');
const table = start.match(/const PART_OF_DEMO = \{([^}]*)\}/);
const tools = start.match(/const TOOLS = '([a-z-]+)'/);
if (!table || !tools || !start.includes('const FILES = {};')) {
  console.error('hash-parts: start.js has no PART_OF_DEMO, TOOLS or empty FILES');
  process.exit(1);
}
const parts = new Set([...table[1].matchAll(/'([a-z-]+)'/g)].map((m) => m[1]));
parts.add(tools[1]);

const files = {};
const names = await readdir(dir);
for (const part of parts) {
  const hashed = names.find((n) => new RegExp(`^${part}-[0-9a-f]+\\.js$`).test(n));
  if (hashed) {
    const js = hashed;
    const wasm = js.replace(/\.js$/, '_bg.wasm');
    if (!names.includes(wasm)) throw new Error(`hash-parts: ${js} without ${wasm}`);
    files[part] = { js, wasm };
    continue;
  }
  const js = await readFile(join(dir, `${part}.js`));
  const wasm = await readFile(join(dir, `${part}_bg.wasm`));
  const hash = createHash('sha256').update(js).update(wasm).digest('hex').slice(0, 16);
  files[part] = { js: `${part}-${hash}.js`, wasm: `${part}-${hash}_bg.wasm` };
  await rename(join(dir, `${part}.js`), join(dir, files[part].js));
  await rename(join(dir, `${part}_bg.wasm`), join(dir, files[part].wasm));
}
await writeFile(startPath, start.replace('const FILES = {};', `const FILES = ${JSON.stringify(files)};`));
console.log(`hash-parts: ${[...parts].join(', ')}`);
