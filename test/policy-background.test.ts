import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PolicyProxy } from '../src/engine/policy-proxy.js';
import type { Engine } from '../src/index.js';
import { type Attacker, startAttacker } from './helpers/attacker.js';
import { assertLeaksBlocked, leakPageUrl, leavePageUrl } from './helpers/background-leaks.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// The five attacks that page request routing never sees, in the engine (one shared browser):
// an unrestricted session shows that they do reach the attacker; a restricted one that the
// session's policy proxy and the WebRTC flag stop every one and record it.

let engine: Engine;
let fx: FixtureServer;
let attacker: Attacker;
const home = tempHome();

before(async () => {
  [fx, attacker] = await Promise.all([startFixtureServer(), startAttacker()]);
  engine = newEngine(home.dir);
});
after(async () => {
  await engine?.close();
  await attacker?.close();
  await fx?.close();
  home.cleanup();
});

test('control: without a policy the attacks reach the attacker (WebRTC over TCP only, never UDP; WebTransport over UDP)', async () => {
  const s = await engine.startSession({}, { timeoutMs: 30_000 });
  try {
    const page = s.page();
    await page.open(leakPageUrl(fx, attacker), 'load', { timeoutMs: 15_000 });
    const wanted = [
      'GET /shared-worker-fetch?secret=S1',
      'upgrade /worker-websocket?secret=S2',
      'POST /keepalive-fetch?secret=S3',
      'POST /beacon?secret=S4',
    ];
    const has = (w: string) => attacker.received().includes(w);
    const turnTcp = () => attacker.received().some((l) => l.startsWith('tcp data that is not HTTP'));
    const until = async (done: () => boolean) => {
      const end = Date.now() + 15_000;
      while (!done()) {
        if (Date.now() > end) assert.fail(`received: ${JSON.stringify(attacker.received())}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await until(() => has(wanted[0]!) && has(wanted[1]!) && turnTcp());
    await page.open(leavePageUrl(fx), 'load', { timeoutMs: 15_000 });
    await until(() => wanted.every(has));
    await until(() => attacker.received().some((l) => l.startsWith('udp other')));
    assert.equal(
      attacker.received().filter((l) => l.startsWith('udp stun')).length,
      0,
      'launched browsers never send WebRTC UDP (only WebTransport reached the attacker over UDP)',
    );
  } finally {
    await engine.closeSession(s.id);
  }
});

test('restricted: every attack is refused at the browser level and recorded; the proxy closes with the session', async () => {
  // Let the unrestricted session's stragglers land before counting.
  await new Promise((r) => setTimeout(r, 500));
  const before = attacker.received().length;
  const got = () => attacker.received().slice(before);
  const s = await engine.startSession({ policy: { allowed_origins: [fx.url] } }, { timeoutMs: 30_000 });
  const page = s.page();
  const records = await assertLeaksBlocked(
    { ...attacker, received: got },
    {
      open: () => page.open(leakPageUrl(fx, attacker), 'load', { timeoutMs: 15_000 }),
      leave: () => page.open(leavePageUrl(fx), 'load', { timeoutMs: 15_000 }),
      list: async () => s.blockedRequests(),
    },
  );
  const tunnel = s.blockedRequests().find((b) => b.method === 'CONNECT');
  assert.deepEqual(
    { kind: tunnel?.kind, resource_type: tunnel?.resource_type, page_id: tunnel?.page_id },
    { kind: 'background', resource_type: 'tunnel', page_id: null },
  );
  assert.ok(records.length <= 200);
  // The allowed origin still works through the proxy, and the proxy port goes away with the session.
  const ok = await page.evaluateScript(`fetch('${fx.url}/echo').then((r) => r.status)`, { timeoutMs: 5_000 });
  assert.equal(ok.value, 200);
  const port = (s as unknown as { proxy: PolicyProxy }).proxy.port;
  await engine.closeSession(s.id);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/`), 'the proxy port is closed');
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(got(), [], 'nothing arrived after the session closed either');
});

test('restricted persistent session (its own browser, proxy set at launch): the same five attacks are refused', async () => {
  const before = attacker.received().length;
  const s = await engine.startSession(
    { kind: 'persistent', profile: 'leaks', policy: { allowed_origins: [fx.url] } },
    { timeoutMs: 30_000 },
  );
  try {
    const page = s.page();
    await assertLeaksBlocked(
      { ...attacker, received: () => attacker.received().slice(before) },
      {
        open: () => page.open(leakPageUrl(fx, attacker), 'load', { timeoutMs: 15_000 }),
        leave: () => page.open(leavePageUrl(fx), 'load', { timeoutMs: 15_000 }),
        list: async () => s.blockedRequests(),
      },
    );
  } finally {
    await engine.closeSession(s.id);
  }
});

test('a policy in a browser tabwright did not launch (attach, remote) is refused before connecting', async () => {
  const policy = { allowed_origins: [fx.url] };
  for (const req of [
    { kind: 'attach' as const, endpoint: 'http://127.0.0.1:9', policy },
    { kind: 'remote' as const, endpoint: 'ws://127.0.0.1:9/', policy },
  ]) {
    const err = await rejectsWith(engine.startSession(req), 'unsupported_target');
    assert.deepEqual(err.details, { kind: req.kind, reason: 'policy_unenforceable' });
    assert.match(err.message, /Start an ephemeral or persistent session with the allowlist/);
  }
});
