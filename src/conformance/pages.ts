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

/**
 * The lab: a list whose buttons can be reordered and replaced (refs must follow their element, never
 * their position), and one control per advertised feature (upload, select, keys, hover, cookie,
 * storage, console, download, a tall page for full-page screenshots).
 */
const LAB = `<!doctype html>
<html><head><meta charset="utf-8"><title>Conformance lab</title>
<style>body{font:16px sans-serif;margin:24px} button,input,select{font:inherit;margin:4px} #tall{height:2400px}</style></head>
<body>
<h1>Conformance lab</h1>
<p id="picked">Picked: none</p>
<ul id="fruits">
<li><button type="button" data-fruit="Apple">Pick Apple</button></li>
<li><button type="button" data-fruit="Banana">Pick Banana</button></li>
<li><button type="button" data-fruit="Cherry">Pick Cherry</button></li>
</ul>
<button id="reverse" type="button">Reverse the list</button>
<button id="replace" type="button">Replace Cherry with Damson</button>
<p><label for="file">Attachment</label> <input id="file" type="file"></p>
<p id="file-status">File: none</p>
<p><label for="colour">Colour</label> <select id="colour"><option value="red">Red</option><option value="green">Green</option></select></p>
<p id="colour-status">Colour: red</p>
<p><label for="keys">Key field</label> <input id="keys" type="text" autocomplete="off"></p>
<p id="key-status">Key: none</p>
<button id="hover" type="button">Hover over me</button>
<p id="hover-status">Hover: no</p>
<p id="cookie-status">Cookie: unset</p>
<button id="set-cookie" type="button">Set the cookie</button>
<p><a id="download" href="/conformance-download.txt" download>Download the file</a></p>
<p><a id="second" href="/second.html">Second page</a></p>
<p id="scroll-status">Scrolled: no</p>
<div id="tall"></div>
<p id="bottom">Bottom of the lab</p>
<script>
  const $ = (id) => document.getElementById(id);
  const list = $('fruits');
  list.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (b) $('picked').textContent = 'Picked: ' + b.dataset.fruit;
  });
  $('reverse').addEventListener('click', () => {
    for (const li of [...list.children].reverse()) list.appendChild(li);
  });
  $('replace').addEventListener('click', () => {
    const old = list.querySelector('[data-fruit="Cherry"]');
    if (!old) return;
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.fruit = 'Damson';
    b.textContent = 'Pick Damson';
    old.replaceWith(b);
  });
  $('file').addEventListener('change', (e) => {
    $('file-status').textContent = 'File: ' + [...e.target.files].map((f) => f.name).join(', ');
  });
  $('colour').addEventListener('change', (e) => { $('colour-status').textContent = 'Colour: ' + e.target.value; });
  $('keys').addEventListener('keydown', (e) => { $('key-status').textContent = 'Key: ' + e.key; });
  $('hover').addEventListener('mouseenter', () => { $('hover-status').textContent = 'Hover: yes'; });
  $('cookie-status').textContent = document.cookie.includes('conformance_cookie=1') ? 'Cookie: set' : 'Cookie: unset';
  $('set-cookie').addEventListener('click', () => {
    document.cookie = 'conformance_cookie=1; path=/';
    $('cookie-status').textContent = 'Cookie: set';
  });
  addEventListener('scroll', () => { $('scroll-status').textContent = 'Scrolled: yes'; }, { once: true });
  localStorage.setItem('conformance_key', 'conformance-value');
  console.log('conformance-console-line');
</script>
</body></html>`;

export const PAGES: Record<string, string> = { '/form.html': FORM, '/second.html': SECOND, '/lab.html': LAB };

/** What /conformance-download.txt serves (as an attachment). */
export const DOWNLOAD_TEXT = 'conformance download\n';

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/conformance-download.txt') {
      res
        .writeHead(200, {
          'content-type': 'text/plain',
          'content-disposition': 'attachment; filename="conformance-download.txt"',
        })
        .end(DOWNLOAD_TEXT);
      return;
    }
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
