import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorHarness, doorHarness } from './helpers/http.js';

/**
 * Issue 17, bullet by bullet, over real HTTP and a real Chromium: what a client written for
 * deepseek-browser-use relies on (start contract, labels in data.text, picking like upstream,
 * moving elements, class-only receipts, modal layers, messages in this door's words, upstream's
 * fields and codes).
 */

let h: DoorHarness;
let id: string;

before(async () => {
  // A short serialize wait, so the busy-task case does not cost 5 s.
  h = await doorHarness({ serializeWaitMs: 300 });
  id = await h.start();
});
after(async () => h?.close());

const page = (name: string) => `${h.fixtures.url}/fixtures/http-upstream/${name}`;

test('start: every upstream browser name starts; a mismatch is reported, never refused', async () => {
  const families = h.engine.browserFamilies;
  const check = async (browser: string) => {
    const r = await h.post({ method: 'start', params: { browser, headless: true, userDataDir: '/tmp/ud' } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.ok, true, JSON.stringify(r.json));
    const d = r.json.data;
    assert.equal(d.requestedBrowser, browser);
    const honoured = browser === 'auto' || d.effectiveBrowser === browser;
    assert.equal(d.engineHonored, honoured, browser);
    if (browser === 'firefox') assert.equal(d.engineHonored, families.includes('firefox'));
    if (honoured) assert.equal(d.engineWarning, undefined);
    else
      assert.match(
        d.engineWarning,
        new RegExp(`^请求的浏览器是 ${browser}，实际用的是 ${d.effectiveBrowser}：`),
      );
    assert.equal(d.browser.type, d.effectiveBrowser);
    // userDataDir is reported back, never silently dropped.
    assert.equal(d.browser.userDataDir, '/tmp/ud');
    assert.match(d.profileNote, /没有使用 userDataDir=\/tmp\/ud/);
    await h.ok(d.id, 'close');
  };
  // edge takes chrome's path (an installed binary or Chromium); auto is the start of before().
  await Promise.all(['chrome', 'firefox'].map(check));
  const bad = await h.post({ method: 'start', params: { browser: 'netscape' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.data.errorCode, 'INVALID_ARGUMENT');
  assert.equal(bad.json.data.started, false);
});

test('labels are in data.text next to their fields; frameCount counts the frames that exist', async () => {
  await h.ok(id, 'go_to_url', { url: page('picking.html') });
  const s = await h.ok(id, 'get_browser_state', {});
  const lines: string[] = s.text.split('\n').map((l: string) => l.trim());
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  assert.equal(at(/^Name$/) + 1, at(/^\[0\]<input \/>$/), s.text);
  assert.equal(at(/^Email$/) + 1, at(/^\[1\]<input type='email'\/>$/), s.text);
  assert.equal(
    at(/^\[2\]<input type='checkbox' checked='false'\/>$/) + 1,
    at(/^I agree to the terms$/),
    s.text,
  );
  assert.equal(s.frameCount, 1);
});

test('selectors and texts pick like upstream and report the choice; only a real tie fails', async () => {
  const dup = await h.ok(id, 'click_element_by_selector', { selector: '.dup' });
  assert.equal(dup.matched, 2);
  assert.equal(dup.chosenIndex, 1);
  assert.equal(dup.visibleMatched, 1);
  assert.match(dup.hiddenMatchNote, /不可见/);
  assert.equal(dup.tag, 'button');
  assert.equal(dup.text, 'Visible dup');
  assert.match(dup.outerHtml, /^<button class="dup" id="visibleDup"/);
  assert.deepEqual(dup.hit, { tag: 'button', text: 'Visible dup' });
  assert.equal((await h.ok(id, 'get_element_text', { selector: '#out' })).text, 'dup-clicked');

  const save = await h.ok(id, 'click_element_by_text', { text: 'Save' });
  assert.equal(save.tag, 'button');
  assert.equal(save.textMatch, 'exact');
  assert.equal(save.textCandidates, 2);
  assert.equal(save.textClickable, true);
  assert.match(save.textMatchNote, /文字完全相同/);
  assert.equal((await h.ok(id, 'get_element_text', { selector: '#out' })).text, 'saved');

  const none = await h.fails(id, 'click_element_by_selector', { selector: '.nothing-here' });
  assert.equal(none.json.data.errorCode, 'ELEMENT_NOT_FOUND');
  assert.equal(none.json.data.matchCount, 0);
  assert.match(
    none.json.msg,
    /^click_element_by_selector 失败：\[ELEMENT_NOT_FOUND\] 没有元素匹配选择器 "\.nothing-here" （0 个）/,
  );

  const tie = await h.fails(id, 'click_element_by_text', { text: 'Tie' });
  assert.equal(tie.json.data.errorCode, 'ELEMENT_AMBIGUOUS');
  assert.equal(tie.json.data.candidates.length, 2);
  assert.match(tie.json.msg, /请传 nth/);
  const nth = await h.ok(id, 'click_element_by_selector', { selector: '.tie', nth: 1 });
  assert.equal(nth.explicitNth, true);

  // The reported choice follows the one secret rule: a one-time-code field's page value and live
  // value appear neither in its text nor in its outerHtml.
  const otp = await h.ok(id, 'click_element_by_selector', { selector: '.otp' });
  assert.equal(otp.tag, 'input');
  const reply = JSON.stringify(otp);
  assert.doesNotMatch(reply, /ATTR-OTP-4821|LIVE-OTP-9931/, reply);
});

test('a moving element is clicked with the real mouse; a class-only change is a change', async () => {
  const moving = await h.ok(id, 'click_element_by_selector', {
    selector: '#moving',
    mode: 'auto',
    timeoutMs: 900,
  });
  // Either the guard caught it still (mode mouse for an animated element) or the door waited and
  // then clicked where it was (fallback moving): the real mouse both times.
  assert.equal(moving.mode, 'mouse', JSON.stringify(moving));
  assert.equal(moving.animated, true);
  assert.equal((await h.ok(id, 'get_element_text', { selector: '#out' })).text, 'moving-clicked');

  const toggled = await h.ok(id, 'click_element_by_selector', { selector: '#toggle' });
  assert.equal(toggled.changed, true, JSON.stringify(toggled));
});

test('modal layers without a role: found, and closed by their close button or their mask', async () => {
  await h.ok(id, 'go_to_url', { url: page('antd-modal.html') });
  const m = await h.ok(id, 'get_modals');
  assert.equal(m.count, 1);
  assert.equal(m.countHeuristic, 1);
  assert.equal(m.modals[0].title, '编辑资料');
  assert.equal(m.modals[0].blocking, true);
  const closed = await h.ok(id, 'close_modal');
  assert.equal(closed.closed, true, JSON.stringify(closed));
  assert.equal(closed.closedBy, 'button');
  assert.equal((await h.ok(id, 'get_modals')).count, 0);

  await h.ok(id, 'go_to_url', { url: page('mask-modal.html') });
  assert.equal((await h.ok(id, 'get_modals')).count, 1);
  const byMask = await h.ok(id, 'close_modal');
  assert.equal(byMask.closed, true, JSON.stringify(byMask));
  assert.equal(byMask.closedBy, 'mask');
});

test("messages are in this door's words; upstream's fields and codes", async () => {
  await h.ok(id, 'go_to_url', { url: page('picking.html') });
  // wait_for_response: the wait family's timeout, in Chinese, naming this door's methods.
  const resp = await h.fails(id, 'wait_for_response', { urlPattern: '/never', timeoutSeconds: 0.5 });
  assert.equal(resp.json.data.errorCode, 'ACTION_TIMEOUT');
  assert.equal(resp.json.msg, 'wait_for_response 超时：等待时间内条件一直没有满足');
  assert.match(resp.json.data.hint, /get_requests/);
  // Waits accept upstream's long-running limit.
  const longWait = await h.post({
    id,
    method: 'wait_for_text',
    params: { text: 'x', timeoutSeconds: 900.5 },
  });
  assert.equal(longWait.status, 400, 'above 15 min is refused');
  // An index from no snapshot / a missing element: no other door's vocabulary.
  for (const r of [
    await h.fails(id, 'click_element_by_selector', { selector: '#gone-for-good' }),
    await h.fails(id, 'get_element_text', { selector: '#out', index: 999 }),
  ])
    assert.doesNotMatch(r.json.msg, /element_ref|timeout_ms|network\.list|page\.wait|details\.|snapshot and/);

  // Missing parameters: `<method> 失败：缺少参数 <name>`, HTTP 400, INVALID_ARGUMENT, started:false.
  for (const [m, p, name] of [
    ['execute_js', {}, 'body'],
    ['get_element_attribute', {}, 'index'],
    ['get_element_attribute', { selector: '#name' }, 'name'],
    ['press_key', {}, 'key'],
    ['input_text', { text: 'x' }, 'index'],
  ] as const) {
    const r = await h.post({ id, method: m, params: p });
    assert.equal(r.status, 400, `${m}: ${JSON.stringify(r.json)}`);
    assert.equal(r.json.msg, `${m} 失败：缺少参数 ${name}`);
    assert.equal(r.json.data.errorCode, 'INVALID_ARGUMENT');
    assert.equal(r.json.data.started, false);
  }

  // send_keys / press_key say where the keys went.
  const nofocus = await h.ok(id, 'send_keys', { keys: 'abc' });
  assert.equal(nofocus.focused, false);
  assert.match(nofocus.focusNote, /没有元素获得焦点/);
  await h.ok(id, 'input_text_by_selector', { selector: '#name', text: 'q' });
  const focused = await h.ok(id, 'press_key', { key: 'End' });
  assert.equal(focused.focused, true);
  assert.equal(focused.focusedElement.tag, 'input');

  // get_config.profileDir has upstream's object shape.
  const cfg = await h.ok(undefined, 'get_config');
  assert.equal(typeof cfg.profileDir.resolved, 'string');

  // A busy task: COMMAND_TIMEOUT, started:false, safe to resend.
  const slow = h.post({ id, method: 'wait', params: { seconds: 1.5 } });
  await new Promise((r) => setTimeout(r, 200));
  const busy = await h.fails(id, 'get_url');
  assert.equal(busy.json.data.errorCode, 'COMMAND_TIMEOUT');
  assert.equal(busy.json.data.started, false);
  assert.equal(busy.json.data.retryable, true);
  assert.match(busy.json.data.note, /重发是安全的/);
  await slow;
});
