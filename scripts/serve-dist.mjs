// A small static server for dist/ on 127.0.0.1: used by scripts/serve.sh and the e2e tests.
// Usage: node scripts/serve-dist.mjs DIR PORT   (PORT 0 picks a free port)
// Prints "serving http://127.0.0.1:PORT/" once it listens.
// Like a static host that compresses, it gzips text and wasm for a browser that accepts it,
// so the bytes a test counts are those a learner downloads.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const [dir = 'dist', portArg = '8080'] = process.argv.slice(2);
const root = resolve(dir);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.toml': 'text/plain; charset=utf-8',
  '.png': 'image/png',
};

const compressible = new Set(['.html', '.js', '.wasm', '.css', '.svg', '.json', '.toml']);
const gzipped = new Map();
function gzip(file, body) {
  const cached = gzipped.get(file);
  if (cached?.raw.equals(body)) return cached.gz;
  const gz = gzipSync(body, { level: 9 });
  gzipped.set(file, { raw: body, gz });
  return gz;
}

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = normalize(join(root, path));
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  if (path.endsWith('/')) file = join(file, 'index.html');
  try {
    let body = await readFile(file);
    const headers = {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
    };
    if (compressible.has(extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      body = gzip(file, body);
      headers['content-encoding'] = 'gzip';
    }
    res.writeHead(200, headers);
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
});

server.listen(Number(portArg), '127.0.0.1', () => {
  console.log(`serving http://127.0.0.1:${server.address().port}/`);
});
