import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChromiumPage } from '../src/backends/chromium/chromium-page.js';
import { directSender } from '../src/backends/chromium/direct-cdp.js';
import { engineTestEnv } from './helpers/engine.js';

// The engine's own CDP session sends to playwright-core's server layer directly (direct-cdp.ts). If a
// playwright-core upgrade takes that way away, the public send serves and nothing breaks, but the hot
// calls get slower without a word: this test says so. And the server layer's errors must come back in
// the client's wording, which the fast channel and the error translation match on. And a reply must
// not overtake what the browser sent before it: the client layer gets the server's events a turn later.

const { engine, server } = await engineTestEnv();

test('the engine’s own CDP session skips playwright-core’s client layer, and a closed page reads as closed', async () => {
  const session = await engine.startSession({}, { timeoutMs: 30_000 });
  const pw = (session.page().backend as unknown as ChromiumPage).pw;
  const send = directSender(await pw.context().newCDPSession(pw));
  assert.equal(send.direct, true, 'playwright-core no longer hands out its server-side session');
  const reply = (await send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })) as {
    result: { value: number };
  };
  assert.equal(reply.result.value, 42);
  await assert.rejects(send('No.suchMethod'), /No\.suchMethod|wasn't found/);
  await pw.close();
  await assert.rejects(send('Runtime.evaluate', { expression: '1' }), {
    message: 'Target page, context or browser has been closed',
  });
  await engine.closeSession(session.id);
});

test('what the page logged during a call is in the console log when the call returns', async () => {
  const session = await engine.startSession(
    { policy: { allowed_origins: [server.url] } },
    { timeoutMs: 30_000 },
  );
  const page = session.page();
  await page.open(`${server.url}/fixtures/nav/a.html`);
  const late: number[] = [];
  // Without the turn after the reply, about one call in eight returned before its message was seen.
  for (let i = 0; i < 100; i++) {
    const before = page.console.lastSeq;
    await page.evaluate('test.log', () => console.log('mark'), null);
    if (page.console.lastSeq === before) late.push(i);
  }
  assert.deepEqual(late, [], 'calls that returned before their console message arrived');
  await engine.closeSession(session.id);
});
