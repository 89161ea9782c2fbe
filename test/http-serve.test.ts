import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type HttpServer, startHttpServer } from '../src/doors/http/server.js';
import { createEngine, type Engine } from '../src/index.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

let home: string;
let engine: Engine;
let server: HttpServer;
let fixtures: FixtureServer;

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tabwright-http-'));
  engine = createEngine({ home });
  server = await startHttpServer(engine, { port: 0 });
  fixtures = await startFixtureServer();
});

after(async () => {
  await server?.close().catch(() => {});
  await engine?.close().catch(() => {});
  await fixtures?.close().catch(() => {});
  if (home) rmSync(home, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON, checked field by field below
type Json = Record<string, any>;

async function post(body: unknown, raw = false): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${server.url}/playwright/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** A command that must succeed; returns its data. */
async function ok(id: string | undefined, method: string, params: Json = {}): Promise<Json> {
  const { status, json } = await post({ id, method, params });
  assert.equal(status, 200, JSON.stringify(json));
  assert.equal(json.ok, true, JSON.stringify(json));
  assert.equal(json.code, 1);
  assert.equal('msg' in json, false, 'success replies omit msg');
  return json.data;
}

/** GET with the path sent byte-for-byte (fetch would normalize dot-segments away). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('health answers with the exact body', async () => {
  const res = await fetch(`${server.url}/playwright/health`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '{"data":{"name":"tabwright"},"code":1,"ok":true}');
});

test('GET /playwright/command is rejected as upstream does: HTTP 200, a failed envelope', async () => {
  const res = await fetch(`${server.url}/playwright/command?method=get_url&id=1`);
  assert.equal(res.status, 200);
  const json = (await res.json()) as Json;
  assert.equal(json.ok, false);
  assert.equal(json.code, 0);
  assert.match(json.msg, /POST/);
});

test('start without id generates distinct, ordered snowflake ids as strings', async () => {
  const a = await ok(undefined, 'start');
  const b = await ok(undefined, 'start');
  assert.equal(typeof a.id, 'string');
  assert.equal(typeof b.id, 'string');
  assert.match(a.id, /^[0-9]{15,20}$/);
  assert.notEqual(a.id, b.id);
  assert.ok(BigInt(a.id) < BigInt(b.id), `${a.id} should sort before ${b.id}`);
  assert.ok(BigInt(a.id) > BigInt(Number.MAX_SAFE_INTEGER), 'snowflakes exceed the safe-integer range');
  assert.equal(a.browser.type, 'chromium');
  assert.equal(a.browser.headless, true);
  await ok(a.id, 'close');
  await ok(b.id, 'close');
});

test('start with an id that is already running fails with the literal message', async () => {
  const first = await ok(undefined, 'start', {});
  // Numeric id: returned as a string.
  const numeric = await post({ id: 1001, method: 'start' });
  assert.equal(numeric.json.ok, true, JSON.stringify(numeric.json));
  assert.equal(numeric.json.data.id, '1001');
  const again = await post({ id: '1001', method: 'start' });
  assert.equal(again.status, 200);
  assert.equal(again.json.ok, false);
  assert.equal(again.json.code, 0);
  assert.equal(
    again.json.msg,
    'start 失败：该 id 已经有正在运行的浏览器实例：1001，请先调用 close，或换一个 id',
  );
  assert.equal(again.json.data.retryable, false);
  await ok('1001', 'close');
  await ok(first.id, 'close');
});

test('start: profile gives a persistent session; browser and id are validated', async () => {
  const first = await ok('42', 'start', { profile: 'http-door' });
  assert.equal(first.id, '42');
  assert.equal(first.profileSeenBefore, false);
  assert.equal(first.browser.userProfile, true);
  // The profile is held by task 42: the reply names that task.
  const busy = await post({ id: '43', method: 'start', params: { profile: 'http-door' } });
  assert.equal(busy.json.ok, false);
  assert.equal(busy.json.data.heldByTask, '42');
  assert.equal(
    busy.json.msg,
    'start 失败：[ACTION_FAILED] profile http-door 正被任务 42 使用：先对 42 调用 close，或换一个 profile',
  );
  assert.match(busy.json.data.engineMessage, /already in use/);
  await ok('42', 'close');
  const again = await ok('43', 'start', { profile: 'http-door', headless: false });
  assert.equal(again.profileSeenBefore, true, 'the engine saw the directory the first start created');
  assert.equal(again.headlessHonored, false, 'the engine launches every task headless here');
  assert.match(again.headlessNote, /^headless:false 没有生效/);
  await ok('43', 'close');

  const badProfile = await post({ id: '44', method: 'start', params: { profile: '../escape' } });
  assert.equal(badProfile.status, 400);
  assert.equal(badProfile.json.data.invalidArgument, true);
  const badBrowser = await post({ method: 'start', params: { browser: 'netscape' } });
  assert.equal(badBrowser.status, 400);
  assert.equal(
    badBrowser.json.msg,
    'start 失败：无法识别的浏览器类型：netscape，可选值：auto / chromium / chrome / edge / firefox',
  );
  // Upstream's contract: start anyway and report the mismatch (this engine has no Firefox backend).
  const firefox = await ok(undefined, 'start', { browser: 'firefox' });
  assert.equal(firefox.engineHonored, engine.browserFamilies.includes('firefox'));
  assert.equal(firefox.effectiveBrowser, engine.browserFamilies.includes('firefox') ? 'firefox' : 'chromium');
  await ok(firefox.id, 'close');
  const badId = await post({ id: 'abc', method: 'start' });
  assert.equal(badId.status, 400);
  assert.equal(badId.json.msg, 'start 失败：参数 id 无效：必须是数字或数字字符串');
});

test('navigation and page information: go_to_url, get_url, get_title, get_tabs', async () => {
  const { id } = await ok(undefined, 'start');
  const nav = await ok(id, 'go_to_url', { url: `${fixtures.url}/` });
  assert.equal(nav.status, 200);
  assert.equal(nav.title, 'tabwright fixtures');
  assert.equal(nav.url, `${fixtures.url}/`);

  const notFound = await ok(id, 'go_to_url', { url: `${fixtures.url}/status?code=404` });
  assert.equal(notFound.status, 404, 'an HTTP error status is a successful navigation');

  // Compact mode keeps the status and drops url/title.
  const compact = await post({
    id,
    method: 'go_to_url',
    params: { url: `${fixtures.url}/` },
    responseMode: 'compact',
  });
  // (The automatic screenshot's seq and URL stay; its local path goes.)
  const { seq, screenshot, ...rest } = compact.json.data;
  assert.deepEqual(rest, { status: 200 });
  assert.equal(screenshot, `/data/${id}/${seq}.png`);

  assert.deepEqual(await ok(id, 'get_url'), { url: `${fixtures.url}/` });
  assert.deepEqual(await ok(id, 'get_title'), { title: 'tabwright fixtures' });
  const { tabs } = await ok(id, 'get_tabs');
  assert.deepEqual(tabs, [{ index: 0, url: `${fixtures.url}/`, title: 'tabwright fixtures', current: true }]);

  // Unused parameters are reported back; the command still runs.
  const typo = await post({ id, method: 'get_url', params: { frame: 1 } });
  assert.equal(typo.json.ok, true);
  assert.deepEqual(typo.json.data.unknownParams, ['frame']);
  await ok(id, 'close');
});

test('screenshot writes a PNG that is served back under /data', async () => {
  const { id } = await ok(undefined, 'start');
  await ok(id, 'go_to_url', { url: `${fixtures.url}/` });
  const shot = await ok(id, 'screenshot', {});
  assert.equal(shot.url, `/data/${id}/shot-1.png`);
  assert.equal(shot.path, join(home, 'data', id, 'shot-1.png'));
  assert.equal(shot.base64Omitted, true);
  assert.equal('base64' in shot, false);
  assert.ok(shot.size > 100);

  const res = await fetch(`${server.url}${shot.url}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(bytes.length, shot.size);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  const inline = await ok(id, 'screenshot', { fullPage: true, inline: true });
  assert.equal(inline.url, `/data/${id}/shot-2.png`);
  assert.equal(inline.base64Omitted, false);
  assert.equal(Buffer.from(inline.base64, 'base64').length, inline.size);

  const partialClip = await post({ id, method: 'screenshot', params: { clipX: 0, clipY: 0 } });
  assert.equal(partialClip.status, 400);
  assert.equal(partialClip.json.data.invalidArgument, true);
  await ok(id, 'close');
});

test('/data refuses path traversal and unknown files', async () => {
  const secret = join(home, 'secret.txt');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(secret, 'top secret');
  for (const path of [
    '/data/1/../../secret.txt',
    '/data/1/..%2f..%2fsecret.txt',
    '/data/1/%2e%2e/%2e%2e/secret.txt',
    '/data/..%2fsecret.txt',
    '/data/1/..%5c..%5csecret.txt',
    '/data/../secret.txt',
    '/data/%2e%2e%2fsecret.txt/x',
    '/data/1/%00.png',
  ]) {
    const res = await rawGet(path);
    assert.ok(res.status === 403 || res.status === 404, `${path} → ${res.status}`);
    assert.ok(!res.body.includes('top secret'), `${path} leaked the file`);
  }
  assert.equal((await rawGet('/data/1/nothing-here.png')).status, 404);
});

test('missing and invalid parameters give HTTP 400 with the literal message', async () => {
  const { id } = await ok(undefined, 'start');
  const missing = await post({ id, method: 'go_to_url', params: {} });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.ok, false);
  assert.equal(missing.json.code, 0);
  assert.equal(missing.json.msg, 'go_to_url 失败：缺少参数 url');
  assert.equal(missing.json.data.invalidArgument, true);

  const noId = await post({ method: 'get_url' });
  assert.equal(noId.status, 400);
  assert.equal(noId.json.msg, 'get_url 失败：缺少参数 id');

  const wrongType = await post({ id, method: 'go_to_url', params: { url: 42 } });
  assert.equal(wrongType.status, 400);
  // zod's own words in this door's language, type names included.
  assert.equal(wrongType.json.msg, 'go_to_url 失败：参数 url 无效：无效输入：期望 字符串，实际接收 数字');
  const tooLong = await post({ id, method: 'wait', params: { seconds: 1e6 } });
  assert.equal(tooLong.status, 400, JSON.stringify(tooLong.json));
  assert.doesNotMatch(tooLong.json.msg, /[A-Za-z]{3,} [A-Za-z]{3,}/, tooLong.json.msg);

  // The engine's own parameter check (a URL it cannot use) is also a 400.
  const badUrl = await post({ id, method: 'go_to_url', params: { url: 'not a url' } });
  assert.equal(badUrl.status, 400, JSON.stringify(badUrl.json));
  // One code in the message and in data.errorCode: a parameter problem, like the door's own.
  assert.match(badUrl.json.msg, /^go_to_url 失败：\[INVALID_ARGUMENT\] /);
  assert.equal(badUrl.json.data.errorCode, 'INVALID_ARGUMENT');
  assert.equal(badUrl.json.data.invalidArgument, true);

  // Not a command envelope at all: upstream's handler answers 200 (only a method's parameters are 400).
  const noMethod = await post({ id, params: {} });
  assert.equal(noMethod.status, 200);
  assert.equal(noMethod.json.msg, '缺少参数 method');
  await ok(id, 'close');
});

test('unknown methods get up to 3 suggestions', async () => {
  const r = await post({ id: '1', method: 'get_tab' });
  assert.equal(r.json.ok, false);
  assert.equal(r.json.msg, '不支持的方法：get_tab，你是不是想用 get_tabs / new_tab / close_tab？');
  assert.deepEqual(r.json.data.suggestions, ['get_tabs', 'new_tab', 'close_tab']);
  // Same root (list_tabs ~ get_tabs), token subset (take_screenshot ⊃ screenshot), case-insensitive.
  assert.equal((await post({ method: 'list_tabs' })).json.data.suggestions[0], 'get_tabs');
  assert.equal((await post({ method: 'take_screenshot' })).json.data.suggestions[0], 'screenshot');
  assert.equal((await post({ method: 'GET_URL' })).json.data.suggestions[0], 'get_url');
  const none = await post({ id: '1', method: 'xyzzy_plugh_quux' });
  assert.equal(none.json.msg, '不支持的方法：xyzzy_plugh_quux');
  assert.notEqual(none.status, 500);
});

test('a body that is not JSON gets a clear message, never a 500', async () => {
  for (const body of ['{"method":', 'method=get_url']) {
    const r = await post(body, true);
    assert.equal(r.status, 200, body);
    assert.equal(r.json.ok, false);
    assert.match(r.json.msg, /^请求体不是合法 JSON：/);
  }
  const empty = await post('', true);
  assert.equal(empty.status, 200);
  assert.match(empty.json.msg, /^请求体不能为空/);
  const arr = await post('[1,2]', true);
  assert.equal(arr.status, 200);
  assert.match(arr.json.msg, /^请求体不是合法 JSON 对象/);
});

test('unknown task id names the id and the server start time', async () => {
  const r = await post({ id: 987654321, method: 'get_url' });
  assert.equal(r.status, 200);
  assert.equal(r.json.ok, false);
  assert.match(r.json.msg, /^没有找到对应的浏览器实例：987654321/);
  assert.match(r.json.msg, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
  assert.equal(r.json.data.taskNotFound, true);
  assert.ok(r.json.msg.includes(r.json.data.serverStartedAt));
});

test('network failures map to NETWORK_ERROR with netError', async () => {
  const closedPort = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
  const { id } = await ok(undefined, 'start');
  const r = await post({ id, method: 'go_to_url', params: { url: `http://127.0.0.1:${closedPort}/` } });
  assert.equal(r.status, 200);
  assert.equal(r.json.ok, false);
  assert.equal(r.json.data.errorCode, 'NETWORK_ERROR', JSON.stringify(r.json));
  assert.equal(r.json.data.netError, 'ERR_CONNECTION_REFUSED');
  assert.equal(r.json.data.retryable, true);
  assert.equal(r.json.data.retryAfterMs, 5000);
  assert.match(
    r.json.msg,
    /^go_to_url 失败：\[NETWORK_ERROR\] 网络错误（ERR_CONNECTION_REFUSED）：浏览器显示的是网络错误页/,
  );
  await ok(id, 'close');
});

test('a second command for a busy task fails as serialized after ~5 s', async () => {
  const { id } = await ok(undefined, 'start');
  const slowUrl = `${fixtures.url}/slow?ms=7000`;
  const first = post({ id, method: 'go_to_url', params: { url: slowUrl } });
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  const second = await post({ id, method: 'go_to_url', params: { url: slowUrl } });
  const waited = Date.now() - t0;
  assert.equal(second.status, 200);
  assert.equal(second.json.ok, false);
  assert.equal(second.json.data.serialized, true);
  assert.equal(second.json.data.retryable, true);
  assert.equal(second.json.data.started, false);
  assert.ok(waited >= 4_800 && waited < 6_500, `waited ${waited} ms`);
  const done = await first;
  assert.equal(done.json.ok, true, JSON.stringify(done.json));
  assert.equal(done.json.data.title, 'slow 7000');
  await ok(id, 'close');
});

test('close ends the task: later commands see an unknown id', async () => {
  const { id } = await ok(undefined, 'start');
  assert.deepEqual(await ok(id, 'close'), { id, closed: true });
  const r = await post({ id, method: 'get_url' });
  assert.equal(r.json.ok, false);
  assert.match(r.json.msg, new RegExp(`^没有找到对应的浏览器实例：${id}`));
  const twice = await post({ id, method: 'close' });
  assert.equal(twice.json.ok, false);
  // The id is free again.
  await ok(id, 'start');
  await ok(id, 'close');
});

test('shutdown closes every task and the server keeps running', async () => {
  const a = await ok(undefined, 'start');
  const b = await ok(undefined, 'start');
  const data = await ok(undefined, 'shutdown');
  assert.ok(data.closed >= 2);
  assert.ok(data.ids.includes(a.id) && data.ids.includes(b.id));
  for (const id of [a.id, b.id]) {
    const r = await post({ id, method: 'get_url' });
    assert.match(r.json.msg, /^没有找到对应的浏览器实例：/);
  }
  const health = await fetch(`${server.url}/playwright/health`);
  assert.equal(health.status, 200);
  const again = await ok(undefined, 'start');
  await ok(again.id, 'close');
});
