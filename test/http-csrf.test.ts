import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Session } from '../src/index.js';
import { FIXTURE_ROOT } from './helpers/fixture-server.js';
import { type DoorHarness, doorHarness, type Json, rawRequest } from './helpers/http.js';

/**
 * Web pages on other loopback origins (127.0.0.2, localhost:<port>, 127.0.0.1:<other port>) try to
 * drive `tabwright serve` in a real Chromium with what needs no CORS preflight: no-cors fetch with a
 * text/plain body, an enctype=text/plain form, sendBeacon. Nothing they send may happen: no task, no
 * answer, no live-view input, no staged file, no MCP session. The server's own pages keep working.
 */

let h: DoorHarness;
let id: string;
let requestId: string;
let attackers: Session;
let otherHost: Server;
let otherHostUrl: string;

const ATTACK = readFileSync(join(FIXTURE_ROOT, 'csrf/attack.html'));
const INPUT_PAGE = 'data:text/html,<title>typing</title><input id="t" autofocus>';

async function inputValue(): Promise<string> {
  const r = await h.ok(id, 'execute_js', { body: 'return document.getElementById("t").value' });
  return String(r.result);
}

before(async () => {
  h = await doorHarness();
  id = await h.start();
  await h.ok(id, 'go_to_url', { url: INPUT_PAGE });
  requestId = (await h.ok(id, 'request_human_input', { prompt: 'Only the person answers this' })).requestId;
  // The attack page on 127.0.0.2: another loopback address is another site.
  otherHost = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ATTACK);
  });
  await new Promise<void>((r) => otherHost.listen(0, '127.0.0.2', r));
  otherHostUrl = `http://127.0.0.2:${(otherHost.address() as AddressInfo).port}`;
  attackers = await h.engine.startSession({}, { timeoutMs: 30_000 });
});
after(async () => {
  await attackers?.close().catch(() => {});
  await new Promise((r) => otherHost?.close(r));
  await h?.close();
});

/** What a hostile page sends to each route of the server at `base`; `who` (digits) + technique number make task ids. */
function plan(base: string, who: string): { url: string; body: string }[] {
  return [
    {
      url: `${base}/playwright/command`,
      body: JSON.stringify({ id: `${who}@N@`, method: 'start', params: {} }),
    },
    { url: `${base}/dashboard/api/answer`, body: JSON.stringify({ requestId, answer: 'pwned' }) },
    { url: `${base}/dashboard/api/tasks/${id}/input`, body: JSON.stringify({ type: 'text', text: 'pwned' }) },
    {
      url: `${base}/mcp`,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'evil', version: '1' },
        },
      }),
    },
    { url: `${base}/playwright/upload?filename=evil-${who}-@T@.txt`, body: 'stolen' },
  ];
}

async function attackFrom(origin: string, who: string): Promise<void> {
  const targets = [h.server.url, h.server.url.replace('127.0.0.1', 'localhost')];
  const steps = targets.flatMap((t, i) => plan(t, `${who}${i}`));
  const page = await attackers.newPage();
  const since = attackers.requests.lastSeq;
  await page.open(`${origin}/fixtures/csrf/attack.html#${encodeURIComponent(JSON.stringify(steps))}`);
  await page.wait({ js_predicate: 'document.title === "done"' }, {}, { timeoutMs: 30_000 });
  // What reached the server, as the browser saw it: every attempt answered 403 by the request guard.
  // Beacons are fire-and-forget, so wait (bounded) until every attempt has its answer in the log.
  const answered = () =>
    attackers.requests
      .list({ page_id: page.id, since_seq: since, limit: 1000 })
      .filter((r) => targets.some((t) => r.url.startsWith(t)));
  let sent = answered();
  for (let end = Date.now() + 20_000; Date.now() < end; sent = answered()) {
    if (sent.length >= steps.length * 3 && sent.every((r) => r.status !== null || r.state === 'failed'))
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(
    sent.length,
    steps.length * 3,
    `three techniques per route: ${JSON.stringify(sent.map((r) => r.url))}`,
  );
  for (const r of sent) {
    assert.equal(
      r.status,
      403,
      `${origin} → ${r.method} ${r.url} (${r.resource_type}): ${r.status} ${r.failure}`,
    );
  }
  await page.close();
}

describe('CSRF from other loopback origins, in a real browser', () => {
  test('pages on 127.0.0.2, localhost:<port> and 127.0.0.1:<other port> change nothing', async () => {
    await attackFrom(otherHostUrl, '771'); // task ids 7710x / 7711x
    await attackFrom(h.fixtures.altUrl, '772');
    await attackFrom(h.fixtures.url, '773');
    // A legitimate client sees only its own task, the request still open, the input untouched.
    const tasks = (await h.ok(undefined, 'list_tasks')).tasks as Json[];
    assert.deepEqual(
      tasks.map((t) => t.id),
      [id],
    );
    const human = await h.ok(id, 'get_human_input', { requestId });
    assert.equal(human.status, 'pending');
    assert.equal(await inputValue(), '');
    const staged = await (await fetch(`${h.server.url}/playwright/upload`)).json();
    assert.deepEqual(
      (staged.data.files as Json[]).filter((f) => String(f.filename).startsWith('evil')),
      [],
    );
  });

  test("the server's own pages still work: the dashboard's JSON POSTs answer and type", async () => {
    for (const base of [h.server.url, h.server.url.replace('127.0.0.1', 'localhost')]) {
      const page = await attackers.newPage();
      await page.open(`${base}/`);
      const r = await page.evaluateScript(
        `async (taskId, text) => {
          const res = await fetch('/dashboard/api/tasks/' + taskId + '/input', {
            method: 'POST', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'text', text }),
          });
          return [res.status, await res.json()];
        }`,
        { args: [id, base.includes('localhost') ? 'B' : 'A'], timeoutMs: 15_000 },
      );
      assert.deepEqual(r.value, [200, { ok: true }]);
      await page.close();
    }
    assert.equal(await inputValue(), 'AB');
    const page = await attackers.newPage();
    await page.open(`${h.server.url}/`);
    const answered = await page.evaluateScript(
      `async (requestId) => {
        const res = await fetch('/dashboard/api/answer', {
          method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ requestId, answer: 'from the person' }),
        });
        return (await res.json()).data.status;
      }`,
      { args: [requestId], timeoutMs: 15_000 },
    );
    assert.equal(answered.value, 'answered');
    await page.close();
  });
});

/** A request with exact headers, as curl sends it; the reply parsed as JSON. */
async function raw(opts: {
  method?: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}): Promise<{ status: number; json: Json }> {
  const r = await rawRequest(h.server.port, opts);
  return { status: r.status, json: JSON.parse(r.body) as Json };
}

describe('the request guard answers refusals in each door’s own terms', () => {
  const host = () => `127.0.0.1:${h.server.port}`;
  const start = JSON.stringify({ id: '99', method: 'start' });

  test('the issue’s curl: a foreign loopback Origin with Sec-Fetch-Site cross-site and text/plain', async () => {
    const r = await raw({
      path: '/playwright/command',
      headers: {
        host: host(),
        origin: 'http://localhost:3000',
        'sec-fetch-site': 'cross-site',
        'content-type': 'text/plain',
      },
      body: start,
    });
    assert.equal(r.status, 403);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.code, 0);
    assert.equal(r.json.data.reason, 'origin');
    assert.equal(r.json.data.expectedOrigin, `http://${host()}`);
    assert.match(
      r.json.msg,
      /^拒绝访问：浏览器请求只接受本服务自己的页面（Origin 必须是 http:\/\/127\.0\.0\.1:\d+，收到 http:\/\/localhost:3000）/,
    );
  });

  test('Origin must be the server itself, Sec-Fetch-Site same-origin or none, whatever else is sent', async () => {
    const json = { host: host(), 'content-type': 'application/json' };
    const cases: [Record<string, string>, number, string | undefined][] = [
      [{ origin: `http://127.0.0.2:${h.server.port}` }, 403, 'origin'],
      [{ origin: `http://localhost:${h.server.port}` }, 403, 'origin'], // Host names 127.0.0.1
      [{ origin: `http://127.0.0.1:${h.server.port + 1}` }, 403, 'origin'],
      [{ origin: `https://127.0.0.1:${h.server.port}` }, 403, 'origin'],
      [{ origin: 'null' }, 403, 'origin'],
      [{ origin: `http://127.0.0.1:${h.server.port}`, 'sec-fetch-site': 'same-site' }, 403, 'fetch_site'],
      [{ origin: `http://127.0.0.1:${h.server.port}`, 'sec-fetch-site': 'cross-site' }, 403, 'fetch_site'],
      [{ 'sec-fetch-site': 'same-site' }, 403, 'fetch_site'],
      [{ origin: `http://127.0.0.1:${h.server.port}`, 'sec-fetch-site': 'same-origin' }, 200, undefined],
      [{ 'sec-fetch-site': 'none' }, 200, undefined],
      [{}, 200, undefined],
    ];
    for (const [extra, status, reason] of cases) {
      const r = await raw({
        path: '/playwright/command',
        headers: { ...json, ...extra },
        body: '{"method":"list_methods"}',
      });
      assert.equal(r.status, status, JSON.stringify(extra));
      assert.equal(r.json.data?.reason, reason, JSON.stringify(extra));
    }
    // The same under the other loopback name: the Host header decides what "the server itself" is.
    const viaLocalhost = await raw({
      path: '/playwright/command',
      headers: { ...json, host: `localhost:${h.server.port}`, origin: `http://localhost:${h.server.port}` },
      body: '{"method":"list_methods"}',
    });
    assert.equal(viaLocalhost.status, 200);
  });

  test('POST bodies must be application/json (parameters allowed), except the staging route', async () => {
    for (const type of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    ]) {
      for (const path of [
        '/playwright/command',
        '/dashboard/api/answer',
        `/dashboard/api/tasks/${id}/input`,
      ]) {
        const r = await raw({
          path,
          headers: { host: host(), ...(type ? { 'content-type': type } : {}) },
          body: start,
        });
        assert.equal(r.status, 415, `${path} ${type}`);
        assert.equal(r.json.data.reason, 'content_type');
        assert.match(r.json.msg, /Content-Type 必须是 application\/json/);
      }
    }
    const ok = await raw({
      path: '/playwright/command',
      headers: { host: host(), 'content-type': 'Application/JSON; charset=utf-8' },
      body: '{"method":"list_methods"}',
    });
    assert.equal(ok.status, 200);
    // Upstream's clients stage files as raw bytes (dsb: application/octet-stream + ?filename=).
    const staged = await raw({
      path: '/playwright/upload?filename=ok.txt',
      headers: { host: host(), 'content-type': 'application/octet-stream' },
      body: 'hello',
    });
    assert.equal(staged.json.ok, true, JSON.stringify(staged.json));
    const foreign = await raw({
      path: '/playwright/upload?filename=evil.txt',
      headers: { host: host(), 'content-type': 'application/octet-stream', origin: 'http://127.0.0.2:8080' },
      body: 'stolen',
    });
    assert.equal(foreign.status, 403);
  });

  test('/mcp refuses in JSON-RPC, with the same statuses', async () => {
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const accept = 'application/json, text/event-stream';
    const foreign = await raw({
      path: '/mcp',
      headers: { host: host(), accept, 'content-type': 'application/json', origin: 'http://localhost:6274' },
      body: init,
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.jsonrpc, '2.0');
    assert.match(
      foreign.json.error.message,
      /^Refused: browser requests are accepted only from this server's own pages/,
    );
    const plain = await raw({
      path: '/mcp',
      headers: { host: host(), accept, 'content-type': 'text/plain' },
      body: init,
    });
    assert.equal(plain.status, 415);
    assert.match(
      plain.json.error.message,
      /^Unsupported Media Type: POST \/mcp needs Content-Type: application\/json/,
    );
  });
});
