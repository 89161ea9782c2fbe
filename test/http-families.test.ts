import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doorTestEnv, type Json } from './helpers/http.js';

const { h, id } = await doorTestEnv();

test('navigation family: navigate, back / forward, reload, wait, get_page_snapshot; no-history message', async () => {
  const fresh = await h.start();
  const nb = await h.fails(fresh, 'go_back');
  assert.equal(nb.json.msg, '无法后退：没有可用历史记录');
  await h.ok(fresh, 'close');
  const n = await h.ok(id, 'navigate', { url: h.page('form.html') });
  assert.equal(n.status, 200);
  await h.ok(id, 'go_to_url', { url: h.page('other.html') });
  const b = await h.ok(id, 'go_back');
  assert.match(b.url, /form\.html$/);
  const f = await h.ok(id, 'go_forward');
  assert.match(f.url, /other\.html$/);
  assert.equal((await h.ok(id, 'reload')).status, 200);
  const w = await h.ok(id, 'wait', { seconds: 0.1 });
  assert.equal(typeof w.seq, 'number', 'wait is page-changing: it gets a capture');
  const missing = await h.fails(id, 'wait');
  assert.equal(missing.status, 400);
  assert.equal(missing.json.msg, 'wait 失败：缺少参数 seconds');
  const snap = await h.ok(id, 'get_page_snapshot', { includeConsole: true });
  assert.equal(snap.title, 'Other page');
  assert.equal(snap.loading, false);
  assert.ok(Array.isArray(snap.tabs));
  assert.ok(Array.isArray(snap.logs));
});

test('tabs: new_tab, switch_tab, switch_tab_by_url, bring_to_front, close_tab; pageIndex hint', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const t = await h.ok(id, 'new_tab', { url: h.page('other.html') });
  assert.equal(t.pageIndex, 1);
  let tabs = (await h.ok(id, 'get_tabs')).tabs;
  assert.deepEqual(
    tabs.map((x: Json) => x.current),
    [false, true],
  );
  const s = await h.ok(id, 'get_browser_state');
  assert.match(s.browser_state, /current tab is: 2$/);
  await h.ok(id, 'switch_tab', { pageIndex: 0 });
  assert.match((await h.ok(id, 'get_url')).url, /form\.html$/);
  const byUrl = await h.ok(id, 'switch_tab_by_url', { url: '**/other.html' });
  assert.equal(byUrl.pageIndex, 1);
  const bf = await h.ok(id, 'bring_to_front', { pageIndex: 0 });
  assert.equal(bf.pageIndex, 0);
  assert.match((await h.ok(id, 'get_url')).url, /other\.html$/, 'bring_to_front keeps the operated tab');
  const wrongName = await h.fails(id, 'switch_tab', { index: 1 });
  assert.equal(wrongName.status, 400);
  assert.match(wrongName.json.msg, /缺少参数 pageIndex（你传的是 index/);
  const none = await h.fails(id, 'switch_tab_by_url', { url: 'nowhere.example' });
  assert.match(none.json.msg, /现有标签页/);
  await h.ok(id, 'close_tab', { pageIndex: 1 });
  tabs = (await h.ok(id, 'get_tabs')).tabs;
  assert.equal(tabs.length, 1);
  assert.equal(tabs[0].current, true);
});

test('element reads by index and selector', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const s = await h.ok(id, 'get_browser_state', { viewportExpansion: -1 });
  const about = Number(/\[(\d+)\]<a title='About us'/.exec(s.text)![1]);
  assert.equal((await h.ok(id, 'get_element_text', { index: about })).text, 'About');
  assert.equal((await h.ok(id, 'get_element_attribute', { index: about, name: 'href' })).value, '#about');
  assert.equal((await h.ok(id, 'get_element_html', { selector: '#inert' })).html, 'Just text');
  assert.equal((await h.ok(id, 'get_element_value', { selector: '#pw' })).value, '[redacted]');
  assert.equal((await h.ok(id, 'get_element_count', { selector: 'input' })).count, 6);
  assert.equal((await h.ok(id, 'is_visible', { selector: '#inert' })).visible, true);
  assert.equal((await h.ok(id, 'is_enabled', { selector: '#dis' })).enabled, false);
  const box = await h.ok(id, 'get_element_box', { index: about });
  assert.ok(box.width > 0 && box.height > 0);
  const nf = await h.fails(id, 'get_element_text', { selector: '#nope' });
  assert.equal(nf.json.data.errorCode, 'ELEMENT_NOT_FOUND');
  const shot = await h.ok(id, 'get_element_screenshot', { index: about });
  assert.equal(shot.target, `index=${about}`);
  assert.equal((await fetch(`${h.server.url}${shot.url}`)).status, 200);
  const elShot = await h.ok(id, 'screenshot', { selector: '#swap' });
  assert.ok(elShot.width < 1280);
  // One-time codes and card numbers are secrets too, not only type=password.
  await h.ok(id, 'go_to_url', {
    url: h.page('form.html').replace('/fixtures/http/form.html', '/fixtures/snapshot/secrets.html'),
  });
  await h.ok(id, 'execute_js', {
    body: "document.getElementById('otp').value = '493817'; document.getElementById('cc').value = '4111111111111111'; return 1",
  });
  assert.equal((await h.ok(id, 'get_element_value', { selector: '#otp' })).value, '[redacted]');
  assert.equal((await h.ok(id, 'get_element_value', { selector: '#cc' })).value, '[redacted]');
  // Server-filled secrets in markup: value attributes, a billing-prefixed card token included.
  await h.ok(id, 'execute_js', {
    body: "document.getElementById('otp').setAttribute('value', 'OTP-CANARY-1'); const c = document.getElementById('cc'); c.setAttribute('autocomplete', 'billing cc-number'); c.setAttribute('value', 'CC-CANARY-2'); return 1",
  });
  const form = await h.ok(id, 'get_element_html', { selector: 'form' });
  assert.ok(!/OTP-CANARY|CC-CANARY/.test(form.html), 'secret value attributes never leave the page');
  assert.match(form.html, /value="jane"/);
  assert.equal(
    (await h.ok(id, 'get_element_attribute', { selector: '#otp', name: 'value' })).value,
    '[redacted]',
  );
  assert.equal(
    (await h.ok(id, 'get_element_attribute', { selector: '#cc', name: 'value' })).value,
    '[redacted]',
  );
});

test('waits: element, text, url, load, function, count, stable, idle; a timeout is ACTION_TIMEOUT with the literal message', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  await h.ok(id, 'execute_js', {
    body: "setTimeout(() => { const p = document.createElement('p'); p.className = 'late'; p.textContent = 'Arrived'; document.body.append(p); }, 200); return 1",
  });
  await h.ok(id, 'wait_for_element', { selector: '.late', timeoutSeconds: 5 });
  await h.ok(id, 'wait_for_text', { text: 'Arrived', timeoutSeconds: 5 });
  assert.match((await h.ok(id, 'wait_for_url', { url: '**/form.html' })).url, /form\.html$/);
  await h.ok(id, 'wait_for_load', { state: 'domcontentloaded' });
  await h.ok(id, 'wait_for_function', { expression: '() => document.readyState === "complete"' });
  const c = await h.ok(id, 'wait_for_count', { selector: '.late', min: 1 });
  assert.equal(c.matched, true);
  assert.equal(c.count, 1);
  assert.equal('seq' in c, false, 'wait_for_count is not page-changing');
  const st = await h.ok(id, 'wait_for_stable', { quietMs: 200, timeoutSeconds: 5 });
  assert.equal(st.stable, true);
  assert.match(st.text, /Arrived/);
  const idle = await h.ok(id, 'wait_for_idle', { quietMs: 200, timeoutSeconds: 5 });
  assert.equal(idle.idle, true);
  const t = await h.fails(id, 'wait_for_text', { text: 'Never there', timeoutSeconds: 1 });
  assert.equal(t.json.msg, 'wait_for_text 超时：等待时间内条件一直没有满足');
  assert.equal(t.json.data.errorCode, 'ACTION_TIMEOUT');
  assert.equal(t.json.data.retryable, true);
});

test('cookies and local storage', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  await h.ok(id, 'set_cookie', { name: 'flavour', value: 'oat' });
  const c = await h.ok(id, 'get_cookies');
  assert.equal(c.cookies.find((x: Json) => x.name === 'flavour').value, 'oat');
  assert.equal(c.count, c.cookies.length);
  await h.ok(id, 'clear_cookies');
  assert.equal((await h.ok(id, 'get_cookies')).count, 0);
  await h.ok(id, 'set_local_storage', { key: 'k', value: 'v1' });
  assert.equal((await h.ok(id, 'get_local_storage', { key: 'k' })).value, 'v1');
  assert.deepEqual(JSON.parse((await h.ok(id, 'get_local_storage')).value), { k: 'v1' });
  await h.ok(id, 'clear_local_storage');
  assert.deepEqual(JSON.parse((await h.ok(id, 'get_local_storage')).value), {});
});

test('dialogs and console logs', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  await h.ok(id, 'execute_js', { body: 'console.log("hello log"); console.error("bad thing"); return 1' });
  const logs = await h.ok(id, 'get_console_logs');
  assert.ok(logs.logs.some((l: Json) => l.text === 'hello log'));
  assert.ok(logs.errors.some((l: Json) => l.text === 'bad thing'));
  await h.ok(id, 'clear_console_logs');
  assert.equal((await h.ok(id, 'get_console_logs')).logs.length, 0);
  await h.ok(id, 'execute_js', { body: 'return confirm("Sure?")' }).then((d) => assert.equal(d.result, true));
  const d = await h.ok(id, 'get_dialog', { consume: true });
  assert.equal(d.dialog.type, 'confirm');
  assert.equal(d.dialog.message, 'Sure?');
  assert.equal((await h.ok(id, 'get_js_dialog')).dialog, undefined);
  await h.ok(id, 'set_dialog_behavior', { dismiss: true });
  assert.equal((await h.ok(id, 'execute_js', { body: 'return confirm("Again?")' })).result, false);
  assert.equal((await h.ok(id, 'clear_dialog')).cleared, true);
  await h.ok(id, 'set_dialog_behavior', { dismiss: false });
});

test('introspection: list_methods, get_config, list_tasks, cleanup dry run, GET mirrors; explicit refusals', async () => {
  const m = await h.ok(undefined, 'list_methods', { filter: 'tab' });
  assert.ok(m.methods.includes('get_tabs'));
  assert.equal(m.filter, 'tab');
  const all = await h.ok(undefined, 'list_methods');
  assert.equal(all.methods.includes('commands'), false);
  assert.equal(all.total, all.methods.length);
  const g = await (await fetch(`${h.server.url}/playwright/methods`)).json();
  assert.equal((g as Json).data.count, all.count);
  const cfg = await h.ok(id, 'get_config');
  assert.equal(cfg.engine, 'chromium');
  assert.ok(cfg.browser);
  const tasks = await h.ok(undefined, 'list_tasks');
  assert.ok(tasks.tasks.some((t: Json) => t.id === id));
  const tg = (await (await fetch(`${h.server.url}/playwright/tasks`)).json()) as Json;
  assert.equal(tg.ok, true);
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  await new Promise((r) => setTimeout(r, 20));
  const cl = await h.ok(undefined, 'cleanup', { olderThanHours: 0 });
  assert.equal(cl.dryRun, true);
  assert.ok(cl.count > 0);
});

test('extraction: execute_js forms and vars, script errors, markdown, find_text, tables: no rows vs zero', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  assert.equal((await h.ok(id, 'execute_js', { body: 'document.title' })).result, 'Form page');
  assert.equal((await h.ok(id, 'execute_js', { body: 'async () => 6 * 7' })).result, 42);
  assert.equal((await h.ok(id, 'execute_js', { body: 'const a = 2; return a + 1' })).result, 3);
  const v = await h.ok(id, 'execute_js', {
    body: 'return [document.querySelector("{{sel}}").id, {{n}}, "{{s}}"]',
    vars: { sel: '#name', n: 5, s: 'it\'s "q"' },
  });
  assert.deepEqual(v.result, ['name', 5, 'it\'s "q"']);
  const err = await h.fails(id, 'execute_js', { body: 'null.x' });
  assert.match(err.json.msg, /^execute_js 失败：执行 JavaScript 失败：TypeError: /);
  const nobody = await h.fails(id, 'execute_js', {});
  assert.equal(nobody.json.msg, 'execute_js 失败：缺少参数 body');
  const slow = await h.fails(id, 'execute_js', { body: 'new Promise(() => {})', timeoutMs: 500 });
  assert.equal(slow.json.data.errorCode, 'EVAL_TIMEOUT');
  assert.equal(slow.json.data.outcomeUnknown, true);

  const md = await h.ok(id, 'extract_markdown', {});
  assert.match(md.markdown, /# Sign up/);
  assert.match(md.markdown, /\| Item \| Amount \|/);
  const ft = await h.ok(id, 'find_text', { text: 'Just', contextChars: 5 });
  assert.equal(ft.matchCount, 1);
  assert.equal(ft.matches[0].match, 'Just');
  const bad = await h.fails(id, 'find_text', { text: '(', regex: true });
  assert.equal(bad.status, 400);
  const t = await h.ok(id, 'list_tables');
  assert.equal(t.count, 2);
  const [empty, zero] = t.tables;
  assert.equal(empty.dataRows, 0);
  assert.equal(empty.empty, true);
  assert.match(empty.emptyNote, /不代表金额为零/);
  assert.equal(zero.dataRows, 1);
  assert.equal(zero.empty, false);
  const zmd = await h.ok(id, 'extract_markdown', { selector: 'table >> nth=1' });
  assert.match(zmd.markdown, /\| Tax \| 0 \|/);
  assert.equal(zmd.source, 'table >> nth=1');
  const emd = await h.ok(id, 'extract_markdown', { selector: 'table', nth: 0 });
  assert.equal(emd.markdown.includes('Tax'), false);
  const sd = await h.ok(id, 'extract_structured_data', { extractLinks: true });
  assert.match(sd.text, /Sign up/);
  assert.ok(sd.links.some((l: Json) => l.href.endsWith('#home')));
});

test('browser settings: viewport, color scheme, geolocation, offline, extra headers; pdf', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const js = async (body: string) => (await h.ok(id, 'execute_js', { body })).result;
  const vp = await h.ok(id, 'set_viewport', { width: 800, height: 600 });
  assert.equal(typeof vp.seq, 'number');
  assert.equal(await js('innerWidth'), 800);
  await h.ok(id, 'set_media', { colorScheme: 'dark' });
  assert.equal(await js('matchMedia("(prefers-color-scheme: dark)").matches'), true);
  await h.ok(id, 'set_geolocation', { latitude: 48.85, longitude: 2.35 });
  const pos = await js(
    'new Promise((res, rej) => navigator.geolocation.getCurrentPosition((p) => res([p.coords.latitude, p.coords.longitude]), (e) => rej(new Error(e.message))))',
  );
  assert.deepEqual(pos, [48.85, 2.35]);
  await h.ok(id, 'set_offline', { offline: true });
  assert.equal(await js('navigator.onLine'), false);
  await h.ok(id, 'set_offline', { offline: false });
  await h.ok(id, 'set_headers', { headersJson: '{"X-Tab":"wright"}' });
  const bad = await h.fails(id, 'set_headers', { headersJson: '[1]' });
  assert.equal(bad.status, 400);
  await h.ok(id, 'set_headers', { headersJson: '{}' });
  const p = await h.ok(id, 'pdf');
  assert.match(p.url, /\/page-\d+\.pdf$/);
  const bytes = Buffer.from(await (await fetch(`${h.server.url}${p.url}`)).arrayBuffer());
  assert.equal(bytes.subarray(0, 4).toString(), '%PDF');
  await h.ok(id, 'set_viewport', { width: 1280, height: 800 });
  await h.ok(id, 'set_media', { colorScheme: 'light' });
});

test('DOM modals: get_modals finds the dialog layer; close_modal clicks its button and verifies', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('modal.html') });
  const m = await h.ok(id, 'get_modals');
  assert.equal(m.count, 1);
  assert.equal(m.top.title, 'Consent');
  assert.deepEqual(m.top.buttons, ['Accept', 'Settings']);
  const c = await h.ok(id, 'close_modal', {});
  assert.equal(c.closed, true, JSON.stringify(c));
  assert.equal(c.clicked, 'Accept');
  assert.equal(c.countAfter, 0);
  assert.equal((await h.ok(id, 'get_modals')).count, 0);
});

test('held input: key_down / key_up and mouse_down / mouse_up', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const box = await h.ok(id, 'get_element_box', { selector: '#swap' });
  await h.ok(id, 'mouse_move', { x: box.x + 5, y: box.y + 5 });
  await h.ok(id, 'mouse_down', {});
  const up = await h.ok(id, 'mouse_up', { button: 'left' });
  assert.equal(typeof up.seq, 'number');
  assert.equal((await h.ok(id, 'get_element_text', { selector: '#swap' })).text, 'BBBB');
  const s = await h.ok(id, 'get_browser_state', { viewportExpansion: -1 });
  const name = Number(/\[(\d+)\]<input name='username'/.exec(s.text)![1]);
  await h.ok(id, 'focus_element_by_index', { index: name });
  await h.ok(id, 'execute_js', {
    body: "window.__keys = []; for (const t of ['keydown', 'keyup']) document.addEventListener(t, (e) => window.__keys.push(t + ':' + e.key)); return 1",
  });
  await h.ok(id, 'key_down', { keys: 'Shift' });
  await h.ok(id, 'key_up', { keys: 'Shift' });
  assert.deepEqual((await h.ok(id, 'execute_js', { body: 'window.__keys' })).result, [
    'keydown:Shift',
    'keyup:Shift',
  ]);
  const missing = await h.fails(id, 'key_down', {});
  assert.equal(missing.status, 400);
});

test("closing the last tab: the command succeeds, and its capture's failure is in this door's words", async () => {
  const t = await h.start();
  await h.ok(t, 'go_to_url', { url: h.page('form.html') });
  const r = await h.ok(t, 'close_tab', { pageIndex: 0 });
  assert.equal(r.remaining, 0, JSON.stringify(r));
  assert.equal(typeof r.seq, 'number', 'close_tab is page-changing: it gets a capture attempt');
  assert.equal(r.screenshot, undefined);
  assert.match(
    r.screenshot_error,
    /^screenshot 失败：\[ACTION_FAILED\] 这个任务当前没有打开的标签页/,
    r.screenshot_error,
  );
  assert.doesNotMatch(r.screenshot_error, /[A-Za-z]{3,} [A-Za-z]{3,} [A-Za-z]{3,}/, r.screenshot_error);
  await h.ok(t, 'close');
});
