import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The suite's own deterministic test pages, served on 127.0.0.1 (a random
 * port): no network, no timing beyond the fixed delays written here.
 */
const FORM = `<!doctype html>
<html><head><meta charset="utf-8"><title>Conformance form</title>
<style>body{font:16px sans-serif;margin:24px} button,input{font:inherit;margin:4px}</style></head>
<body>
<h1>Conformance form</h1>
<p id="count">Count: 0</p>
<button id="inc" type="button">Increment</button>
<p><label for="name">Your name</label> <input id="name" type="text" autocomplete="off"></p>
<p id="echo">Hello, nobody</p>
<button id="later" type="button">Reveal later</button>
<p id="status">Idle</p>
<button id="rm" type="button">Remove me</button>
<a id="next" href="/second.html">Second page</a>
<script>
  let n = 0;
  document.getElementById('inc').addEventListener('click', () => {
    n += 1;
    document.getElementById('count').textContent = 'Count: ' + n;
  });
  document.getElementById('name').addEventListener('input', (e) => {
    document.getElementById('echo').textContent = 'Hello, ' + (e.target.value || 'nobody');
  });
  document.getElementById('later').addEventListener('click', () => {
    setTimeout(() => { document.getElementById('status').textContent = 'Ready now'; }, 300);
  });
  document.getElementById('rm').addEventListener('click', (e) => e.currentTarget.remove());
</script>
</body></html>`;

const SECOND = `<!doctype html>
<html><head><meta charset="utf-8"><title>Conformance second</title></head>
<body><h1>Second page</h1><a href="/form.html">Back to the form</a></body></html>`;

export const PAGES: Record<string, string> = { '/form.html': FORM, '/second.html': SECOND };

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const body = PAGES[path === '/' ? '/form.html' : path];
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
