import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hostOnly, requestGuard } from '../src/doors/http/security.js';
import { startHttpServer } from '../src/doors/http/server.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type DoorHarness, doorHarness, rawRequest } from './helpers/http.js';

let h: DoorHarness;

before(async () => {
  h = await doorHarness();
});
after(async () => h?.close());

const raw = rawRequest;

const LIST = JSON.stringify({ method: 'list_methods' });

test('Host header check: loopback names pass, anything else is refused (DNS rebinding)', async () => {
  for (const host of [`127.0.0.1:${h.server.port}`, `localhost:${h.server.port}`, `[::1]:${h.server.port}`]) {
    const r = await raw(h.server.port, { headers: { host, 'content-type': 'application/json' }, body: LIST });
    assert.equal(r.status, 200, `${host}: ${r.body}`);
  }
  for (const host of [`evil.example:${h.server.port}`, 'attacker.test', `192.168.1.5:${h.server.port}`]) {
    const r = await raw(h.server.port, { headers: { host, 'content-type': 'application/json' }, body: LIST });
    assert.equal(r.status, 403, host);
    assert.match(JSON.parse(r.body).msg, /DNS 重绑定/);
  }
  const health = await raw(h.server.port, {
    method: 'GET',
    path: '/playwright/health',
    headers: { host: 'evil.example' },
  });
  assert.equal(health.status, 403);
});

test('cross-site browser requests are refused and no CORS header is ever sent', async () => {
  const base = { host: `127.0.0.1:${h.server.port}`, 'content-type': 'application/json' };
  const foreign = await raw(h.server.port, {
    headers: { ...base, origin: 'https://evil.example' },
    body: LIST,
  });
  assert.equal(foreign.status, 403);
  const cross = await raw(h.server.port, {
    headers: { ...base, 'sec-fetch-site': 'cross-site' },
    body: LIST,
  });
  assert.equal(cross.status, 403);
  const nullOrigin = await raw(h.server.port, { headers: { ...base, origin: 'null' }, body: LIST });
  assert.equal(nullOrigin.status, 403);
  const same = await raw(h.server.port, {
    headers: { ...base, origin: `http://127.0.0.1:${h.server.port}` },
    body: LIST,
  });
  assert.equal(same.status, 200);
  const pre = await raw(h.server.port, {
    method: 'OPTIONS',
    headers: { host: base.host, origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  assert.notEqual(pre.status, 200);
  for (const r of [foreign, same, pre]) {
    assert.equal(
      Object.keys(r.headers).some((k) => k.startsWith('access-control-')),
      false,
    );
  }
});

test('bodies over 8 MiB are refused with a clear message, not a 500', async () => {
  const big = JSON.stringify({
    method: 'list_methods',
    params: { filter: 'x'.repeat(8 * 1024 * 1024 + 10) },
  });
  const r = await raw(h.server.port, {
    headers: { host: `127.0.0.1:${h.server.port}`, 'content-type': 'application/json' },
    body: big,
  });
  assert.equal(r.status, 400);
  const j = JSON.parse(r.body);
  assert.equal(j.ok, false);
  assert.match(j.msg, /8 MiB/);
  assert.equal(j.data.bodyTooLarge, true);
  // Just under the limit is parsed normally.
  const ok = await raw(h.server.port, {
    headers: { host: `127.0.0.1:${h.server.port}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      method: 'list_methods',
      params: { filter: 'get_url' },
      pad: 'y'.repeat(1024 * 1024),
    }),
  });
  assert.equal(ok.status, 200);
});

test('a non-loopback bind needs a token; with one, every request must carry it', async () => {
  const home = tempHome();
  const engine = newEngine(home.dir);
  try {
    await assert.rejects(startHttpServer(engine, { host: '0.0.0.0', port: 0 }), /without a token/);
    await assert.rejects(
      startHttpServer(engine, { host: '0.0.0.0', port: 0, token: 'short' }),
      /16 characters/,
    );
    const token = 'correct-horse-battery-staple';
    const s = await startHttpServer(engine, { host: '0.0.0.0', port: 0, token });
    try {
      const headers = { host: `10.1.2.3:${s.port}`, 'content-type': 'application/json' };
      const none = await raw(s.port, { headers, body: LIST });
      assert.equal(none.status, 401);
      const wrong = await raw(s.port, { headers: { ...headers, authorization: 'Bearer nope' }, body: LIST });
      assert.equal(wrong.status, 401);
      const good = await raw(s.port, {
        headers: { ...headers, authorization: `Bearer ${token}` },
        body: LIST,
      });
      assert.equal(good.status, 200);
      assert.equal(JSON.parse(good.body).ok, true);
    } finally {
      await s.close();
    }
  } finally {
    await engine.close();
    home.cleanup();
  }
});

test('guard unit: host parsing and a specific bind address', () => {
  assert.equal(hostOnly('[::1]:80'), '::1');
  assert.equal(hostOnly('Example.COM:8080'), 'example.com');
  assert.equal(hostOnly('localhost'), 'localhost');
  const g = requestGuard('192.168.0.10', 'x'.repeat(16), ['tw.internal']);
  const auth = { authorization: `Bearer ${'x'.repeat(16)}` };
  const get = (headers: Record<string, string>) => g.check({ method: 'GET', path: '/', headers });
  assert.equal(get({ host: '192.168.0.10:10049', ...auth }), undefined);
  assert.equal(get({ host: 'tw.internal', ...auth }), undefined);
  assert.equal(get({ host: 'evil.example', ...auth })?.status, 403);
  assert.equal(get({ host: '192.168.0.10', authorization: 'Bearer y' })?.status, 401);
  // The server's own origin is the Host header's: scheme http, same host, same (or default) port.
  assert.equal(get({ host: 'tw.internal', origin: 'http://tw.internal', ...auth }), undefined);
  assert.equal(get({ host: 'TW.internal:80', origin: 'http://tw.internal', ...auth }), undefined);
  assert.equal(get({ host: 'tw.internal', origin: 'http://tw.internal:8080', ...auth })?.reason, 'origin');
  assert.equal(get({ host: 'tw.internal', origin: 'http://tw.internal/x', ...auth })?.reason, 'origin');
  assert.equal(get({ host: 'tw.internal', origin: 'http://u@tw.internal', ...auth })?.reason, 'origin');
  // A refused Origin comes before the token: a hostile page learns nothing about it.
  assert.equal(get({ host: 'tw.internal', origin: 'http://evil.example' })?.status, 403);
  const post = (path: string, type?: string) =>
    g.check({
      method: 'POST',
      path,
      headers: { host: 'tw.internal', ...auth, ...(type ? { 'content-type': type } : {}) },
    });
  assert.equal(post('/playwright/command', 'application/json; charset=utf-8'), undefined);
  assert.equal(post('/playwright/command', 'text/plain')?.status, 415);
  assert.equal(post('/anything/else')?.status, 415);
  assert.equal(post('/playwright/upload', 'multipart/form-data; boundary=x'), undefined);
  assert.equal(post('/playwright/upload'), undefined);
});
