/**
 * Sessions on a real Selenium Grid 4 (hub + two nodes with two slots each, on loopback), through the
 * doors' real transports: the provider over stdio, the HTTP command API (`tabwright serve`), MCP over
 * stdio; then the Grid under pressure (full, a killed node, unreachable) and our process killed.
 * One Grid for the whole file: Java starts slowly.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GridBrowser } from '../src/backends/grid/grid-browser.js';
import { GridPlacement } from '../src/backends/grid/grid-placement.js';
import { createEngine } from '../src/cli/compose.js';
import { gridFromEnv } from '../src/cli/grid-options.js';
import { ops } from '../src/engine/api.js';
import type { Engine } from '../src/engine/engine.js';
import { TabwrightError } from '../src/engine/errors.js';
import type { Session } from '../src/engine/session.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { startGrid, type TestGrid } from './helpers/grid.js';
import { refIn, stdioClient } from './helpers/mcp.js';
import { BIN, spawnProvider } from './helpers/provider.js';
import { spawnServe } from './helpers/serve.js';

let grid: TestGrid;
let fx: FixtureServer;
const home = tempHome();
let index: string;

before(async () => {
  [grid, fx] = await Promise.all([startGrid({ nodes: 2, slotsPerNode: 2 }), startFixtureServer()]);
  index = `${fx.url}/fixtures/provider/index.html`;
});

after(async () => {
  await grid?.stop();
  await fx?.close();
  home.cleanup();
});

function gridSessionOf(s: Session): string {
  return (s.browser as GridBrowser).gridSessionId;
}

async function rejects(p: Promise<unknown>): Promise<TabwrightError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TabwrightError, `expected a TabwrightError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('tabwright on a Selenium Grid', () => {
  it('the provider over stdio: snapshot and click on Grid sessions, status, slots freed at close', async () => {
    const p = spawnProvider(home.dir, ['--grid', grid.url]);
    try {
      const status = await p.call('provider.status');
      assert.equal(status.grid.reachable, true);
      assert.equal(status.grid.nodes_up, 2);
      assert.equal(status.grid.free_slots, 4);
      assert.equal(status.availability, 'ready');
      const a = await p.call('session.ensure', { client_session_id: 'a', timeout_ms: 40_000 }, 60_000);
      const b = await p.call('session.ensure', { client_session_id: 'b', timeout_ms: 40_000 }, 60_000);
      const nodes = await grid.sessionNodes();
      assert.equal(nodes.length, 2);
      assert.equal(new Set(nodes).size, 2, `both sessions on one node: ${nodes.join(', ')}`);
      for (const s of [a, b]) {
        await p.call('page.open', { session_id: s.session_id, url: index });
        const snap = await p.call('page.snapshot', { session_id: s.session_id });
        const go = snap.elements.find((e: { name: string }) => e.name === 'Go');
        assert.ok(go, 'the Go button is in the snapshot');
        const click = await p.call('page.click', { session_id: s.session_id, element_ref: go.element_ref });
        assert.equal(click.ok ?? true, true);
        const after = await p.call('page.snapshot', { session_id: s.session_id });
        assert.match(after.text, /clicked 1/);
        assert.ok(!JSON.stringify(after).includes('hunter2'), 'the secret rule holds on a Grid session');
      }
      const busy = await p.call('provider.status');
      assert.equal(busy.grid.free_slots, 2);
      await p.call('session.close', { session_id: a.session_id });
      await grid.waitForSessions(1);
      await p.call('session.close', { session_id: b.session_id });
      await grid.waitForSessions(0);
    } finally {
      await p.close();
    }
  });

  it('the provider killed with SIGKILL: its Grid sessions are deleted (the reaper), the slots are free', async () => {
    // A SIGKILLed process removes nothing: its temporary files (playwright-core's artifacts folder)
    // go in a folder of its own, which the test removes.
    const tmp = mkdtempSync(join(tmpdir(), 'killed-'));
    const p = spawnProvider(home.dir, [], { TABWRIGHT_GRID_URL: grid.url, TMPDIR: tmp });
    try {
      await p.call('session.ensure', { client_session_id: 'k1', timeout_ms: 40_000 }, 60_000);
      await grid.waitForSessions(1);
      process.kill(p.pid!, 'SIGKILL');
      await grid.waitForSessions(0, 15_000);
    } finally {
      await p.close(1000).catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the HTTP command API (tabwright serve --grid): go_to_url, state, click', async () => {
    const serve = await spawnServe(home.dir, ['--grid', grid.url]);
    const post = async (id: string | undefined, method: string, params = {}) => {
      const res = await fetch(`${serve.url}/playwright/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, method, params }),
      });
      const json = (await res.json()) as { ok: boolean; data: Record<string, unknown>; msg?: string };
      assert.equal(json.ok, true, `${method}: ${json.msg}`);
      return json.data;
    };
    try {
      const started = await post(undefined, 'start');
      const id = String(started.id);
      await grid.waitForSessions(1);
      await post(id, 'go_to_url', { url: index });
      const state = await post(id, 'get_browser_state', { viewportExpansion: -1 });
      const line = String(state.text)
        .split('\n')
        .find((l) => l.includes('Go'));
      const idx = Number(/\[(\d+)\]/.exec(line ?? '')?.[1]);
      assert.ok(Number.isInteger(idx), `no index for Go in ${state.text}`);
      const r = await post(id, 'click_element_by_index', { index: idx });
      assert.equal(r.changed, true);
      await post(id, 'close');
      await grid.waitForSessions(0);
    } finally {
      await serve.close();
    }
  });

  it('MCP over stdio (tabwright mcp --grid): navigate, snapshot, click', async () => {
    const { mcp } = await stdioClient(['--grid', grid.url], { TABWRIGHT_HOME: home.dir });
    try {
      await mcp.call('navigate', { url: index });
      const snap = await mcp.call('snapshot');
      await mcp.call('click', { ref: refIn(snap, (l) => l.includes('button "Go"')) });
      assert.match(await mcp.call('wait', { text_present: 'clicked 1' }), /^ok/);
      assert.equal(await grid.sessionCount(), 1);
    } finally {
      await mcp.close();
    }
    await grid.waitForSessions(0);
  });

  describe('in process', () => {
    let engine: Engine;
    let held: Session[] = [];
    before(() => {
      engine = createEngine({ home: home.dir, grid: { url: grid.url } });
    });
    after(async () => {
      await engine?.close();
    });

    it('the origin policy holds on a Grid session (the loopback Grid reaches the policy proxy)', async () => {
      const s = await engine.startSession({ policy: { allowed_origins: [fx.url] } }, { timeoutMs: 30_000 });
      try {
        await ops.open.call(s.page(), { url: index, wait_until: 'load' }, {});
        const denied = await rejects(
          ops.open.call(
            s.page(),
            { url: `${fx.altUrl}/fixtures/provider/index.html`, wait_until: 'load' },
            {},
          ),
        );
        assert.equal(denied.code, 'permission_denied');
        // From the page itself: the request never reaches the other origin.
        const leaked = await ops.evaluate.call(
          s.page(),
          {
            source: `fetch(${JSON.stringify(`${fx.altUrl}/fixtures/provider/file.txt`)}).then(() => 'sent', () => 'blocked')`,
          },
          {},
        );
        assert.equal(leaked.value, 'blocked');
      } finally {
        await engine.closeSession(s.id);
      }
    });

    it('a restricted session on a Grid on another machine is refused (its nodes cannot reach the policy proxy)', async () => {
      const remote = new GridPlacement({ url: 'http://192.0.2.1:4444' });
      assert.equal(remote.sharesLoopback, false);
      const e = createEngine({ home: home.dir, grid: { url: 'http://192.0.2.1:4444' } });
      const err = await rejects(
        e.startSession({ policy: { allowed_origins: [fx.url] } }, { timeoutMs: 2000 }),
      );
      assert.equal(err.code, 'unsupported_target');
      assert.equal(err.details.reason, 'policy_unenforceable');
      await e.close();
    });

    it('an unreachable Grid: setup_required that says what to check; status and doctor say so', async () => {
      const e = createEngine({ home: home.dir, grid: { url: 'http://127.0.0.1:9' } });
      const err = await rejects(e.startSession({}, { timeoutMs: 5000 }));
      assert.equal(err.code, 'setup_required');
      assert.match(err.message, /Cannot reach the Selenium Grid at http:\/\/127\.0\.0\.1:9/);
      const status = await e.placementStatus();
      assert.equal(status?.reachable, false);
      await e.close();
      const doctor = spawnSync(process.execPath, [BIN, 'doctor', '--json', '--grid', 'http://127.0.0.1:9'], {
        encoding: 'utf8',
        env: { ...process.env, TABWRIGHT_HOME: home.dir },
      });
      assert.equal(doctor.status, 1, doctor.stderr);
      const report = JSON.parse(doctor.stdout) as {
        grid: { reachable: boolean };
        problems: { code: string }[];
      };
      assert.equal(report.grid.reachable, false);
      assert.deepEqual(
        report.problems.map((p) => p.code),
        ['grid_unreachable'],
      );
    });

    it('sessions spread over both nodes; a full Grid: the request waits in its queue within the deadline, then not_ready "Grid is full", withdrawn', async () => {
      const started = await Promise.allSettled(
        [1, 2, 3, 4].map(() => engine.startSession({}, { timeoutMs: 40_000 })),
      );
      held = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      assert.equal(
        held.length,
        4,
        `every slot taken: ${started.map((r) => r.status === 'rejected' && String(r.reason))}`,
      );
      const nodes = await grid.sessionNodes();
      assert.deepEqual(
        [...new Set(nodes)].map((n) => nodes.filter((x) => x === n).length),
        [2, 2],
        'two sessions on each node',
      );
      const t0 = Date.now();
      const err = await rejects(engine.startSession({}, { timeoutMs: 3000 }));
      assert.equal(err.code, 'not_ready');
      assert.equal(err.retryable, true);
      assert.equal(err.details.reason, 'grid_full');
      assert.match(err.message, /Grid .* is full/);
      assert.ok(Date.now() - t0 < 6000, 'failed at the deadline, not later');
      // The request left the queue: a slot freed now goes to the next request, not a ghost.
      assert.equal((await engine.placementStatus())?.queue, 0);
      // Keep one session per node for the next test; the others' slots are freed.
      const nodeOf = await grid.nodeOf();
      const byNode = new Map(held.map((s) => [nodeOf.get(gridSessionOf(s)), s]));
      const keep = new Set(byNode.values());
      await Promise.all(held.filter((s) => !keep.has(s)).map((s) => engine.closeSession(s.id)));
      held = [...keep];
      await grid.waitForSessions(2);
    });

    it('a killed node: calls on its idle session fail with browser_not_running within 5 s; the next session lands on the survivor', async () => {
      assert.equal(held.length, 2);
      const nodeOf = await grid.nodeOf();
      const [a, b] = held as [Session, Session];
      const victim = grid.nodes.find((n) => n.url === nodeOf.get(gridSessionOf(a)))!;
      const survivor = grid.nodes.find((n) => n !== victim)!;
      assert.equal(nodeOf.get(gridSessionOf(b)), survivor.url);
      victim.kill();
      const t0 = Date.now();
      const err = await rejects(ops.snapshot.call(a.page(), {}, { timeoutMs: 20_000 }));
      assert.equal(err.code, 'browser_not_running');
      assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
      await ops.open.call(b.page(), { url: index, wait_until: 'load' }, {});
      // The hub still lists the dead node for a while and may route a request there: retried.
      const c = await engine.startSession({}, { timeoutMs: 30_000 });
      await ops.open.call(c.page(), { url: index, wait_until: 'load' }, {});
      assert.equal((await grid.nodeOf()).get(gridSessionOf(c)), survivor.url);
    });
  });
});

describe('Grid settings (no Grid needed)', () => {
  it('--grid-header and --grid-capabilities: parsed from the environment, sent with every request', async () => {
    assert.deepEqual(
      gridFromEnv({
        TABWRIGHT_GRID_URL: 'http://127.0.0.1:1/wd',
        TABWRIGHT_GRID_HEADER: 'Authorization: Basic dTpw\nX-Team: agents',
        TABWRIGHT_GRID_CAPABILITIES: '{"platformName":"linux"}',
      }),
      {
        url: 'http://127.0.0.1:1/wd',
        headers: { authorization: 'Basic dTpw', 'x-team': 'agents' },
        capabilities: { platformName: 'linux' },
      },
    );
    assert.throws(
      () => gridFromEnv({ TABWRIGHT_GRID_URL: 'http://x', TABWRIGHT_GRID_CAPABILITIES: '[1]' }),
      /JSON object/,
    );
    assert.throws(
      () => gridFromEnv({ TABWRIGHT_GRID_URL: 'http://x', TABWRIGHT_GRID_HEADER: 'no colon' }),
      /Name: value/,
    );
    assert.equal(gridFromEnv({}), undefined);

    // A stand-in Grid that records what it is sent and refuses to create sessions.
    const seen: { path: string; auth: string | undefined; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ value: { error: 'unknown error', message: 'no browsers here' } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const e = createEngine({
      home: home.dir,
      grid: {
        url: `http://127.0.0.1:${port}/wd`,
        headers: { authorization: 'Basic dTpw' },
        capabilities: { platformName: 'linux', 'goog:chromeOptions': { args: ['--lang=de'] } },
      },
    });
    try {
      const err = await rejects(e.startSession({}, { timeoutMs: 5000 }));
      assert.equal(err.code, 'browser_not_running');
      assert.match(err.message, /no browsers here/);
      const create = seen.find((s) => s.path === '/wd/session');
      assert.ok(create, `no new-session request among ${seen.map((s) => s.path)}`);
      const caps = JSON.parse(create.body).capabilities.alwaysMatch;
      assert.equal(caps.browserName, 'chrome');
      assert.equal(caps.platformName, 'linux');
      assert.ok(caps['goog:chromeOptions'].args.includes('--headless=new'));
      assert.ok(caps['goog:chromeOptions'].args.includes('--lang=de'));
      assert.ok(
        seen.every((s) => s.auth === 'Basic dTpw'),
        'every request carries the header',
      );
    } finally {
      await e.close();
      server.close();
    }
  });
});
