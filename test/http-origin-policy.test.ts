import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';

/**
 * The HTTP command API's security rules that live in the engine: file: and browser-internal URLs
 * refused (in Chinese, with what to do), `start`'s allowedOrigins / allowedHostPatterns and the
 * server-wide `allowedOrigins` ceiling (`tabwright serve --allow-origin`), reported in start and
 * get_config. Real HTTP, real Chromium.
 */

let open: DoorHarness;
let capped: DoorHarness;

before(async () => {
  open = await doorHarness();
});
after(async () => {
  await open?.close();
  await capped?.close();
});

describe('file: and browser-internal URLs', () => {
  test('go_to_url file:///etc/hostname is refused; the task stays where it was', async () => {
    const id = await open.start();
    await open.ok(id, 'go_to_url', { url: open.page('form.html') });
    const r = await open.fails(id, 'go_to_url', { url: 'file:///etc/hostname' });
    assert.match(
      r.json.msg,
      /^go_to_url 失败：\[ACTION_FAILED\] 拒绝打开 file: 地址 file:\/\/\/etc\/hostname：默认不允许读取本机文件/,
    );
    assert.match(r.json.msg, /tabwright serve --allow-file-urls/);
    assert.equal(r.json.data.errorCode, 'ACTION_FAILED');
    assert.equal(r.json.data.engineError, 'permission_denied');
    assert.equal(r.json.data.reason, 'file_url_refused');
    assert.equal(r.json.data.retryable, false);
    assert.match((await open.ok(id, 'get_url')).url, /form\.html$/);
    // new_tab with a URL too (no tab is left behind), and the schemes that are never opened.
    const tabs = (await open.ok(id, 'get_tabs')).tabs.length;
    assert.equal(
      (await open.fails(id, 'new_tab', { url: 'file:///etc/passwd' })).json.data.reason,
      'file_url_refused',
    );
    assert.equal((await open.ok(id, 'get_tabs')).tabs.length, tabs);
    const internal = await open.fails(id, 'go_to_url', { url: 'chrome://settings' });
    assert.match(internal.json.msg, /拒绝打开 chrome: 地址：不打开浏览器内部页面/);
    assert.equal(internal.json.data.reason, 'scheme_refused');
    await open.ok(id, 'close');
  });
});

describe('origin allowlists', () => {
  test('start allowedOrigins: enforced by the engine, reported in start and get_config', async () => {
    const s = await open.ok(undefined, 'start', { allowedOrigins: [open.fixtures.url] });
    assert.deepEqual(s.originPolicy, {
      restricted: true,
      allowedOrigins: [open.fixtures.url],
      allowedHostPatterns: [],
      subresources: 'block',
      source: 'start',
    });
    await open.ok(s.id, 'go_to_url', { url: open.page('form.html') });
    const r = await open.fails(s.id, 'go_to_url', { url: `${open.fixtures.altUrl}/fixtures/nav/a.html` });
    assert.match(
      r.json.msg,
      /^go_to_url 失败：\[ACTION_FAILED\] 拒绝访问 http:\/\/localhost:\d+：不在这个任务的来源白名单（allowedOrigins）里/,
    );
    const cfg = await open.ok(s.id, 'get_config');
    assert.deepEqual(cfg.browser.originPolicy.allowedOrigins, [open.fixtures.url]);
    assert.equal(cfg.originPolicy.restricted, false, 'this server has no ceiling');
    await open.ok(s.id, 'close');
    // Host patterns, and a task without any list: unrestricted, and it says so.
    const p = await open.ok(undefined, 'start', { allowedHostPatterns: ['localhost'] });
    assert.deepEqual(p.originPolicy.allowedHostPatterns, ['localhost']);
    await open.ok(p.id, 'go_to_url', { url: `${open.fixtures.altUrl}/fixtures/nav/a.html` });
    await open.fails(p.id, 'go_to_url', { url: open.page('form.html') });
    await open.ok(p.id, 'close');
    const free = await open.ok(undefined, 'start', {});
    assert.equal(free.originPolicy.restricted, false);
    assert.equal(free.originPolicy.source, 'none');
    assert.match(free.originPolicy.note, /没有来源白名单/);
    await open.ok(free.id, 'close');
    // Bad entries name the field.
    const bad = await open.fails(undefined, 'start', { allowedOrigins: ['example.com'] });
    assert.equal(bad.status, 400, JSON.stringify(bad.json));
  });

  test('a server-wide ceiling: the default for start, narrowed but never widened (empty = the ceiling)', async () => {
    capped = await doorHarness({ allowedOrigins: [open.fixtures.url] });
    const base = capped.fixtures.url;
    const alt = capped.fixtures.altUrl;
    // The ceiling names the other harness's fixture server; this harness's pages are elsewhere.
    const cfg = await capped.ok(undefined, 'get_config');
    assert.deepEqual(cfg.originPolicy, {
      restricted: true,
      allowedOrigins: [open.fixtures.url],
      allowedHostPatterns: [],
      subresources: 'block',
    });
    for (const params of [{}, { allowedOrigins: [] }, { allowedOrigins: [], allowedHostPatterns: [] }]) {
      const s = await capped.ok(undefined, 'start', params);
      assert.equal(s.originPolicy.source, Object.keys(params).length ? 'start' : 'server');
      assert.deepEqual(s.originPolicy.allowedOrigins, [open.fixtures.url], JSON.stringify(params));
      await capped.ok(s.id, 'go_to_url', { url: `${open.fixtures.url}/fixtures/nav/a.html` });
      await capped.fails(s.id, 'go_to_url', { url: `${base}/fixtures/nav/a.html` });
      await capped.ok(s.id, 'close');
    }
    for (const params of [{ allowedOrigins: [alt] }, { allowedHostPatterns: ['127.0.0.1'] }]) {
      const r = await capped.fails('4242', 'start', params);
      assert.match(
        r.json.msg,
        /^start 失败：\[ACTION_FAILED\] 这个服务只允许访问 http:\/\/127\.0\.0\.1:\d+（tabwright serve --allow-origin 设定的上限）；任务只能缩小这个范围，不能扩大/,
      );
      assert.equal(r.json.data.reason, 'policy_widening');
    }
    const tasks = (await capped.ok(undefined, 'list_tasks')).tasks as Json[];
    assert.deepEqual(tasks, [], 'a refused start leaves no task');
  });
});
