import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { TabwrightError } from '../src/engine/errors.js';
import { frameById, pageFrames } from '../src/engine/frames.js';
import type { Page } from '../src/index.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

/** Target.frame (selector / text inside an iframe), Target.nth, and scripts in a frame. */

const { server, session } = await engineTestEnv();
const page = session.page();

const childId = () => {
  const f = pageFrames(page).find((x) => x.url.endsWith('/frame-child.html'));
  assert.ok(f, JSON.stringify(pageFrames(page)));
  return f.id;
};
const text = async (frame: string | undefined) =>
  (await page.evaluateScript("document.getElementById('status').textContent", { frame })).value;

describe('Target.frame and Target.nth', () => {
  beforeEach(() => page.open(`${server.url}/fixtures/http/frame-targets.html`));

  test('a selector in a frame acts there, not in the main document', async () => {
    const frame = childId();
    assert.equal(pageFrames(page).find((f) => f.id === frame)?.name, 'child');
    const r = await page.act({ selector: '#go', frame }, { action: 'click' });
    assert.equal(r.status, 'executed');
    assert.equal(await text(frame), 'child clicked');
    assert.equal(await text(undefined), 'top idle');
    // #field exists in both documents: the frame decides which one is filled.
    await page.act({ selector: '#field', frame }, { action: 'fill', value: 'inner value' });
    const inner = await page.evaluateScript("document.getElementById('field').value", { frame });
    const top = await page.evaluateScript("document.getElementById('field').value");
    assert.deepEqual([inner.value, top.value], ['inner value', '']);
    await page.act({ text: 'needle in the child', frame }, { action: 'hover' });
    await rejectsWith(page.act({ selector: '#go' }, { action: 'click' }), 'element_not_found');
  });

  test('a script runs in the frame named by id; an unknown frame id lists the frames', async () => {
    const r = await page.evaluateScript('document.title', { frame: childId() });
    assert.equal(r.value, 'Child');
    assert.equal((await page.evaluateScript('document.title')).value, 'Frame targets');
    const err = await rejectsWith(page.evaluateScript('1', { frame: 'f999' }), 'element_not_found');
    assert.equal(err.details.reason, 'frame_not_found');
    assert.equal((err.details.frames as unknown[]).length, 2);
    await rejectsWith(page.act({ selector: '#go', frame: 'f999' }, { action: 'click' }), 'element_not_found');
  });

  test('nth picks among several matches; out of range gives the count; without nth, several is ambiguous', async () => {
    await page.act({ selector: '.twin', nth: 1 }, { action: 'click' });
    assert.equal(await text(undefined), 'twin 2');
    await page.act({ selector: '.twin', nth: 0 }, { action: 'click' });
    assert.equal(await text(undefined), 'twin 1');
    const out = await rejectsWith(
      page.act({ selector: '.twin', nth: 2 }, { action: 'click' }),
      'element_not_found',
    );
    assert.equal(out.details.reason, 'nth_out_of_range');
    assert.equal(out.details.match_count, 2);
    const many = await rejectsWith(page.act({ selector: '.twin' }, { action: 'click' }), 'element_not_found');
    assert.equal(many.details.reason, 'ambiguous');
    await rejectsWith(page.act({ selector: '.twin', nth: -1 }, { action: 'click' }), 'invalid_request');
    await rejectsWith(page.act({ role: 'button', nth: 0 } as never, { action: 'click' }), 'invalid_request');
  });
});

test('a frame is checked against the origin policy before anything runs in it', () => {
  // With the network policy on, a disallowed document never loads into a real frame (it is blocked
  // at the request); this pins the second line of defence: the frame's own URL is checked.
  const checked: string[][] = [];
  const frame = (id: string, parentId: string | null, url: string) => ({
    id,
    parentId,
    url: () => url,
    isDetached: () => false,
  });
  const fake = {
    backend: { frames: () => [frame('f0', null, 'http://a.test/'), frame('f1', 'f0', 'http://b.test/x')] },
    assertPageAllowed: (urls: string[]) => {
      checked.push(urls);
      throw new TabwrightError('permission_denied', 'denied');
    },
  } as unknown as Page;
  assert.throws(() => frameById(fake, 'f1'), /denied/);
  assert.deepEqual(checked, [['http://b.test/x']]);
});
