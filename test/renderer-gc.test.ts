import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { CDPSession } from 'playwright-core';
import { type ChromiumPage, RENDERER_GC_EVERY_DEFAULT } from '../src/backends/chromium/chromium-page.js';
import { serverSessionOf } from '../src/backends/chromium/direct-cdp.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { startDebuggableChromium } from './helpers/external-browser.js';
import { startFixtureServer } from './helpers/fixture-server.js';

// A page that goes from document to document for hours keeps its old documents' heaps until V8
// decides to collect; the Chromium backend asks the page's renderer for a full GC every
// RENDERER_GC_EVERY_DEFAULT documents its main frame loads (chromium-page.ts, ARCHITECTURE "Bounds").

const home = tempHome();
const server = await startFixtureServer();
const engine = newEngine(home.dir);
after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

interface SpiedSession {
  send(method: string, params?: object): Promise<unknown>;
}

/**
 * Every CDP call sent on the driver's CDP sessions, with the session it went on. Spied on the server
 * layer's sessions: the engine's own session sends there directly (direct-cdp.ts), as the public
 * `CDPSession.send` does in the end.
 */
function spyOnCdp(probe: CDPSession): { method: string; session: SpiedSession }[] {
  const sent: { method: string; session: SpiedSession }[] = [];
  const impl = serverSessionOf(probe);
  assert.ok(impl, 'playwright-core hands out the server-side session');
  const proto = Object.getPrototypeOf(impl) as {
    _send: (this: object, m: string, p?: object) => Promise<unknown>;
  };
  const original = proto._send;
  proto._send = function (this: object, method: string, params?: object) {
    sent.push({ method, session: { send: (m, p) => original.call(this, m, p) } });
    return original.call(this, method, params);
  };
  after(() => {
    proto._send = original;
  });
  return sent;
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
}

test('a page’s renderer gets a full GC every few documents its main frame loads, on the page’s own target', async () => {
  const session = await engine.startSession(
    { policy: { allowed_origins: [server.url] } },
    { timeoutMs: 30_000 },
  );
  const page = session.page();
  const backend = page.backend as unknown as ChromiumPage;
  const probe = await backend.pw.context().newCDPSession(backend.pw);
  const sent = spyOnCdp(probe);
  const gcs = () => sent.filter((s) => s.method === 'HeapProfiler.collectGarbage');
  const docs = ['a.html', 'b.html'];
  for (let i = 0; i < RENDERER_GC_EVERY_DEFAULT * 2; i++)
    await page.open(`${server.url}/fixtures/nav/${docs[i % 2]}`);
  await until(() => gcs().length >= 2);
  assert.equal(gcs().length, 2, `GCs after ${RENDERER_GC_EVERY_DEFAULT * 2} documents`);
  // Sent on a session of this page's target: the page answers a call on the same session with its URL.
  const { result } = (await gcs()[1]!.session.send('Runtime.evaluate', {
    expression: 'location.href',
    returnByValue: true,
  })) as { result: { value: string } };
  assert.equal(result.value, page.url());
  // And it reclaims: the documents the page left behind are gone from its renderer (≤ the page's own
  // and the blank one it started with), once the GC asked for right after this load has run.
  await page.open(`${server.url}/fixtures/nav/a.html`);
  await page.open(`${server.url}/fixtures/nav/b.html`);
  await page.open(`${server.url}/fixtures/nav/a.html`);
  await until(() => gcs().length >= 3);
  await gcs()[2]!.session.send('Runtime.evaluate', { expression: '0' }); // after the GC on the same session
  const counters = (await probe.send('Memory.getDOMCounters')) as { documents: number };
  assert.ok(counters.documents <= 2, `documents in the renderer: ${counters.documents}`);
  await probe.detach().catch(() => {});
  await engine.closeSession(session.id);
});

test('no renderer GC on an attached user-owned browser (its tabs are not ours to GC)', async () => {
  const external = await startDebuggableChromium();
  const attachHome = tempHome();
  const attached = newEngine(attachHome.dir);
  try {
    const s = await attached.startSession({ kind: 'attach', endpoint: external.httpEndpoint });
    const page = s.page();
    const docs = ['a.html', 'b.html'];
    for (let i = 0; i < RENDERER_GC_EVERY_DEFAULT * 2; i++)
      await page.open(`${server.url}/fixtures/nav/${docs[i % 2]}`);
    assert.equal((page.backend as unknown as ChromiumPage).rendererGcs, 0);
    await attached.closeSession(s.id);
  } finally {
    await attached.close();
    await external.stop();
    attachHome.cleanup();
  }
});
