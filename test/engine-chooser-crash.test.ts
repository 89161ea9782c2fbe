import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PageRawChannel } from '../src/engine/raw.js';
import { type SessionEvent, watchSession } from '../src/engine/session-events.js';
import { engineTestEnv } from './helpers/engine.js';

const { server, session } = await engineTestEnv();

function nextEvent(
  events: SessionEvent[],
  name: SessionEvent['event'],
  timeoutMs = 10_000,
): Promise<SessionEvent> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      const e = events.find((x) => x.event === name);
      if (e) resolve(e);
      else if (Date.now() > until) reject(new Error(`no ${name} event`));
      else setTimeout(poll, 50);
    };
    poll();
  });
}

describe('engine: file choosers and renderer crashes', () => {
  test('a file chooser is recorded on the page and pushed as page.file_chooser; nothing is chosen', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/js/signals.html` });
    const events: SessionEvent[] = [];
    const stop = watchSession(session, (e) => events.push(e));
    try {
      const before = page.fileChoosers.lastSeq;
      const receipt = await page.act({ selector: '#choose' }, { action: 'click' });
      // The receipt says what opened, so the caller knows files are wanted next.
      assert.deepEqual(receipt.file_chooser, {
        multiple: true,
        accept: '.pdf,image/*',
        input: { id: 'files', name: null, label: 'Attachments', selector: '#files' },
      });
      assert.equal(receipt.changed, true);
      const ev = await nextEvent(events, 'page.file_chooser');
      assert.deepEqual(ev, {
        event: 'page.file_chooser',
        session_id: session.id,
        page_id: page.id,
        multiple: true,
        accept: '.pdf,image/*',
        input: { id: 'files', name: null, label: 'Attachments', selector: '#files' },
        frame: 'main',
      });
      const [rec] = page.fileChoosers.list(before);
      assert.equal(rec?.input.selector, '#files');
      const chosen = await page.evaluate(
        'files',
        () => (document.getElementById('files') as HTMLInputElement).files?.length,
        null,
      );
      assert.equal(chosen, 0);
    } finally {
      stop();
      await page.close();
    }
  });

  test('a crash fails the call in flight at once and later calls with page_not_found (crashed); close closes the tab', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/js/signals.html` });
    const events: SessionEvent[] = [];
    const stop = watchSession(session, (e) => events.push(e));
    const raw = new PageRawChannel(page);
    try {
      // Page.crash never answers: the crash itself ends the call, long before its 30 s deadline.
      await assert.rejects(
        raw.send('Page.crash', {}, { timeoutMs: 30_000 }),
        (e: { code: string; details: { reason: string } }) =>
          e.code === 'page_not_found' && e.details.reason === 'crashed',
      );
      assert.equal(page.crashed, true);
      assert.equal((await nextEvent(events, 'page.crashed')).page_id, page.id);
      await assert.rejects(
        page.title(),
        (e: { code: string; message: string }) =>
          e.code === 'page_not_found' && /crashed.*open a new page/.test(e.message),
      );
      assert.ok(!session.pages().includes(page));
      await page.close();
      assert.equal(page.backend.isClosed(), true, 'the crashed tab is closed');
    } finally {
      stop();
      await raw.detach();
    }
  });

  test('a raw call that never answers ends at its deadline; the page runs the next call', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/js/signals.html` });
    const raw = new PageRawChannel(page);
    try {
      await assert.rejects(
        raw.send(
          'Runtime.evaluate',
          { expression: 'new Promise(() => {})', awaitPromise: true },
          { timeoutMs: 500 },
        ),
        (e: { code: string; details: { outcome: string } }) =>
          e.code === 'not_ready' && e.details.outcome === 'unknown',
      );
      assert.equal(await page.title({ timeoutMs: 5000 }), 'JS harness signals');
      const r = (await raw.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })) as {
        result: { value: number };
      };
      assert.equal(r.result.value, 42, 'a new session after the ended one');
    } finally {
      await raw.detach();
      await page.close();
    }
  });
});
