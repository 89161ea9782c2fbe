import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ops } from '../src/engine/api.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

// The operations the JS harness's page understanding moved into (page.candidates, page.frame_element,
// page.log_cursors, page.close, page.raw_channel), on a real Chromium: any door can use them.

const { server, session } = await engineTestEnv();

describe('page understanding operations', () => {
  test('page.candidates: the actions each role allows, context, state; secret fields left out', async () => {
    const page = session.page();
    await ops.open.call(page, { url: `${server.url}/fixtures/js/form.html` });
    const all = await ops.candidates.call(page, { max: 100 });
    const byLabel = new Map(all.candidates.map((c) => [c.label, c]));
    const box = all.candidates.find((c) => c.role === 'searchbox');
    assert.deepEqual(box?.actions, ['type', 'press', 'click'], 'a search box');
    const search = all.candidates.find((c) => c.role === 'button' && c.label === 'Search');
    assert.deepEqual(search?.actions, ['click']);
    const colour = byLabel.get('Colour');
    assert.deepEqual(colour?.actions, ['select']);
    assert.deepEqual(colour?.options, ['Red', 'Green', 'Blue']);
    assert.equal(colour?.value, 'Red');
    assert.deepEqual(
      all.candidates.filter((c) => c.label === 'Delete').map((c) => c.context),
      ['region: Outbound', 'region: Inbound'],
    );
    assert.equal(byLabel.has('Password'), false, 'a password field is no candidate');
    assert.equal(byLabel.has('Private note'), false, 'a data-private field is no candidate');
    assert.equal(all.truncated, false);
    const two = await ops.candidates.call(page, { max: 2 });
    assert.equal(two.truncated, true);
    assert.ok(two.candidates.length <= 2);
  });

  test('page.frame_element: null for the main frame, the iframe ref for a child, a reason otherwise', async () => {
    const page = session.page();
    await ops.open.call(page, { url: `${server.url}/fixtures/js/frames.html` });
    const [main, child] = await ops.frames.call(page, {});
    assert.equal(await ops.frameElement.call(page, { frame_id: main!.id }), null);
    const ref = await ops.frameElement.call(page, { frame_id: child!.id });
    assert.match(String(ref), /^e\d+$/);
    const scoped = await ops.snapshot.call(page, { scope_ref: ref! });
    assert.match(scoped.text, /Other page/);
    assert.doesNotMatch(scoped.text, /Outer/);
    const gone = await rejectsWith(ops.frameElement.call(page, { frame_id: 'nope' }), 'element_not_found');
    assert.equal(gone.details.reason, 'frame_not_found');
  });

  test('page.log_cursors moves with the logs; page.raw_channel runs CDP; page.close closes a crashed tab', async () => {
    const page = await ops.newTab.call(session, { url: `${server.url}/fixtures/js/form.html` });
    const before = await ops.logCursors.call(page, {});
    await ops.evaluate.call(page, { source: 'setTimeout(() => alert("hi"), 0)' });
    let after = await ops.logCursors.call(page, {});
    for (let i = 0; i < 50 && after.dialogs === before.dialogs; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await ops.logCursors.call(page, {});
    }
    assert.equal(after.dialogs, before.dialogs + 1, 'the dialog moved the dialogs cursor');
    assert.deepEqual(
      (await ops.dialogs.call(page, { since_seq: before.dialogs })).map((d) => d.message),
      ['hi'],
    );
    const raw = await ops.pageProtocolChannel.call(page, {});
    const title = (await raw.send('Runtime.evaluate', {
      expression: 'document.title',
      returnByValue: true,
    })) as {
      result: { value: string };
    };
    assert.equal(title.result.value, 'JS harness form');
    await raw.send('Page.crash', {}, { timeoutMs: 3000 }).catch(() => {});
    for (let i = 0; i < 50 && !page.crashed; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(page.crashed, true);
    // The session no longer lists a crashed tab; page.close still reaches it.
    await ops.closePage.call(page, {});
    assert.equal(page.backend.isClosed(), true, 'the crashed tab is gone from the browser');
    await raw.detach();
  });
});
