import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageCdpSession } from '../src/engine/raw.js';
import { engineTestEnv } from './helpers/engine.js';

// Chromium's compositor dropped about one wheel in three on an inner scroller while the page's main
// thread was busy (see src/engine/actions/injected/wheel-ready.ts). CPU throttling stands in for a
// loaded machine; 20 scrolls without one lost is what a lost-wheel rate of 30 % almost never gives.
const { server, session } = await engineTestEnv();
const page = session.page();

test('scrolling an inner scroller by pages moves it every time on a page with a busy main thread', async () => {
  const cdp = await pageCdpSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  const lost: number[] = [];
  for (let i = 0; i < 20; i++) {
    await page.open(`${server.url}/fixtures/actions/form.html`);
    const r = await page.act({ selector: '#scroller' }, { action: 'scroll', pages: 1 });
    const top = await page.evaluate('test', () => document.getElementById('scroller')!.scrollTop, null);
    assert.equal(r.verified, top > 0, `the receipt says verified ${r.verified} with scrollTop ${top}`);
    if (!(top > 0)) lost.push(i);
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  assert.deepEqual(lost, [], `scrolls that did not move the scroller: ${lost.join(', ')}`);
});
