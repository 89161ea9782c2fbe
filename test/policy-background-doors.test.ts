import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Attacker, startAttacker } from './helpers/attacker.js';
import { assertLeaksBlocked, leakPageUrl, leavePageUrl } from './helpers/background-leaks.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { doorHarness, type Json } from './helpers/http.js';
import { jsCli } from './helpers/js-cli.js';
import { stdioClient } from './helpers/mcp.js';
import { pipeHarness } from './helpers/pipe-run.js';
import { spawnProvider } from './helpers/provider.js';

// The five background attacks (a SharedWorker's fetch, a Worker's WebSocket, a keepalive fetch and a
// beacon from pagehide, WebRTC TURN/STUN) in a restricted session of every door, each through its
// real transport and its own browser: the attacker on 127.0.0.2 receives nothing, and the door lists
// every refused attempt in its own vocabulary. (Run `npm run -s build` first: the doors are spawned.)

let fx: FixtureServer;
let attacker: Attacker;
const home = tempHome();

before(async () => {
  [fx, attacker] = await Promise.all([startFixtureServer(), startAttacker()]);
});
after(async () => {
  await attacker?.close();
  await fx?.close();
  home.cleanup();
});

describe('background leaks are blocked and listed by every door', () => {
  test('HTTP door: start with allowedOrigins, go_to_url, get_blocked_requests', async () => {
    const h = await doorHarness();
    try {
      const id = await h.start({ allowedOrigins: [fx.url] });
      await assertLeaksBlocked(attacker, {
        open: () => h.ok(id, 'go_to_url', { url: leakPageUrl(fx, attacker) }),
        leave: () => h.ok(id, 'go_to_url', { url: leavePageUrl(fx) }),
        list: async () => {
          const d = await h.ok(id, 'get_blocked_requests');
          assert.equal(d.restricted, true);
          return d.blocked as { url: string }[];
        },
      });
      const d = await h.ok(id, 'get_blocked_requests');
      const tunnel = (d.blocked as Json[]).find((b) => b.method === 'CONNECT');
      assert.deepEqual(
        { kind: tunnel?.kind, resourceType: tunnel?.resourceType, pageId: tunnel?.pageId },
        { kind: 'background', resourceType: 'tunnel', pageId: undefined },
      );
      const since = await h.ok(id, 'get_blocked_requests', { sinceSeq: d.lastSeq });
      assert.equal(since.count, 0);
    } finally {
      await h.close();
    }
  });

  test('provider: session.ensure with allowed_origins, page.open, tabwright.blocked_requests', async () => {
    const p = spawnProvider(home.dir);
    try {
      const s = await p.call('session.ensure', { allowed_origins: [fx.url] });
      const sid = s.session_id as string;
      await assertLeaksBlocked(attacker, {
        open: () => p.call('page.open', { session_id: sid, url: leakPageUrl(fx, attacker) }),
        leave: () => p.call('page.open', { session_id: sid, url: leavePageUrl(fx) }),
        list: async () => (await p.call('tabwright.blocked_requests', { session_id: sid })).blocked,
      });
    } finally {
      await p.close();
    }
  });

  test('MCP (stdio, --allow-origin): navigate, network {blocked: true}', async () => {
    const { mcp } = await stdioClient(['--allow-origin', fx.url], { TABWRIGHT_HOME: home.dir });
    try {
      const lines = async () =>
        (await mcp.call('network', { blocked: true }))
          .split('\n')
          .map((l) => /^#\d+ blocked \w+ \w+ (\S+)/.exec(l)?.[1])
          .filter((u): u is string => !!u)
          .map((url) => ({ url }));
      await assertLeaksBlocked(attacker, {
        open: () => mcp.call('navigate', { url: leakPageUrl(fx, attacker) }),
        leave: () => mcp.call('navigate', { url: leavePageUrl(fx) }),
        list: lines,
      });
      assert.match(
        await mcp.call('network', { blocked: true }),
        /blocked background CONNECT 127\.0\.0\.2:\d+ \(tunnel, no page\)/,
      );
    } finally {
      await mcp.close();
    }
  });

  test('pipe: rules.json domains, the SDK agent sees data.blocked_requests', async () => {
    const { rules, runPipe } = pipeHarness(home.dir);
    const agent = fileURLToPath(new URL('./fixtures/agents/leak-agent.mjs', import.meta.url));
    const r = await runPipe([
      '--rules',
      rules({ domains: { allowed: ['127.0.0.1'] } }),
      '--agent',
      `node ${agent} ${leakPageUrl(fx, attacker)} ${leavePageUrl(fx)} ${attacker.url}`,
    ]);
    const line = r.stderr.split('\n').find((l) => l.startsWith('[agent] BLOCKED '));
    assert.ok(line, r.stderr.slice(-3000));
    const blocked = JSON.parse(line.slice('[agent] BLOCKED '.length)) as Json[];
    // The agent already waited for every record; the door listed them all, and nothing arrived.
    await assertLeaksBlocked(attacker, {
      open: async () => {},
      leave: async () => {},
      list: async () => blocked as { url: string }[],
    });
    assert.ok(
      r.hostLines.some((l) => l.includes('request blocked by origin policy')),
      'logged to stderr',
    );
  });

  test('JS harness: browser.launch(), open() with allowedOrigins, page.signals()', async () => {
    const js = jsCli(`leaks-${process.pid}`);
    try {
      await js.json(`
await browser.launch();
globalThis.page = await browser.open('${leakPageUrl(fx, attacker)}', { allowedOrigins: ['${fx.url}'] });
globalThis.blocked = [];
return true;
`);
      const list = async () =>
        js.json<{ url: string }[]>(`
const s = await page.signals();
for (const e of s.events ?? []) if (e.kind === 'blocked') blocked.push({ url: e.url, text: e.text });
return blocked;
`);
      await assertLeaksBlocked(attacker, {
        open: async () => {},
        leave: () => js.json(`return { status: (await page.goto('${leavePageUrl(fx)}')).status };`),
        list,
      });
    } finally {
      await js.stop();
    }
  });
});
