import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';

/**
 * Upstream's own clients, replayed request for request over real HTTP against a real Chromium
 * (written from litongjava/deepseek-browser-use's published behaviour, not its code):
 *
 * 1. The TypeScript harness plugin's smoke sequence (plugins/deepseek-browser-use/scripts/smoke.mjs)
 *    with its default settings: `start {browser:"chrome", headless:true}` on the first command,
 *    `responseMode:"compact"` on every envelope, a non-2xx HTTP status is a transport error,
 *    scripts wrapped into a function literal that stores its result in the page, uploads staged as
 *    raw bytes first, async batches polled with get_job.
 * 2. The Go CLI's self test (dsb/selftest.go): its 30 checks, with its task id, its fixture page
 *    (an infinitely animated element, an ant-design modal, rows added by a timer) opened as a
 *    file: URL, its batches and its pass conditions.
 */

let h: DoorHarness;

before(async () => {
  // The CLI's self test opens its fixture as a file: URL (tabwright serve --allow-file-urls).
  h = await doorHarness({}, { allowFileUrls: true });
});
after(async () => h?.close());

/** What the plugin's client does with a reply: any non-2xx is a thrown transport error. */
async function pluginRequest(path: string, body?: Json | Uint8Array, query = ''): Promise<Json> {
  const raw = body instanceof Uint8Array;
  const res = await fetch(`${h.server.url}${path}${query}`, {
    method: body ? 'POST' : 'GET',
    headers: {
      Accept: 'application/json',
      ...(raw
        ? { 'Content-Type': 'application/octet-stream' }
        : body
          ? { 'Content-Type': 'application/json' }
          : {}),
    },
    body: raw ? Buffer.from(body) : body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `HTTP ${res.status} is a transport error for the plugin: ${text.slice(0, 500)}`);
  const envelope = JSON.parse(text) as Json;
  assert.equal(typeof envelope.ok, 'boolean', 'the plugin requires ok:boolean');
  return envelope;
}

/**
 * The plugin's recoverable-evaluate shape: a function literal whose value is stored in the page
 * under a token before it is returned (so a lost reply can be read back by a probe).
 */
function recoverable(body: string, token: string): string {
  const store = `globalThis.__replayStore[${JSON.stringify(token)}]`;
  return `() => { globalThis.__replayStore = globalThis.__replayStore || {}; try { const v = (() => {${body}})(); ${store} = { ok: true, value: v === undefined ? null : v }; return v; } catch (e) { ${store} = { ok: false }; throw e; } }`;
}

test('the harness plugin smoke sequence with its default configuration (14 tool calls)', async () => {
  const page = `${h.fixtures.url}/fixtures/http-upstream/plugin-smoke.html`;
  const taskId = 281474976710000; // the plugin's random 48-bit ids are exact JSON integers
  const command = async (method: string, params: Json = {}) => {
    const r = await pluginRequest('/playwright/command', {
      id: taskId,
      method,
      params,
      responseMode: 'compact',
    });
    assert.equal(r.ok, true, `${method}: ${JSON.stringify(r).slice(0, 800)}`);
    return r;
  };
  const calls: string[] = [];

  // 1. dsb_health: the health route and its two probes.
  assert.equal((await pluginRequest('/playwright/health')).ok, true);
  assert.equal((await pluginRequest('/playwright/tasks')).ok, true);
  assert.equal((await pluginRequest('/playwright/config')).ok, true);
  calls.push('health');

  // 2. The first browser tool starts the task with the plugin's options: chrome, headless.
  const started = await command('start', { browser: 'chrome', headless: true });
  assert.equal(started.data.requestedBrowser, 'chrome');
  assert.equal(typeof started.data.engineHonored, 'boolean');
  if (!started.data.engineHonored)
    assert.match(started.data.engineWarning, /^请求的浏览器是 chrome，实际用的是 /);
  calls.push('start');

  // 3. dsb_navigate.
  await command('go_to_url', { url: page });
  calls.push('navigate');

  // 4. dsb_state: highlight off, elements omitted; the page's label is in the text.
  const state = await command('get_browser_state', { highlight: false, includeElements: false });
  assert.match(JSON.stringify(state), /Submit/);
  assert.match(state.data.text, /^Name$/m, state.data.text);
  calls.push('state');

  // 5-6. dsb_input, dsb_click by selector.
  await command('input_text_by_selector', { selector: '#name', text: '中文插件验证' });
  calls.push('input');
  await command('click_element_by_selector', { selector: '#go' });
  calls.push('click');

  // 7. dsb_evaluate: the wrapped script returns the result text.
  const checked = await command('execute_js', {
    body: recoverable('return document.querySelector("#result").textContent;', 'a1'),
  });
  assert.match(JSON.stringify(checked), /中文插件验证/);
  calls.push('evaluate');

  // 8. dsb_upload, two steps: stage raw bytes, then upload_file with the staged path.
  const staged = await pluginRequest(
    '/playwright/upload',
    new TextEncoder().encode('upload verification'),
    '?filename=smoke.txt',
  );
  assert.equal(staged.ok, true, JSON.stringify(staged));
  await command('upload_file', { selector: '#file', path: String(staged.data.path) });
  const uploaded = await command('execute_js', {
    body: recoverable('return document.querySelector("#file").files[0].name;', 'a2'),
  });
  assert.match(JSON.stringify(uploaded), /smoke\.txt/);
  calls.push('upload');

  // 9. dsb_screenshot (view:false → inline:false): a saved screenshot URL.
  const shot = await command('screenshot', { inline: false });
  assert.match(JSON.stringify(shot), /\.png/);
  calls.push('screenshot');

  // 10. dsb_state with select:"data.text" (the projection is the plugin's; the request is the same).
  const projected = await command('get_browser_state', { highlight: false, includeElements: false });
  assert.equal(typeof projected.data.text, 'string');
  assert.match(projected.data.text, /Submit/);
  calls.push('select');

  // 11. dsb_batch: always async, stopOnError true; the reply must carry a jobId.
  const submitted = await command('commands', {
    commands: [{ get_title: {} }, { get_url: {} }],
    async: true,
    stopOnError: true,
  });
  assert.equal(typeof submitted.data.jobId, 'string');
  calls.push('batch');

  // 12. dsb_job with includeResult until it is no longer running.
  let job: Json;
  const deadline = Date.now() + 30_000;
  for (;;) {
    job = await command('get_job', { jobId: submitted.data.jobId, includeResult: true });
    if (job.data.status !== 'running') break;
    assert.ok(Date.now() < deadline, 'the smoke batch did not finish within 30 s');
    await new Promise((r) => setTimeout(r, 150));
  }
  assert.equal(job.data.ok, true, JSON.stringify(job));
  calls.push('job');

  // 13-14. dsb_close, then the plugin's dispose: a closed task answers as unknown, never a 5xx.
  await command('close');
  calls.push('close');
  const gone = await pluginRequest('/playwright/command', { id: taskId, method: 'get_url', params: {} });
  assert.equal(gone.ok, false);
  assert.match(gone.msg, /没有找到对应的浏览器实例/);
  calls.push('dispose');
  assert.equal(calls.length, 14);
});

/** The Go CLI's self-test page (dsb/selftest.go), reproduced from its published description. */
const SELFTEST_PAGE = `<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>dsb selftest</title>
<style>
  @keyframes slide { from { transform: translateX(0); } to { transform: translateX(60px); } }
  #moving { display: inline-block; animation: slide 1.6s linear infinite alternate; }
  .ant-modal-wrap { position: fixed; left: 300px; top: 300px; width: 420px; height: 220px; z-index: 1000; }
</style></head><body>
  <div id="moving">一直在动的按钮</div>
  <div id="clickFlag">idle</div>
  <div id="rows"></div>
  <div class="ant-modal-wrap" id="modalWrap">
    <div class="ant-modal" role="dialog">
      <div class="ant-modal-content">
        <div class="ant-modal-confirm-title">确认提交申请？</div>
        <div class="ant-modal-confirm-btns">
          <button class="ant-btn" id="mCancel">取消</button>
          <button class="ant-btn ant-btn-primary" id="mOk">确定</button>
        </div>
      </div>
      <button class="ant-modal-close" id="mClose">×</button>
    </div>
  </div>
  <script>
    document.getElementById('moving').addEventListener('click', function () {
      document.getElementById('clickFlag').textContent = 'moving-clicked';
    });
    document.getElementById('mCancel').addEventListener('click', function () {
      document.getElementById('modalWrap').remove();
    });
    setTimeout(function () {
      var box = document.getElementById('rows');
      for (var i = 0; i < 3; i++) { box.insertAdjacentHTML('beforeend', '<div class="row">r' + i + '</div>'); }
    }, 400);
  </script>
</body></html>
`;

test("the Go CLI's self test: 30 checks, request for request", async () => {
  const taskId = 990001;
  const failures: string[] = [];
  let checks = 0;
  const check = (name: string, condition: boolean, detail = '') => {
    checks++;
    if (!condition) failures.push(`${name} ${detail}`);
  };
  // The CLI parses every reply (4xx included) as an envelope and records it.
  const request = async (path: string) => (await fetch(`${h.server.url}${path}`)).json() as Promise<Json>;
  const cmd = async (method: string, params: Json = {}): Promise<Json> => {
    const res = await fetch(`${h.server.url}/playwright/command`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ id: taskId, method, params }),
    });
    return (await res.json()) as Json;
  };
  const batch = (commands: Json[], asynchronous = false) =>
    cmd('commands', { commands, stopOnError: false, ...(asynchronous ? { async: true } : {}) });

  check('健康检查', (await request('/playwright/health')).ok === true);
  const methods = await request('/playwright/methods');
  const names = new Set<string>(methods.ok ? methods.data.methods : []);
  check('命令清单', names.size > 0);
  for (const needed of [
    'get_modals',
    'close_modal',
    'mouse_click',
    'wait_for_stable',
    'wait_for_count',
    'get_config',
    'list_tasks',
    'run_recipe',
    'get_job',
    'cleanup',
  ])
    check(`新命令可用:${needed}`, names.has(needed));

  await cmd('close'); // leftovers of an earlier run; failing here is fine
  const started = await cmd('start', { headless: true });
  check('启动任务', started.ok === true, started.msg);
  assert.equal(started.ok, true, JSON.stringify(started));
  check('引擎参数被采纳', started.data.engineHonored === undefined || started.data.engineHonored === true);

  const fixture = join(h.home, 'selftest-fixture.html');
  writeFileSync(fixture, SELFTEST_PAGE);
  const opened = await cmd('go_to_url', { url: pathToFileURL(fixture).href });
  check('打开自检页面', opened.ok === true, opened.msg);
  const title = await cmd('get_title');
  check('读标题', title.ok === true && String(title.data?.title).includes('selftest'));

  const b = await batch([
    { wait_for_count: { selector: '.row', min: 3, timeoutSeconds: 10 } },
    { get_modals: {} },
    { close_modal: { which: 'top', button: '取消' } },
    { get_modals: {} },
    { click_element_by_selector: { selector: '#moving', mode: 'auto', timeoutMs: 900 } },
  ]);
  const results: Json[] = b.data?.results ?? [];
  check('批量执行', b.ok === true && results.length === 5, b.msg);
  const step = (i: number): Json => results[i]?.data ?? {};
  check('wait_for_count 等到 3 行', String(step(0).count) === '3', JSON.stringify(step(0)));
  check('get_modals 看到 1 个弹窗', String(step(1).count) === '1', JSON.stringify(step(1)));
  check('close_modal 真的关掉了', step(2).closed === true, JSON.stringify(results[2]));
  check('关掉之后弹窗归零', String(step(3).count) === '0', JSON.stringify(step(3)));
  check('点击降级到真实鼠标', step(4).mode === 'mouse', JSON.stringify(results[4]).slice(0, 600));

  const expect = await batch([{ execute_js: { body: '() => 1' }, expect: { js: '() => 2', equals: 3 } }]);
  check(
    'expect 断言能报出不一致',
    expect.ok === false && String(expect.data?.expectFailed) === '1' && String(expect.data?.failed) === '0',
    JSON.stringify(expect).slice(0, 600),
  );

  const asyncStart = await batch([{ execute_js: { body: '() => 42' } }], true);
  const jobId = String(asyncStart.data?.jobId ?? '');
  check('异步批次返回 jobId', jobId !== '');
  let final: Json = {};
  for (const until = Date.now() + 30_000; Date.now() < until; ) {
    final = await cmd('get_job', { jobId, includeResult: false });
    if (final.data?.status !== 'running') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  check('异步任务跑完', final.data?.status === 'done', JSON.stringify(final).slice(0, 400));

  const tasks = await request('/playwright/tasks');
  check(
    '任务清单能看到自己',
    tasks.ok === true && (tasks.data.tasks as Json[]).some((t) => String(t.id) === String(taskId)),
  );
  const config = await request('/playwright/config');
  check(
    '生效配置可读',
    config.ok === true && typeof config.data.engine === 'string' && config.data.engine !== '',
  );
  assert.equal(typeof config.data.profileDir.resolved, 'string', 'the CLI prints profileDir.resolved');
  check('配方库可读', (await cmd('list_recipes')).ok === true);
  const cleanup = await cmd('cleanup', { scope: 'data', olderThanHours: 24 });
  check('cleanup 默认只预演', cleanup.ok === true && cleanup.data.dryRun === true);
  check('关掉任务', (await cmd('close')).ok === true);

  assert.equal(checks, 30);
  assert.deepEqual(failures, []);
});
