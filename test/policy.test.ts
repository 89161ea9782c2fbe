import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { Engine, Session } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { until } from './helpers/until.js';

let server: FixtureServer;
let engine: Engine;
let strict: Session;
const home = tempHome();

/** The attack page on the allowed origin, told where the disallowed origin is. */
const attackUrl = (file: string) =>
  `${server.url}/fixtures/policy/${file}?alt=${encodeURIComponent(server.altUrl)}`;

before(async () => {
  server = await startFixtureServer();
  engine = newEngine(home.dir);
  // The first session launches the browser: allow for a slow machine.
  strict = await engine.startSession(
    { policy: { allowed_origins: [server.url], subresources: 'block' } },
    { timeoutMs: 30_000 },
  );
});

after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

describe('origin policy at the network layer', () => {
  test('direct navigation to a disallowed origin is permission_denied with the origin', async () => {
    const err = await rejectsWith(strict.page().open(`${server.altUrl}/echo`), 'permission_denied');
    assert.equal(err.details.origin, server.altUrl);
  });

  test('a 302 to a disallowed origin is stopped at the redirect hop', async () => {
    const page = strict.page();
    const since = strict.network.lastSeq;
    const target = `${server.altUrl}/echo?via=redirect`;
    const err = await rejectsWith(
      page.open(`${server.url}/redirect?to=${encodeURIComponent(target)}`),
      'permission_denied',
    );
    assert.equal(err.details.origin, server.altUrl);
    assert.equal(err.details.kind, 'redirect');
    const rec = strict.blockedRequests({ since_seq: since });
    assert.equal(rec[0]?.url, target);
    assert.equal(rec[0]?.kind, 'redirect');
    assert.equal(rec[0]?.page_id, page.id);
  });

  test('a redirect chain that leaves the allowlist on its second hop is stopped', async () => {
    const since = strict.network.lastSeq;
    const last = `${server.altUrl}/echo?via=chain`;
    const hop2 = `${server.url}/redirect?to=${encodeURIComponent(last)}`;
    await rejectsWith(
      strict.page().open(`${server.url}/redirect?to=${encodeURIComponent(hop2)}`),
      'permission_denied',
    );
    assert.equal(strict.blockedRequests({ since_seq: since })[0]?.url, last);
  });

  test('a redirect that stays inside the allowlist is followed', async () => {
    const to = `${server.url}/fixtures/nav/a.html`;
    const r = await strict.page().open(`${server.url}/redirect?to=${encodeURIComponent(to)}`);
    assert.equal(r.url, to);
    assert.equal(r.status, 200);
  });

  test('a script navigation (location.href) is blocked', async () => {
    const page = strict.page();
    await page.open(attackUrl('attacks.html'));
    const since = strict.network.lastSeq;
    await page.evaluate(
      'attack',
      () => (window as unknown as { attacks: { jsNavigate(): void } }).attacks.jsNavigate(),
      null,
    );
    const rec = await until(() => strict.blockedRequests({ since_seq: since })[0]);
    assert.equal(rec.kind, 'navigation');
    assert.equal(rec.frame, 'main');
    assert.ok(!page.url().startsWith(`${server.altUrl}/echo`) || rec.url === page.url());
  });

  test('a meta refresh to a disallowed origin is blocked', async () => {
    const page = strict.page();
    const since = strict.network.lastSeq;
    await page.open(attackUrl('meta-refresh.html'));
    const rec = await until(() => strict.blockedRequests({ since_seq: since })[0]);
    assert.equal(rec.url, `${server.altUrl}/echo?via=meta`);
    assert.equal(rec.kind, 'navigation');
  });

  for (const [name, fn, kind] of [
    ['window.open', 'windowOpen', 'popup'],
    ['target=_blank', 'blankLink', 'popup'],
    ['window.open through a redirect', 'windowOpenRedirect', 'redirect'],
  ] as const) {
    test(`a ${name} popup to a disallowed origin never loads it`, async () => {
      const page = strict.page();
      await page.open(attackUrl('attacks.html'));
      const since = strict.network.lastSeq;
      await page.evaluate(
        'attack',
        (f) => (window as unknown as { attacks: Record<string, () => void> }).attacks[f]!(),
        fn,
      );
      const rec = await until(() => strict.blockedRequests({ since_seq: since })[0]);
      assert.equal(rec.kind, kind);
      assert.ok(rec.url.startsWith(`${server.altUrl}/echo`));
      // The new window either never becomes a tab or stays blank; it never shows the disallowed origin.
      await new Promise((r) => setTimeout(r, 300));
      for (const p of strict.pages()) {
        assert.ok(!p.url().startsWith(server.altUrl), p.url());
        if (p !== page) await p.close();
      }
    });
  }

  test('a form POST to a disallowed origin is blocked', async () => {
    const page = strict.page();
    await page.open(attackUrl('attacks.html'));
    const since = strict.network.lastSeq;
    await page.evaluate(
      'attack',
      () => (window as unknown as { attacks: { formPost(): void } }).attacks.formPost(),
      null,
    );
    const rec = await until(() => strict.blockedRequests({ since_seq: since })[0]);
    assert.equal(rec.method, 'POST');
    assert.equal(rec.kind, 'navigation');
  });

  test('a disallowed iframe document is blocked; an allowed one loads', async () => {
    const page = strict.page();
    const since = strict.network.lastSeq;
    await page.open(attackUrl('iframes.html'));
    const rec = await until(() =>
      strict.blockedRequests({ since_seq: since }).find((r) => r.frame === 'child'),
    );
    assert.equal(rec.url, `${server.altUrl}/fixtures/policy/framed.html`);
    const good = await until(() =>
      page.backend.frames().find((f) => f.url() === `${server.url}/fixtures/policy/framed.html`),
    );
    assert.ok(good);
  });

  test('an iframe redirected to a disallowed origin is stopped at the hop', async () => {
    const page = strict.page();
    const since = strict.network.lastSeq;
    await page.open(attackUrl('iframe-redirect.html'));
    const rec = await until(() => strict.blockedRequests({ since_seq: since })[0]);
    assert.equal(rec.kind, 'redirect');
    assert.equal(rec.frame, 'child');
    assert.ok(page.backend.frames().every((f) => !f.url().startsWith(server.altUrl)));
  });

  test('a form POST inside the allowlist goes through with its body', async () => {
    const page = strict.page();
    await page.open(`${server.url}/fixtures/nav/a.html`);
    await page.evaluate(
      'post',
      (action) => {
        const f = document.createElement('form');
        f.method = 'post';
        f.action = action;
        const i = document.createElement('input');
        i.name = 'q';
        i.value = 'kept';
        f.append(i);
        document.body.append(f);
        f.submit();
      },
      `${server.url}/echo`,
    );
    await page.wait({ text_present: 'q=kept', url_matches: '**/echo' });
  });

  test('subresources from other origins are blocked with subresources "block"', async () => {
    const page = strict.page();
    const since = strict.network.lastSeq;
    await page.open(attackUrl('subresources.html'));
    await page.wait(
      { js_predicate: "!document.body.innerText.includes('pending')" },
      {},
      { timeoutMs: 5000 },
    );
    await until(() => strict.blockedRequests({ since_seq: since }).length >= 2);
    const kinds = strict.blockedRequests({ since_seq: since }).map((r) => `${r.kind}:${r.resource_type}`);
    assert.ok(kinds.includes('subresource:image'), kinds.join());
    assert.ok(kinds.includes('subresource:fetch'), kinds.join());
  });

  test('subresources "allow" lets images and fetches through but still blocks documents', async () => {
    const s = await engine.startSession({ policy: { allowed_origins: [server.url], subresources: 'allow' } });
    try {
      const page = s.page();
      await page.open(attackUrl('subresources.html'));
      await page.wait(
        { js_predicate: "document.getElementById('img').textContent === 'loaded'" },
        {},
        { timeoutMs: 5000 },
      );
      assert.equal(s.blockedRequests().length, 0);
      await rejectsWith(page.open(`${server.altUrl}/echo`), 'permission_denied');
    } finally {
      await engine.closeSession(s.id);
    }
  });

  test('WebSockets: only allowed origins connect; others are refused and recorded', async () => {
    const hits: string[] = [];
    const sockets: Duplex[] = [];
    const wsServer = createServer((_req, res) => res.writeHead(404).end());
    wsServer.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
      hits.push(req.url ?? '');
      sockets.push(socket);
      const accept = createHash('sha1')
        .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
    });
    await new Promise<void>((r) => wsServer.listen(0, '127.0.0.1', r));
    const port = (wsServer.address() as AddressInfo).port;
    const s = await engine.startSession({
      policy: { allowed_origins: [server.url, `http://127.0.0.1:${port}`] },
    });
    try {
      const page = s.page();
      await page.open(`${server.url}/fixtures/nav/a.html`);
      const connect = (url: string) =>
        page.evaluate(
          'ws',
          (u) =>
            new Promise<string>((resolve) => {
              const ws = new WebSocket(u);
              ws.onopen = () => resolve('open');
              ws.onerror = () => resolve('error');
              ws.onclose = (e) => resolve(`closed ${e.code}`);
            }),
          url,
        );
      assert.equal(await connect(`ws://127.0.0.1:${port}/ok`), 'open');
      // Chromium closes a refused socket with 1008; Firefox fails its handshake (an error event).
      const refused = process.env.TABWRIGHT_BROWSER === 'firefox' ? 'error' : 'closed 1008';
      assert.equal(await connect(`ws://localhost:${port}/evil`), refused);
      assert.deepEqual(hits, ['/ok']);
      const rec = await until(() => s.blockedRequests().find((r) => r.resource_type === 'websocket'));
      assert.equal(rec.url, `ws://localhost:${port}/evil`);
      assert.equal(rec.kind, 'subresource');
    } finally {
      await engine.closeSession(s.id);
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => wsServer.close(r));
    }
  });

  test('assertPageAllowed passes on an allowed page and refuses a disallowed frame', async () => {
    const page = strict.page();
    await page.open(`${server.url}/fixtures/nav/a.html`);
    page.assertPageAllowed();
    assert.throws(
      () => page.assertPageAllowed([`${server.altUrl}/fixtures/policy/framed.html`]),
      (err: { code: string; details: Record<string, unknown> }) =>
        err.code === 'permission_denied' &&
        err.details.origin === server.altUrl &&
        err.details.frame === 'child',
    );
  });

  test('host patterns widen the allowlist', async () => {
    const s = await engine.startSession({ policy: { allowed_host_patterns: ['localhost'] } });
    try {
      const r = await s.page().open(`${server.altUrl}/fixtures/nav/a.html`);
      assert.equal(r.status, 200);
      await rejectsWith(s.page().open(`${server.url}/fixtures/nav/a.html`), 'permission_denied');
    } finally {
      await engine.closeSession(s.id);
    }
  });

  test('an unrestricted session blocks nothing', async () => {
    const s = await engine.startSession();
    try {
      const r = await s
        .page()
        .open(`${server.url}/redirect?to=${encodeURIComponent(`${server.altUrl}/echo`)}`);
      assert.equal(r.url, `${server.altUrl}/echo`);
      s.page().assertPageAllowed();
      assert.equal(s.blockedRequests().length, 0);
    } finally {
      await engine.closeSession(s.id);
    }
  });
});
