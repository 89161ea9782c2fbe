import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doorTestEnv } from './helpers/http.js';

const { h, id } = await doorTestEnv();

async function fresh(): Promise<string> {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const s = await h.ok(id, 'get_browser_state', { viewportExpansion: -1 });
  return s.text as string;
}

function indexOf(text: string, needle: string): number {
  const line = text.split('\n').find((l) => l.includes(needle));
  assert.ok(line, `no line with ${needle} in:\n${text}`);
  return Number(/\[(\d+)\]/.exec(line)![1]);
}

test('click receipt: an equal-length text replacement is a change; every reference field is there', async () => {
  const text = await fresh();
  const r = await h.ok(id, 'click_element_by_index', { index: indexOf(text, 'AAAA') });
  assert.equal(r.changed, true);
  assert.equal(r.changeStatus, 'observed');
  assert.equal(r.observationComplete, true);
  assert.equal(r.observationWindowMs, 500);
  assert.equal(r.textLengthBefore, r.textLengthAfter);
  assert.equal(r.urlBefore, r.urlAfter);
  assert.equal(r.tabCountBefore, 1);
  assert.equal(r.tabCountAfter, 1);
  assert.equal(r.actionStatus, 'completed');
  assert.equal(r.effective, true);
  assert.equal(r.mode, 'native');
  assert.equal(r.hit.tag, 'div');
  assert.equal(r.hit.text, 'AAAA');
  assert.equal('hint' in r, false);
  // One automatic screenshot for the successful page-changing command.
  assert.equal(r.screenshot, `/data/${id}/${r.seq}.png`);
  assert.equal((await fetch(`${h.server.url}${r.screenshot}`)).status, 200);
});

test('a no-change click: ok, changed false, not_observed, complete, with a hint', async () => {
  const text = await fresh();
  const r = await h.ok(id, 'click_element_by_index', { index: indexOf(text, 'Nothing') });
  assert.equal(r.changed, false);
  assert.equal(r.changeStatus, 'not_observed');
  assert.equal(r.observationComplete, true);
  assert.equal(r.effective, true);
  assert.match(r.hint, /不代表点击失败/);
});

test('a popup opened after a short delay counts as a new tab; the selector click switches to it', async () => {
  let text = await fresh();
  const r = await h.ok(id, 'click_element_by_index', { index: indexOf(text, 'Open later') });
  assert.equal(r.changed, true, JSON.stringify(r));
  assert.ok(r.tabCountAfter > r.tabCountBefore, JSON.stringify(r));
  const tabs = await h.ok(id, 'get_tabs');
  assert.equal(tabs.tabs.length, 2);
  // Index clicks keep the operated tab; close the popup again.
  assert.equal(tabs.tabs[0].current, true);
  await h.ok(id, 'close_tab', { pageIndex: 1 });
  text = await fresh();
  const s = await h.ok(id, 'click_element_by_selector', { selector: '#newtab' });
  assert.equal(s.switchedToNewTab, true, JSON.stringify(s));
  assert.equal(s.tabCountAfter, 2);
  assert.match(await h.ok(id, 'get_url').then((d) => d.url), /other\.html$/);
  // The popup belongs to this task only.
  const other = await h.start();
  assert.equal((await h.ok(other, 'get_tabs')).tabs.length, 1);
  await h.ok(other, 'close');
  await h.ok(id, 'close_other_tabs');
  assert.equal((await h.ok(id, 'get_tabs')).tabs.length, 1);
});

test('read-only, disabled and covered targets fail at once with their codes, and get no screenshot', async () => {
  const text = await fresh();
  const t0 = Date.now();
  const ro = await h.fails(id, 'input_text', { index: indexOf(text, "name='date'"), text: '2025-01-01' });
  assert.equal(ro.json.data.errorCode, 'ELEMENT_READ_ONLY', JSON.stringify(ro.json));
  assert.equal(ro.json.data.retryable, false);
  assert.match(
    ro.json.msg,
    /^input_text 失败：\[ELEMENT_READ_ONLY\] 元素只读，请使用日期选择器或页面提供的控件/,
  );
  assert.ok(Date.now() - t0 < 3000, 'read-only fails immediately, not after a wait');
  assert.equal('seq' in ro.json.data, false);
  const dis = await h.fails(id, 'input_text_by_selector', { selector: '#dis', text: 'x' });
  assert.equal(dis.json.data.errorCode, 'ELEMENT_DISABLED', JSON.stringify(dis.json));
  const cov = await h.fails(id, 'click_element_by_index', { index: indexOf(text, 'Under'), timeoutMs: 1500 });
  assert.equal(cov.json.data.errorCode, 'ELEMENT_OBSCURED', JSON.stringify(cov.json));
  assert.equal(cov.json.data.retryable, false);
  assert.ok(cov.json.data.coveredBy, 'names what covers the target');
});

test('input_text, type_text, clear_text, send_keys and the form submit', async () => {
  const text = await fresh();
  const name = indexOf(text, "name='username'");
  const r = await h.ok(id, 'input_text', { index: name, text: 'Grace' });
  assert.equal(r.mode, 'native');
  assert.equal(r.committed, true);
  await h.ok(id, 'type_text', { index: name, text: ' Hopper' });
  assert.equal((await h.ok(id, 'get_element_value', { index: name })).value, 'Grace Hopper');
  const k = await h.ok(id, 'send_keys', { keys: 'Enter' });
  assert.equal(k.mode, 'press');
  assert.equal((await h.ok(id, 'get_element_text', { selector: '#out' })).text, 'submitted Grace Hopper');
  const c = await h.ok(id, 'clear_text', { index: name });
  assert.equal(c.value, '');
  await h.ok(id, 'focus_element_by_index', { index: name });
  const typed = await h.ok(id, 'send_keys', { keys: 'hi there' });
  assert.equal(typed.mode, 'type');
  assert.equal((await h.ok(id, 'get_element_value', { selector: '#name' })).value, 'hi there');
  const empty = await h.fails(id, 'input_text', { index: name, text: '' });
  assert.equal(empty.status, 400);
  assert.equal(empty.json.msg, 'input_text 失败：缺少参数 text');
});

test('check / uncheck, dropdowns, hover, scroll and mode js', async () => {
  const text = await fresh();
  const box = indexOf(text, "type='checkbox'");
  await h.ok(id, 'check_element_by_index', { index: box });
  assert.equal((await h.ok(id, 'is_checked', { index: box })).checked, true);
  await h.ok(id, 'uncheck_element_by_index', { index: box });
  assert.equal((await h.ok(id, 'is_checked', { selector: '#agree' })).checked, false);
  const sel = indexOf(text, '<select');
  assert.deepEqual((await h.ok(id, 'get_dropdown_options', { index: sel })).options, ['Alpha', 'Beta']);
  await h.ok(id, 'select_dropdown_option', { index: sel, text: 'Beta' });
  assert.equal((await h.ok(id, 'get_element_value', { selector: '#plan' })).value, 'b');
  await h.ok(id, 'hover_element_by_index', { index: indexOf(text, 'Nothing') });
  await h.ok(id, 'scroll', { down: true, numPages: 1 });
  const js = await h.ok(id, 'click_element_by_index', { index: indexOf(text, 'AAAA'), mode: 'js' });
  assert.equal(js.mode, 'js');
  assert.equal(js.changed, true);
});

test("the engine receipt's notes reach this door in its own words, not in English", async () => {
  const text = await fresh();
  const box = indexOf(text, "type='checkbox'");
  const again = await h.ok(id, 'uncheck_element_by_index', { index: box });
  assert.equal(again.changed, false);
  assert.equal(again.hint, '复选框本来就是未选中状态，没有发送任何输入', JSON.stringify(again));
  // The form fits its viewport: the wheel goes out and is dropped, and the hint says why.
  const up = await h.ok(id, 'scroll', { down: false, numPages: 1 });
  assert.equal(up.changed, false, JSON.stringify(up));
  assert.match(up.hint, /没有可以滚动的内容/, JSON.stringify(up));
  for (const r of [again, up])
    for (const s of [r.hint, ...(r.warnings ?? [])]) assert.doesNotMatch(s, /\b(the|was|nothing|scroll)\b/i);
});

test("failures agents meet often are in this door's words: bad selector, missing option, wrong widget, slow page", async () => {
  const text = await fresh();
  const english = /[A-Za-z]{3,} [A-Za-z]{3,} [A-Za-z]{3,}/;
  const bad = await h.fails(id, 'click_element_by_selector', { selector: 'button:contains(Save)' });
  assert.match(bad.json.msg, /选择器 "button:contains\(Save\)" 不是合法的 CSS 选择器/, bad.json.msg);
  const sel = indexOf(text, '<select');
  const none = await h.fails(id, 'select_dropdown_option', { index: sel, text: 'Banana' });
  assert.match(none.json.msg, /下拉框里没有 "Banana" 这个选项/, none.json.msg);
  const notSelect = await h.fails(id, 'select_dropdown_option', { index: indexOf(text, 'AAAA'), text: 'x' });
  assert.match(notSelect.json.msg, /不是原生下拉框/, notSelect.json.msg);
  const slow = await h.fails(id, 'go_to_url', { url: h.page('../../slow?ms=3000'), timeoutMs: 300 });
  assert.equal(slow.json.data.errorCode, 'ACTION_TIMEOUT', JSON.stringify(slow.json));
  assert.match(slow.json.msg, /页面在 300 毫秒内没有加载完成/, slow.json.msg);
  for (const r of [bad, none, notSelect, slow]) {
    assert.doesNotMatch(r.json.msg, english, r.json.msg);
    // The engine's own English stays available for a bug report.
    assert.match(r.json.data.engineMessage, english);
  }
});

test('execute_js with a syntax error: the reference wording, the door field, the truncation hint', async () => {
  await fresh();
  const cut = await h.fails(id, 'execute_js', { body: 'return [1, 2' });
  assert.equal(cut.status, 400);
  assert.match(cut.json.msg, /^execute_js 失败：执行 JavaScript 失败：SyntaxError: /, cut.json.msg);
  assert.equal(cut.json.data.field, 'body');
  assert.match(cut.json.data.hint, /截断/);
});

test("scroll_to_text that never finds its text: this door's timeout with the conditions", async () => {
  await fresh();
  const r = await h.fails(id, 'scroll_to_text', { text: 'no such words anywhere', timeoutSeconds: 1 });
  assert.equal(r.json.data.errorCode, 'ACTION_TIMEOUT', JSON.stringify(r.json));
  assert.equal(r.json.msg, 'scroll_to_text 超时：等待时间内条件一直没有满足');
  assert.equal(r.json.data.conditions?.[0]?.condition, 'text_present', JSON.stringify(r.json));
});

test('a wait that times out reports what it last saw, not a cut-short evaluate', async () => {
  await fresh();
  const r = await h.fails(id, 'wait_for_function', { expression: 'false', timeoutSeconds: 1 });
  const conditions = r.json.data.conditions as { observed?: { error?: unknown } }[];
  assert.ok(Array.isArray(conditions) && conditions.length > 0, JSON.stringify(r.json));
  // Never an evaluate the wait itself cut to a few ms (on a loaded machine a poll's evaluate given
  // its full time may still run out: that is a real observation).
  for (const c of conditions)
    assert.doesNotMatch(String(c.observed?.error ?? ''), /after \d ms/, JSON.stringify(r.json));
});

test('click by text and by role, hover_and_click, mouse_click at a point', async () => {
  await fresh();
  const t = await h.ok(id, 'click_element_by_text', { text: 'AAAA' });
  assert.equal(t.changed, true);
  const r = await h.ok(id, 'click_element_by_role', { role: 'button', name: 'Submit' });
  assert.equal(r.changed, true);
  assert.match((await h.ok(id, 'get_element_text', { selector: '#out' })).text, /^submitted/);
  const hc = await h.ok(id, 'hover_and_click', { selector: '#swap', hoverDelayMs: 10 });
  assert.equal(hc.changed, true);
  const box = await h.ok(id, 'get_element_box', { selector: '#swap' });
  const m = await h.ok(id, 'mouse_click', { x: box.x + 5, y: box.y + 5 });
  assert.equal(m.changed, true);
  const nf = await h.fails(id, 'click_element_by_selector', { selector: '#nope', timeoutMs: 1000 });
  assert.equal(nf.json.data.errorCode, 'ELEMENT_NOT_FOUND');
});
