import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ChromiumPage } from '../src/backends/chromium/chromium-page.js';
import { directSender } from '../src/backends/chromium/direct-cdp.js';
import { newEngine, tempHome } from './helpers/engine.js';

// The engine's own CDP session sends to playwright-core's server layer directly (direct-cdp.ts). If a
// playwright-core upgrade takes that way away, the public send serves and nothing breaks, but the hot
// calls get slower without a word: this test says so. And the server layer's errors must come back in
// the client's wording, which the fast channel and the error translation match on.

const home = tempHome();
const engine = newEngine(home.dir);
after(async () => {
  await engine.close();
  home.cleanup();
});

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
