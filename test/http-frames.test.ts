import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { doorTestEnv } from './helpers/http.js';

/** `frame` (list_frames index or URL / name substring) and `nth` on selector and script methods (§8.19). */

const { h, id } = await doorTestEnv();
beforeEach(async () => {
  await h.ok(id, 'go_to_url', { url: h.page('frame-targets.html') });
});

const js = async (body: string, frame?: string | number) =>
  (await h.ok(id, 'execute_js', { body, ...(frame !== undefined ? { frame } : {}) })).result;

test('click and input by selector in a frame: by index and by URL substring; the main document is untouched', async () => {
  const frames = await h.ok(id, 'list_frames', { refresh: false });
  assert.equal(frames.frames[1].name, 'child');
  const click = await h.ok(id, 'click_element_by_selector', { selector: '#go', frame: 1 });
  assert.equal(click.changed, true, JSON.stringify(click));
  assert.equal(await js("document.getElementById('status').textContent", 1), 'child clicked');
  assert.equal(await js("document.getElementById('status').textContent"), 'top idle');
  // #field is in both documents; the frame decides.
  await h.ok(id, 'input_text_by_selector', { selector: '#field', text: 'inside', frame: 'frame-child' });
  assert.equal(await js("document.getElementById('field').value", 'frame-child.html'), 'inside');
  assert.equal(await js("document.getElementById('field').value", 0), '');
  // By frame name too; "0" is the main frame.
  assert.equal(await js('document.title', 'child'), 'Child');
  assert.equal(await js('document.title', '0'), 'Frame targets');
  const x = await h.ok(id, 'execute_js', { body: 'location.pathname', frame: 1 });
  assert.equal(x.frame, 1);
  assert.match(x.frameUrl, /frame-child\.html$/);
});

test('reads, waits, text search, tables, element screenshot in a frame', async () => {
  const t = await h.ok(id, 'get_element_text', { selector: '#status', frame: 1 });
  assert.equal(t.text, 'child idle');
  assert.equal((await h.ok(id, 'get_element_text', { selector: '#status' })).text, 'top idle');
  assert.equal((await h.ok(id, 'is_visible', { selector: '#go', frame: 'child' })).visible, true);
  assert.equal((await h.ok(id, 'get_element_count', { selector: 'p', frame: 1 })).count, 2);
  const found = await h.ok(id, 'find_text', { text: 'needle', frame: 1 });
  assert.equal(found.matchCount, 1);
  // The page's text holds its same-origin frames' text, as the snapshot does.
  assert.equal((await h.ok(id, 'find_text', { text: 'needle' })).matchCount, 1);
  await h.ok(id, 'wait_for_element', { selector: '#go', frame: 1, timeoutSeconds: 5 });
  assert.equal((await h.ok(id, 'list_tables', { frame: 1 })).count, 1);
  assert.equal((await h.ok(id, 'list_tables')).count, 0);
  const md = await h.ok(id, 'extract_markdown', { selector: 'table', frame: 1 });
  assert.match(md.markdown, /\| alpha \| 1 \|/);
  const shot = await h.ok(id, 'get_element_screenshot', { selector: '#go', frame: 1 });
  assert.ok(shot.size > 0, JSON.stringify(shot));
  const asked = await h.ok(id, 'request_human_input', {
    prompt: 'press Go',
    selector: '#go',
    frame: 'child',
  });
  assert.equal(asked.imageTarget, 'selector=#go', JSON.stringify(asked));
  assert.ok(asked.imageSize > 0);
});

test('an unknown frame is a structured error naming the frames that exist', async () => {
  for (const frame of [5, 'no-such-frame']) {
    const r = await h.fails(id, 'click_element_by_selector', { selector: '#go', frame });
    assert.equal(r.json.data.errorCode, 'ELEMENT_NOT_FOUND');
    assert.equal(r.json.data.frameNotFound, true);
    assert.deepEqual(
      r.json.data.frames.map((f: { index: number }) => f.index),
      [0, 1],
    );
    assert.match(r.json.data.frames[1].url, /frame-child\.html$/);
    assert.match(r.json.msg, /找不到框架/);
  }
  const r = await h.fails(id, 'execute_js', { body: '1', frame: 'no-such-frame' });
  assert.equal(r.json.data.frameNotFound, true);
});

test('nth picks among selector matches; out of range names the count; without nth several matches fail', async () => {
  const second = await h.ok(id, 'click_element_by_selector', { selector: '.twin', nth: 1 });
  assert.deepEqual([second.matched, second.chosenIndex, second.explicitNth], [2, 1, true]);
  assert.equal(await js("document.getElementById('status').textContent"), 'twin 2');
  const out = await h.fails(id, 'click_element_by_selector', { selector: '.twin', nth: 2 });
  assert.equal(out.json.data.errorCode, 'ELEMENT_NOT_FOUND');
  assert.equal(out.json.data.matchCount, 2);
  const many = await h.fails(id, 'click_element_by_selector', { selector: '.twin' });
  assert.equal(many.json.data.matchCount, 2);
  const one = await h.ok(id, 'click_element_by_selector', { selector: '.twin:first-of-type' });
  assert.deepEqual([one.matched, one.chosenIndex, one.explicitNth], [1, 0, false]);
  const typed = await h.ok(id, 'input_text_by_selector', { selector: 'input', text: 'x', nth: 0 });
  assert.deepEqual([typed.matched, typed.explicitNth], [1, true]);
});
