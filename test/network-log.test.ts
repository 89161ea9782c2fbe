import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { urlMatcher } from '../src/engine/network-log.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, engine, session } = await engineTestEnv();
const page = session.page();

before(async () => {
  await page.open(`${server.url}/fixtures/nav/a.html`);
});

describe('request log', () => {
  test('the same URL three times with different bodies: each read back by request_id', async () => {
    const since = session.requests.lastSeq;
    await page.evaluateScript(`async () => {
      for (const n of ['one', 'two', 'three']) await fetch('/echo?same=1', { method: 'POST', body: 'payload-' + n });
    }`);
    await session.requests.waitForResponse('/echo?same=1', { look_back_ms: 0 }).catch(() => {});
    const deadline = Date.now() + 3000;
    let entries = session.requests.list({ filter: '/echo?same=1', since_seq: since });
    while ((entries.length < 3 || entries.some((e) => e.state !== 'finished')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      entries = session.requests.list({ filter: '/echo?same=1', since_seq: since });
    }
    assert.equal(entries.length, 3);
    assert.equal(new Set(entries.map((e) => e.request_id)).size, 3);
    for (const [i, n] of ['one', 'two', 'three'].entries()) {
      const e = entries[i]!;
      assert.equal(e.method, 'POST');
      assert.equal(e.resource_type, 'fetch');
      assert.equal(e.post_data, `payload-${n}`);
      assert.equal(e.status, 200);
      const withBody = session.requests.body(e.request_id);
      assert.match(withBody.body ?? '', new RegExp(`payload-${n}`));
      assert.equal(withBody.page_id, page.id);
    }
  });

  test('look-back finds a response that arrived before the wait; otherwise it waits for the next', async () => {
    await page.evaluateScript(`() => fetch('/echo?early=1')`);
    const back = await session.requests.waitForResponse('**/echo?early=1', {
      look_back_ms: 10_000,
      timeoutMs: 2000,
    });
    assert.equal(back.from_look_back, true);
    const waiting = session.requests.waitForResponse('/echo?late=1', { look_back_ms: 0, timeoutMs: 5000 });
    await page.evaluateScript(`() => { setTimeout(() => fetch('/echo?late=1'), 200); }`);
    const late = await waiting;
    assert.equal(late.from_look_back, false);
    assert.equal(late.status, 200);
    await rejectsWith(
      session.requests.waitForResponse('/never', { look_back_ms: 0, timeoutMs: 300 }),
      'not_ready',
    );
  });

  test('post data is cut at 4000 chars with its length; failures are recorded', async () => {
    await page.evaluateScript(`() => fetch('/echo?big=1', { method: 'POST', body: 'x'.repeat(5000) })`);
    await page.evaluateScript(`() => fetch('http://127.0.0.1:9/refused').catch(() => null)`);
    const deadline = Date.now() + 3000;
    while (
      !session.requests.list({ filter: '127.0.0.1:9' }).some((e) => e.state === 'failed') &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const big = session.requests.list({ filter: '/echo?big=1' })[0]!;
    assert.equal(big.post_data?.length, 4000);
    assert.equal(big.post_data_length, 5000);
    assert.equal(big.post_data_truncated, true);
    const failed = session.requests.list({ filter: '127.0.0.1:9' })[0]!;
    assert.equal(failed.state, 'failed');
    assert.match(String(failed.failure), /ERR_|refused/i);
    await rejectsWith(async () => session.requests.body('r999999'), 'invalid_request');
  });

  test('recording can be off for a session', async () => {
    const quiet = await engine.startSession({ network_recording: false });
    await quiet.page().open(`${server.url}/fixtures/nav/a.html`);
    assert.equal(quiet.requests.list().length, 0);
    await engine.closeSession(quiet.id);
  });
});

describe('url matching', () => {
  test('substring, glob crossing slashes, regex, and bad regex', () => {
    const m = urlMatcher('**/api/query*');
    assert.ok(m('https://x.com/api/query?y=1'));
    assert.ok(urlMatcher('**/example.com*')('https://example.com/'));
    assert.ok(urlMatcher('**/smoke.html')('file:///a/b/smoke.html#'));
    assert.ok(urlMatcher('/echo')('http://h/echo?x'));
    assert.ok(urlMatcher('/ech[o]/')('http://h/echo'));
    assert.ok(!urlMatcher('**/other')('http://h/echo'));
    assert.throws(() => urlMatcher('/(/'), /not a valid regular expression/);
  });
});
