import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { doorTestEnv, type Json } from './helpers/http.js';

const { h, id } = await doorTestEnv();

function pngs(): string[] {
  const dir = join(h.home, 'data', id);
  return existsSync(dir) ? readdirSync(dir).filter((f) => /^\d+\.png$/.test(f)) : [];
}

test('one screenshot per successful page-changing command, alone and as a batch step; failures get none', async () => {
  const single = await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  assert.deepEqual(
    Object.keys(single)
      .filter((k) => k.startsWith('screenshot') || k === 'seq')
      .sort(),
    ['screenshot', 'screenshot_path', 'seq'],
  );
  const before = pngs().length;
  const r = await h.post({
    id,
    method: 'commands',
    params: {
      commands: [
        { go_to_url: { url: h.page('form.html') } },
        { get_url: {} },
        { get_browser_state: { viewportExpansion: -1 } },
        { click_element_by_index: { index: 999 } },
        { get_title: {} },
      ],
    },
  });
  assert.equal(r.status, 200);
  assert.equal(r.json.ok, false);
  const d = r.json.data;
  assert.equal(d.count, 4);
  assert.equal(d.succeeded, 3);
  assert.equal(d.failed, 1);
  assert.equal(d.stopped, true);
  assert.equal(r.json.msg, '第 3 条命令 click_element_by_index 失败：click_element_by_index 索引越界: 999');
  const [nav, url, state, click] = d.results as Json[];
  // Same fields as a single call.
  assert.deepEqual(
    Object.keys(nav!.data)
      .filter((k) => k.startsWith('screenshot') || k === 'seq')
      .sort(),
    ['screenshot', 'screenshot_path', 'seq'],
  );
  assert.equal(nav!.data.seq, single.seq + 1);
  assert.equal('seq' in url!.data, false, 'pure reads never capture');
  assert.equal(state!.data.seq, nav!.data.seq + 1, 'get_browser_state has its own capture, no extra one');
  assert.equal(click!.ok, false);
  assert.equal(click!.error.code, 'STALE_ELEMENT');
  assert.equal(click!.error.retryable, true);
  assert.equal('seq' in click!.data, false);
  assert.equal(pngs().length, before + 2);
});

test('stopOnError false runs on; expect matchers; the single-command shortcut', async () => {
  const r = await h.post({
    id,
    method: 'commands',
    params: {
      stopOnError: false,
      commands: [
        { click_element_by_index: { index: 999 } },
        { get_title: {}, expect: { js: 'document.title', equals: 'Form page' } },
        { get_url: {}, expect: { js: '() => 41 + 1', min: 50 } },
        { get_url: {}, expect: { js: 'document.querySelectorAll("input").length', max: 100 } },
        { get_url: {}, expect: { js: 'document.title', contains: 'Form' } },
        { get_url: {}, expect: { js: 'throw new Error("boom")' } },
      ],
    },
  });
  const d = r.json.data;
  assert.equal(d.count, 6);
  assert.equal(d.failed, 1);
  assert.equal(d.expectFailed, 2);
  assert.equal(d.results[1].expectResult.passed, true);
  assert.equal(d.results[2].expectResult.passed, false);
  assert.equal(d.results[2].expectResult.actual, 42);
  assert.equal(d.results[3].expectResult.passed, true);
  assert.equal(d.results[4].expectResult.passed, true);
  assert.equal(d.results[5].expectResult.passed, false);
  assert.ok(d.results[5].expectResult.error);
  const only = await h.post({ id, method: 'commands', params: { expectOnly: 1 } });
  assert.equal(only.json.ok, false);
  const short = await h.ok(id, 'commands', { get_title: {} });
  assert.equal(short.count, 1);
  assert.equal(short.results[0].data.title, 'Form page');
  const stopExpect = await h.post({
    id,
    method: 'commands',
    params: {
      stopOnExpectFailure: true,
      commands: [{ get_url: {}, expect: { js: '1', equals: 2 } }, { get_title: {} }],
    },
  });
  assert.equal(stopExpect.json.data.count, 1);
  assert.equal(stopExpect.json.data.stopReason, 'stopOnExpectFailure');
  assert.equal(stopExpect.json.data.note, '所有命令都执行成功，只有 expect 检查没有通过');
});

test('batch validation: empty, too many, nesting, two keys, unknown command, missing parameter; never a 500', async () => {
  const cases: [Json, RegExp, number][] = [
    [{ commands: [] }, /空数组/, 400],
    [{ commands: Array.from({ length: 201 }, () => ({ get_url: {} })) }, /最多 200 条/, 400],
    [{ commands: [{ commands: { commands: [] } }] }, /不能嵌套/, 400],
    [{ commands: [{ get_url: {}, get_title: {} }] }, /只能有一个命令键/, 400],
    [{ commands: ['get_url'] }, /必须是对象/, 400],
    [{ commands: [{ get_urll: {} }] }, /^第 0 条命令 get_urll 失败：不支持的方法：get_urll/, 200],
    [{ commands: [{ input_text: { text: 'x' } }] }, /^第 0 条命令 input_text 失败：缺少参数 index$/, 200],
  ];
  for (const [params, msg, status] of cases) {
    const r = await h.post({ id, method: 'commands', params });
    assert.equal(r.json.ok, false, JSON.stringify(params).slice(0, 80));
    assert.match(r.json.msg, msg);
    assert.equal(r.status, status, r.json.msg);
  }
  const noId = await h.post({ method: 'commands', params: { commands: [{ get_url: {} }] } });
  assert.equal(noId.status, 400);
  assert.equal(noId.json.msg, 'commands 失败：缺少参数 id');
});

test('compact mode: protocol fields pruned, business data byte-for-byte, batch steps alike; diagnostics keeps receipts', async () => {
  await h.ok(id, 'go_to_url', { url: h.page('form.html') });
  const body =
    'return {screenshot_path: "/x", urlBefore: "u", browser_state: "b", title: "t", nested: {screenshot_path: 1}}';
  const full = await h.ok(id, 'execute_js', { body });
  const compact = await h.ok(id, 'execute_js', { body }, { responseMode: 'compact' });
  assert.deepEqual(compact.result, full.result);
  assert.equal('screenshot_path' in compact, false);
  assert.equal(typeof compact.screenshot, 'string');
  const st = await h.ok(id, 'get_browser_state', { viewportExpansion: -1 }, { responseMode: 'compact' });
  for (const k of ['browser_state', 'url', 'title', 'screenshot_path']) assert.equal(k in st, false, k);
  assert.ok(Array.isArray(st.tabs));
  assert.equal(typeof st.text, 'string');
  assert.equal(typeof st.state_file, 'string');
  const idx = Number(/\[(\d+)\]<div >AAAA/.exec(st.text)![1]);
  const c = await h.ok(id, 'click_element_by_index', { index: idx }, { responseMode: 'compact' });
  for (const k of [
    'urlBefore',
    'urlAfter',
    'tabCountBefore',
    'tabCountAfter',
    'textLengthBefore',
    'textLengthAfter',
  ])
    assert.equal(k in c, false, k);
  assert.equal(c.changed, true);
  const diag = await h.ok(
    id,
    'click_element_by_index',
    { index: idx },
    { responseMode: 'compact', diagnostics: true },
  );
  assert.equal(typeof diag.urlBefore, 'string');
  assert.equal('screenshot_path' in diag, false, 'diagnostics restores nothing else');
  const b = await h.post({
    id,
    method: 'commands',
    params: { commands: [{ execute_js: { body } }, { click_element_by_index: { index: idx } }] },
    responseMode: 'compact',
  });
  assert.equal(b.json.ok, true);
  assert.deepEqual(b.json.data.results[0].data.result, full.result);
  assert.equal('screenshot_path' in b.json.data.results[0].data, false);
  assert.equal('urlBefore' in b.json.data.results[1].data, false);
  // Failures keep ok/code/msg.
  const f = await h.post({
    id,
    method: 'click_element_by_index',
    params: { index: 999 },
    responseMode: 'compact',
  });
  assert.equal(f.json.ok, false);
  assert.equal(f.json.code, 0);
  assert.equal(f.json.msg, 'click_element_by_index 索引越界: 999');
});
