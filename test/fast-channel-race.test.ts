import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import type { Page } from 'playwright-core';
import { FastChannel } from '../src/backends/chromium/fast-channel.js';

// FastChannel races its CDP session's creation against 2 s; a session that comes later must be
// adopted, so that a slow first open (e.g. the renderer GC's, from a load handler) does not leave
// the channel cached as "no session" for the page's life.
test('a fast-channel session that comes after the 2 s race is adopted, not cached as unavailable', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const sent: string[] = [];
    let arrive!: (s: unknown) => void;
    const session = {
      send: async (method: string) => {
        sent.push(method);
        return {};
      },
    };
    const page = {
      context: () => ({ newCDPSession: () => new Promise((r) => (arrive = r)) }),
      isClosed: () => false,
    } as unknown as Page;
    const fast = new FastChannel(page);
    const first = fast.collectGarbage();
    mock.timers.tick(2000);
    assert.equal(await first, false, 'the race gave up: playwright would serve this call');
    arrive(session);
    await new Promise((r) => setImmediate(r));
    assert.equal(await fast.collectGarbage(), true, 'the late session is used');
    assert.deepEqual(sent, ['HeapProfiler.collectGarbage']);
  } finally {
    mock.timers.reset();
  }
});
