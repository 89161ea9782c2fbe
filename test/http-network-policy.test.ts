import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Engine } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

/** Routes (mock/abort) compose with the origin policy: a mock never answers what the policy refuses. */

let engine: Engine;
let fixtures: FixtureServer;
let home: ReturnType<typeof tempHome>;

before(async () => {
  home = tempHome();
  engine = newEngine(home.dir);
  fixtures = await startFixtureServer();
});
after(async () => {
  await engine?.close();
  await fixtures?.close();
  home?.cleanup();
});

test('restricted session: a mock answers allowed URLs, never a refused document or subresource', async () => {
  const s = await engine.startSession({ policy: { allowed_origins: [fixtures.url], subresources: 'block' } });
  try {
    const other = fixtures.url.replace('127.0.0.1', 'localhost');
    await s.routes.add({
      pattern: '**/mocked/**',
      action: 'mock',
      body: '<title>MOCKED</title>MOCKED',
      content_type: 'text/html',
    });
    const page = s.page();
    // Allowed origin: the mock answers.
    await page.open(`${fixtures.url}/mocked/a`, 'load', { timeoutMs: 10_000 });
    assert.equal(await page.title(), 'MOCKED');
    // Refused origin: the engine refuses page.open up front; a navigation the page starts itself
    // reaches the network filter, and the policy decides there, whatever the route says.
    await rejectsWith(page.open(`${other}/mocked/b`, 'load', { timeoutMs: 10_000 }), 'permission_denied');
    const since = s.network.lastSeq;
    await page.evaluateScript(`location.href = '${other}/mocked/b'; 1`, { timeoutMs: 5_000 });
    const end = Date.now() + 5_000;
    while (s.network.blocked({ since_seq: since }).length === 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const blocked = s.network.blocked({ since_seq: since });
    assert.ok(
      blocked.some((b) => b.url === `${other}/mocked/b` && b.kind === 'navigation'),
      JSON.stringify(blocked),
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await page.title(), 'MOCKED', 'the refused document never committed');
    assert.equal(page.url(), `${fixtures.url}/mocked/a`);
    // A refused subresource is not mocked either.
    const r = await page.evaluateScript(
      `async () => { try { const res = await fetch('${other}/mocked/c', { mode: 'no-cors' }); return res.type; } catch { return 'failed'; } }`,
      { timeoutMs: 5_000 },
    );
    assert.equal(r.value, 'failed');
    // Abort works on allowed URLs; unroute removes both.
    await s.routes.add({ pattern: '**/echo*', action: 'abort' });
    const ab = await page.evaluateScript(
      `async () => { try { await fetch('${fixtures.url}/echo'); return 'loaded'; } catch { return 'failed'; } }`,
      { timeoutMs: 5_000 },
    );
    assert.equal(ab.value, 'failed');
    assert.equal(await s.routes.remove(), 2);
    assert.deepEqual(s.routes.list(), []);
    const ok = await page.evaluateScript(`async () => (await fetch('${fixtures.url}/echo')).status`, {
      timeoutMs: 5_000,
    });
    assert.equal(ok.value, 200);
  } finally {
    await engine.closeSession(s.id);
  }
});
