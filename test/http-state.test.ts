import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { doorTestEnv, type Json } from './helpers/http.js';

const { h, id } = await doorTestEnv();

async function state(params: Json = {}): Promise<Json> {
  return h.ok(id, 'get_browser_state', { viewportExpansion: -1, ...params });
}

function indexOf(text: string, needle: string): number {
  const line = text.split('\n').find((l) => l.includes(needle));
  assert.ok(line, `no line with ${needle} in:\n${text}`);
  return Number(/\[(\d+)\]/.exec(line)![1]);
}

test('get_browser_state: tab block, line grammar, attributes, escaping, indentation, evidence', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const s = await state();
  assert.match(
    s.browser_state,
    /^Browser tab: 1, Title: "Form page", URL: "http:\/\/.+\/form\.html"\.\ncurrent tab is: 1$/,
  );
  const lines: string[] = s.text.split('\n');
  // Links inside nav > ul > li: three meaningful ancestors, three tabs.
  assert.ok(lines.includes('\t\t\t[0]<a >Home/>'), s.text);
  assert.ok(lines.includes("\t\t\t[1]<a title='About us'>About/>"));
  assert.ok(lines.includes("\t[2]<input name='username' placeholder='Your name'/>"));
  // Password: redacted; the real value appears nowhere.
  assert.ok(lines.includes("\t[3]<input type='password' name='pw' value='[redacted]'/>"));
  assert.equal(s.text.includes('hunter2secret'), false);
  // Attribute order: title, type, checked, name …
  assert.ok(lines.includes("\t[4]<input type='checkbox' checked='false' name='agree'/>"));
  assert.ok(lines.includes("\t[5]<select name='plan' selected-text='Alpha'/>"));
  assert.ok(
    lines.some((l) =>
      /\[\d+\]<input name='date' value='2024-01-01' data-date-format='yyyy-mm-dd' readonly='true'\/>/.test(l),
    ),
  );
  // A disabled control keeps its state but gets no index.
  assert.ok(lines.includes("\t<input name='dis' value='locked' disabled='true'/>"));
  // Long title cut at 160 + '...', escaping of ' < > &.
  const long = lines.find((l) => l.includes("name='long'"))!;
  assert.ok(long.includes(`title='${'T'.repeat(160)}...'`), long);
  assert.ok(long.includes("placeholder='it&#39;s &lt;b&gt; &amp; &#39;q&#39;'"), long);
  assert.ok(lines.includes('Just text'));
  assert.ok(lines.includes('[10]<div >AAAA/>') || lines.some((l) => /^\[\d+\]<div >AAAA\/>$/.test(l)));
  // Tabs, elements, scroll figures, snapshot validity.
  assert.deepEqual(
    s.tabs.map((t: Json) => t.index),
    [0],
  );
  assert.equal(s.tabs[0].current, true);
  assert.equal(s.elements[0].index, 0);
  assert.equal(s.elements[0].tag, 'a');
  assert.equal(typeof s.pixels_above, 'number');
  assert.equal(typeof s.pixels_below, 'number');
  assert.equal(s.indicesUsable, true);
  // Evidence: one .png/.txt pair under one seq, GET-able.
  assert.equal(typeof s.seq, 'number');
  assert.equal(s.screenshot, `/data/${id}/${s.seq}.png`);
  assert.equal(s.state_file, `/data/${id}/${s.seq}.txt`);
  const txt = await (await fetch(`${h.server.url}${s.state_file}`)).text();
  assert.equal(txt, `${s.browser_state}\n\n${s.text}`);
  assert.equal(readFileSync(s.screenshot_path).subarray(1, 4).toString(), 'PNG');
});

test('live form values after typing, checking, selecting; password never leaks', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  let s = await state();
  await h.ok(id, 'input_text', { index: indexOf(s.text, "name='username'"), text: 'Ada Lovelace' });
  await h.ok(id, 'input_text', { index: indexOf(s.text, "type='password'"), text: 'topsecret99' });
  await h.ok(id, 'check_element_by_index', { index: indexOf(s.text, "type='checkbox'") });
  await h.ok(id, 'select_dropdown_option', { index: indexOf(s.text, '<select'), text: 'Beta' });
  s = await state();
  assert.ok(s.text.includes("name='username' value='Ada Lovelace'"), s.text);
  assert.ok(s.text.includes("type='checkbox' checked='true'"));
  assert.ok(s.text.includes("selected-text='Beta'"));
  assert.equal(s.text.includes('topsecret99'), false);
  const txt = await (await fetch(`${h.server.url}${s.state_file}`)).text();
  assert.equal(txt.includes('topsecret99'), false);
  const form = await h.ok(id, 'get_form_state');
  const pw = form.fields.find((f: Json) => f.name === 'pw');
  assert.equal(pw.value, '[redacted]');
  assert.equal(form.fields.find((f: Json) => f.name === 'username').value, 'Ada Lovelace');
  assert.equal(form.fields.find((f: Json) => f.name === 'agree').checked, true);
  assert.equal(form.fields.find((f: Json) => f.name === 'dis').disabled, true);
  assert.equal(form.fields.find((f: Json) => f.name === 'date').readOnly, true);
  assert.equal(JSON.stringify(form).includes('topsecret99'), false);
});

test('*[N] marks elements new since the previous snapshot of the page', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const s1 = await state();
  assert.equal(/^\t*\*\[/m.test(s1.text), false);
  await h
    .ok(id, 'execute_js', {
      body: "const b = document.createElement('button'); b.textContent = 'Fresh'; document.body.prepend(b); return 1",
    })
    .catch(() => undefined);
  const s2 = await state();
  if (s2.text.includes('Fresh')) assert.ok(/^\*\[\d+\]<button >Fresh\/>$/m.test(s2.text), s2.text);
});

test('diff_dom_text reports added and removed lines against the last snapshot', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const s = await state();
  await h.ok(id, 'click_element_by_index', { index: indexOf(s.text, 'AAAA') });
  const d = await h.ok(id, 'diff_dom_text', { viewportExpansion: -1 });
  assert.equal(d.changed, true);
  assert.ok(
    d.added.some((l: string) => l.includes('BBBB')),
    JSON.stringify(d),
  );
  assert.ok(d.removed.some((l: string) => l.includes('AAAA')));
});

test('get_interactive_map gives id / class / href for indexed elements', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  await state();
  const m = await h.ok(id, 'get_interactive_map');
  assert.equal(m.elements[0].href, '#home');
  assert.ok(m.elements.some((e: Json) => e.id === 'name'));
});

test('stale and out-of-range indices are STALE_ELEMENT, never another element', async () => {
  const other = await h.start();
  const none = await h.fails(other, 'click_element_by_index', { index: 0 });
  assert.equal(none.json.data.errorCode, 'STALE_ELEMENT');
  assert.match(none.json.msg, /索引越界: 0,当前没有页面快照,请先调用 get_browser_state 获取元素索引/);
  await h.ok(other, 'go_to_url', { url: h.page('form.html') });
  const s = await h.ok(other, 'get_browser_state', { viewportExpansion: -1 });
  const out = await h.fails(other, 'click_element_by_index', { index: 999 });
  assert.equal(out.json.msg, 'click_element_by_index 索引越界: 999');
  assert.equal(out.json.data.errorCode, 'STALE_ELEMENT');
  assert.equal(out.json.data.retryable, true);
  assert.equal(out.json.data.retryAfterMs, 300);
  // Navigate away and back: the old indices point at elements of a replaced document.
  await h.ok(other, 'reload');
  const stale = await h.fails(other, 'click_element_by_index', { index: indexOf(s.text, 'AAAA') });
  assert.equal(stale.json.data.errorCode, 'STALE_ELEMENT', JSON.stringify(stale.json));
  assert.equal('seq' in stale.json.data, false, 'failed commands get no screenshot');
  await h.ok(other, 'close');
});

test('frames: iframe elements are indexed and acted on through their refs; list_frames', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('frames.html') });
  const s = await state();
  const inner = indexOf(s.text, '>Inner/>');
  const r = await h.ok(id, 'click_element_by_index', { index: inner });
  assert.equal(r.changed, true, JSON.stringify(r));
  const after = await state();
  assert.ok(after.text.includes('Inner clicked'), after.text);
  const f = await h.ok(id, 'list_frames');
  assert.equal(f.count, 2);
  assert.equal(f.frames[0].isMain, true);
  assert.match(f.frames[1].url, /inner\.html$/);
  assert.equal(f.frames[1].parentIndex, 0);
  assert.equal(f.frames[1].elementCount, 1);
});

test('includeFrames: one index space, a separator line per frame; a single-frame page prints none', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('frames.html') });
  const s = await state({ includeFrames: true });
  const lines: string[] = s.text.split('\n');
  assert.match(lines[0]!, /^--- frame\[0\] \(main\) http:\/\/.+\/frames\.html elements=1 index=0\.\.0 ---$/);
  const sep = lines.findIndex((l) => l.startsWith('--- frame[1] '));
  assert.ok(sep > 0, s.text);
  assert.match(lines[sep]!, /inner\.html elements=1 index=1\.\.1 ---$/);
  assert.equal(lines[sep + 1], '[1]<button >Inner/>');
  assert.equal(s.frameCount, 2);
  assert.equal(s.frames[1].indexRange, '1..1');
  await h.ok(id, 'click_element_by_index', { index: 1 });
  await h.ok(id, 'go_to_url', { url: h.page('other.html') });
  const single = await state({ includeFrames: true });
  assert.equal(single.text.includes('--- frame'), false);
});
