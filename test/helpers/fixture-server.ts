import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Test fixture server on 127.0.0.1 with a random port.
 *   /corpus/...    → ../shared/corpus/ (Readability pages, TodoMVC apps)
 *   /fixtures/...  → test/fixtures/pages/
 *   /slow?ms=N     → an HTML page whose response arrives after N ms
 *   /redirect?to=U → 302 to U
 *   /echo          → a page showing the request method, URL and body
 *   /private/...   → test/fixtures/pages/http/... only with the cookie tw_img=1 (else 403)
 * It blocks nothing itself: tests that load corpus pages block outside hosts in the browser.
 */
export interface FixtureServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The same server under another origin (http://localhost:PORT), for cross-origin tests. */
  altUrl: string;
  port: number;
  close(): Promise<void>;
}

const here = fileURLToPath(new URL('.', import.meta.url));
export const FIXTURE_ROOT = resolve(here, '../fixtures/pages');
export const CORPUS_ROOT = resolve(here, '../../../shared/corpus');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

function serveFile(root: string, rel: string, res: ServerResponse): void {
  const path = normalize(join(root, decodeURIComponent(rel)));
  if (!path.startsWith(root)) {
    res.writeHead(403).end('forbidden');
    return;
  }
  let file = path;
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  if (!existsSync(file)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-store',
  });
  createReadStream(file).pipe(res);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const u = new URL(req.url ?? '/', 'http://127.0.0.1');
  const p = u.pathname;
  if (p.startsWith('/corpus/')) return serveFile(CORPUS_ROOT, p.slice('/corpus/'.length), res);
  if (p.startsWith('/fixtures/')) return serveFile(FIXTURE_ROOT, p.slice('/fixtures/'.length), res);
  if (p.startsWith('/private/')) {
    if (!/(?:^|;\s*)tw_img=1(?:;|$)/.test(req.headers.cookie ?? '')) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('cookie required');
      return;
    }
    return serveFile(join(FIXTURE_ROOT, 'http'), p.slice('/private/'.length), res);
  }
  if (p === '/slow') {
    const ms = Number(u.searchParams.get('ms') ?? '1000');
    setTimeout(() => {
      if (!res.destroyed)
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>slow ${ms}</title><p>slow</p>`);
    }, ms);
    return;
  }
  if (p === '/redirect') {
    res.writeHead(302, { location: u.searchParams.get('to') ?? '/' }).end();
    return;
  }
  if (p === '/echo') {
    let body = '';
    for await (const chunk of req) body += chunk;
    const safe = (s: string) => s.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'));
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<title>echo</title><pre id="method">${req.method}</pre><pre id="url">${safe(req.url ?? '')}</pre><pre id="body">${safe(body)}</pre>`,
      );
    return;
  }
  if (p === '/basic-auth') {
    // HTTP basic auth as user "tw" / password "s3cret": 401 with a Basic challenge until the right header.
    if (req.headers.authorization !== `Basic ${Buffer.from('tw:s3cret').toString('base64')}`) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="fixtures"', 'content-type': 'text/html' });
      res.end('<title>401</title><p>login required</p>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>authorized</title><p id="who">tw</p>');
    return;
  }
  if (p === '/status') {
    const code = Number(u.searchParams.get('code') ?? '200');
    res.writeHead(code, { 'content-type': 'text/html' }).end(`<title>status ${code}</title>`);
    return;
  }
  if (p === '/' || p === '/index.html') {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<title>tabwright fixtures</title><h1>fixtures</h1>');
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end('fixture server error');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    altUrl: `http://localhost:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
