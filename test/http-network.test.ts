import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';

let h: DoorHarness;
let id: string;
let page: string;

before(async () => {
  h = await doorHarness();
  id = await h.start();
  page = `${h.fixtures.url}/fixtures/http-network/index.html`;
  await h.ok(id, 'go_to_url', { url: page });
});
after(async () => h?.close());

/** Runs script in the task's page through the engine (execute_js belongs to another method family). */
async function js(body: string): Promise<Json> {
  const session = h.engine.sessions()[0]!;
  const r = await session.page().evaluateScript(body, { timeoutMs: 10_000 });
  return { result: r.value };
}

test('get_requests: entries with string ids, post data, status; filter, resourceType, limit, since', async () => {
  await js(`async () => { await fetch('/echo?list=1', { method: 'POST', body: 'hello' }); return 1; }`);
  const d = await h.ok(id, 'get_requests', { filter: 'list=1' });
  assert.equal(d.count, 1);
  assert.equal(d.total, 1);
  assert.equal(typeof d.recordedSince, 'number');
  assert.equal(typeof d.inflight, 'number');
  const r = d.requests[0];
  assert.equal(typeof r.requestId, 'string');
  assert.equal(r.method, 'POST');
  assert.equal(r.resourceType, 'fetch');
  assert.equal(r.postData, 'hello');
  assert.equal(r.postDataLength, 5);
  assert.equal(r.postDataTruncated, false);
  assert.equal(r.status, 200);
  assert.equal(typeof r.respondedAt, 'number');
  assert.equal(r.correlatedBy, 'identity');
  assert.equal(r.body, undefined, 'no bodies in get_requests');
  const docs = await h.ok(id, 'get_requests', { resourceType: 'document' });
  assert.ok(docs.requests.every((x: Json) => x.resourceType === 'document'));
  assert.ok(docs.requests.some((x: Json) => x.url === page));
  const since = Date.now() + 60_000;
  const none = await h.ok(id, 'get_requests', { since });
  assert.equal(none.count, 0);
  assert.match(none.note, /recordedSince/);
  const lim = await h.ok(id, 'get_requests', { limit: 1 });
  assert.equal(lim.count, 1);
  assert.ok(lim.total >= 2);
  // glob matching (the same rules as wait_for_response)
  const glob = await h.ok(id, 'get_requests', { filter: '**/echo*' });
  assert.ok(glob.count >= 1);
});

test('same URL three times with different bodies: each read by requestId', async () => {
  await js(`async () => {
    for (const b of ['first', 'second', 'third']) {
      await fetch('/echo?same=3', { method: 'POST', body: b }).then((r) => r.text());
    }
    return 1;
  }`);
  // Bodies are copied when the response finishes; wait for the last one.
  await h.ok(id, 'wait_for_response', { urlPattern: 'same=3', timeoutSeconds: 5 });
  const d = await h.ok(id, 'get_requests', { filter: 'same=3' });
  assert.equal(d.count, 3);
  const ids = d.requests.map((r: Json) => r.requestId);
  assert.equal(new Set(ids).size, 3);
  assert.deepEqual(
    d.requests.map((r: Json) => r.postData),
    ['first', 'second', 'third'],
  );
  for (const [i, want] of ['first', 'second', 'third'].entries()) {
    let b = await h.ok(id, 'get_response_body', { requestId: ids[i] });
    for (let n = 0; n < 20 && b.bodyCapturePending; n++) {
      await new Promise((r) => setTimeout(r, 100));
      b = await h.ok(id, 'get_response_body', { requestId: ids[i] });
    }
    assert.equal(b.requestId, ids[i]);
    assert.equal(b.request.postData, want);
    assert.match(b.body, new RegExp(`<pre id="body">${want}</pre>`));
    assert.equal(b.bodyAvailable, true);
    assert.equal(b.truncated, false);
    assert.equal(b.correlationMissed, false);
  }
  // filter + index: default the last, index picks one.
  const last = await h.ok(id, 'get_response_body', { filter: 'same=3' });
  assert.equal(last.requestId, ids[2]);
  const firstByIndex = await h.ok(id, 'get_response_body', { filter: 'same=3', index: 0 });
  assert.equal(firstByIndex.requestId, ids[0]);
  const bad = await h.fails(id, 'get_response_body', { filter: 'same=3', index: 7 });
  assert.equal(bad.status, 400);
  const unknown = await h.fails(id, 'get_response_body', { requestId: 'r999999' });
  assert.match(unknown.json.msg, /requestId/);
});

test('truncation flags: request post data over 4000 chars, body over maxChars', async () => {
  await js(
    `async () => { await fetch('/echo?big=1', { method: 'POST', body: 'x'.repeat(5000) }).then((r) => r.text()); return 1; }`,
  );
  await h.ok(id, 'wait_for_response', { urlPattern: 'big=1', timeoutSeconds: 5 });
  const d = await h.ok(id, 'get_requests', { filter: 'big=1' });
  const r = d.requests[0];
  assert.equal(r.postDataLength, 5000);
  assert.equal(r.postDataTruncated, true);
  assert.equal(r.postData.length, 4000);
  const b = await h.ok(id, 'get_response_body', { requestId: r.requestId, maxChars: 100 });
  assert.equal(b.body.length, 100);
  assert.equal(b.truncated, true);
  assert.equal(b.bodyTruncated, false);
  assert.ok(b.bodyLength > 5000);
  const full = await h.ok(id, 'get_response_body', { requestId: r.requestId });
  assert.equal(full.truncated, false);
  assert.equal(full.body.length, full.bodyLength);
});

test('wait_for_response: look-back finds a response that arrived before the call; lookBackSeconds 0 waits', async () => {
  // "click, then wait" written in order: the response is already there.
  await js(`document.getElementById('go').click(); 1`);
  await new Promise((r) => setTimeout(r, 500));
  const w = await h.ok(id, 'wait_for_response', { urlPattern: '**/echo?same=1*', timeoutSeconds: 5 });
  assert.equal(w.fromLookBack, true);
  assert.equal(w.status, 200);
  assert.match(w.body, /clicked/);
  assert.equal(typeof w.ageMs, 'number');
  assert.ok(w.ageMs >= 0);
  assert.equal(typeof w.requestId, 'string');
  // With lookBackSeconds 0, only a new response counts: none comes → timeout failure.
  const t0 = Date.now();
  const miss = await h.fails(id, 'wait_for_response', {
    urlPattern: 'same=1',
    lookBackSeconds: 0,
    timeoutSeconds: 1,
  });
  assert.ok(Date.now() - t0 >= 900);
  assert.equal(miss.json.data.retryable, true);
  // A response that arrives after the call is waited for.
  await js(`setTimeout(() => fetch('/echo?later=1', { method: 'POST', body: 'later' }), 400); 1`);
  const later = await h.ok(id, 'wait_for_response', {
    urlPattern: 'later=1',
    lookBackSeconds: 0,
    timeoutSeconds: 5,
  });
  assert.equal(later.fromLookBack, false);
  assert.match(later.body, /later/);
});

test('route: mock and abort; unroute one pattern and all', async () => {
  const m = await h.ok(id, 'route', {
    urlPattern: '**/mocked/**',
    action: 'mock',
    body: '{"mocked":true}',
    status: 201,
    contentType: 'application/json',
  });
  assert.equal(m.action, 'mock');
  assert.equal(m.routes, 1);
  const got = await js(
    `async () => { const r = await fetch('/mocked/x'); return [r.status, await r.text()]; }`,
  );
  assert.deepEqual(got.result, [201, '{"mocked":true}']);
  await h.ok(id, 'route', { urlPattern: '**/blocked/**', action: 'abort' });
  const ab = await js(
    `async () => { try { await fetch('/blocked/y'); return 'loaded'; } catch (e) { return 'failed'; } }`,
  );
  assert.equal(ab.result, 'failed');
  const failed = await h.ok(id, 'get_requests', { filter: 'blocked/y' });
  assert.ok(failed.requests[0].failure);
  const un = await h.ok(id, 'unroute', { urlPattern: '**/mocked/**' });
  assert.equal(un.removed, 1);
  const after1 = await js(`async () => (await fetch('/mocked/x')).status`);
  assert.equal(after1.result, 404);
  const all = await h.ok(id, 'unroute', {});
  assert.equal(all.removed, 1);
  const after2 = await js(`async () => (await fetch('/blocked/y')).status`);
  assert.equal(after2.result, 404);
  await h.fails(id, 'route', {});
});

test('start networkRecording:false: nothing recorded and the read methods say so', async () => {
  const started = await h.ok(undefined, 'start', { networkRecording: false });
  assert.equal(started.networkRecording, 'off');
  const off = started.id as string;
  await h.ok(off, 'go_to_url', { url: page });
  const d = await h.ok(off, 'get_requests', {});
  assert.equal(d.recording, false);
  assert.equal(d.count, 0);
  assert.match(d.note, /networkRecording:false/);
  const b = await h.fails(off, 'get_response_body', {});
  assert.equal(b.json.data.recording, false);
  await h.fails(off, 'wait_for_response', { urlPattern: 'x', timeoutSeconds: 1 });
  await h.ok(off, 'close');
});

test('get_page_snapshot includeRequests: the newest entries of the request log, filtered', async () => {
  await js(`async () => { await fetch('/echo?snap=1', { method: 'POST', body: 's' }); return 1; }`);
  const d = await h.ok(id, 'get_page_snapshot', { includeRequests: true, requestFilter: 'snap=1' });
  assert.equal(d.requests.length, 1);
  assert.equal(d.requests[0].postData, 's');
  assert.equal(d.requestsTotal, 1);
  const none = await h.ok(id, 'get_page_snapshot', {});
  assert.equal(none.requests, undefined);
});
