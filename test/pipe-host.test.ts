import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { PipeHost } from '../src/doors/pipe/host/host.js';
import {
  encodeLine,
  MacPolicy,
  PIPE_ACTIONS,
  PipeAgent,
  PipeToolError,
  parseRules,
  type Rules,
} from '../src/doors/pipe/sdk/index.js';
import type { Engine } from '../src/index.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// The host and the SDK in one process, joined by in-memory pipes, on a real engine: refs, zombies,
// pipelining and element errors without the cost of child processes.

const home = tempHome();
let engine: Engine;
let fx: FixtureServer;

before(async () => {
  fx = await startFixtureServer();
  engine = newEngine(home.dir);
});
after(async () => {
  await engine.close();
  await fx.close();
  home.cleanup();
});

const RULES: Rules = parseRules({
  version: '1.0',
  domains: { allowed: ['127.0.0.1'] },
  pipe_actions: { allowed: [...PIPE_ACTIONS], blocked: ['eval'] },
  storage: { key_prefixes: ['sgclaw_'] },
  circuit_breaker: { max_failures: 100, window_ms: 60_000, cooldown_ms: 1_000 },
});

async function connect() {
  const session = await engine.startSession({ policy: { allowed_host_patterns: ['127.0.0.1'] } });
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  const host = new PipeHost({
    session,
    policy: new MacPolicy(RULES),
    toAgent,
    fromAgent,
    actionTimeoutMs: 4_000,
  });
  const logs: string[] = [];
  const [agent] = await Promise.all([
    PipeAgent.connect({
      input: toAgent,
      output: fromAgent,
      rules: RULES,
      supportedActions: [...PIPE_ACTIONS],
      logger: (_l, msg) => logs.push(msg),
    }),
    host.handshake(),
  ]);
  return {
    agent,
    tool: agent.tool,
    host,
    fromAgent,
    toAgent,
    close: async () => {
      fromAgent.end();
      await host.done;
      await host.close();
      await engine.closeSession(session.id);
    },
  };
}

async function rejectsCode(p: Promise<unknown>, code: string): Promise<PipeToolError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof PipeToolError, String(err));
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

describe('pipe host + SDK in one process', () => {
  test('refs from getAomSnapshot drive type, click, select and scrollTo', async () => {
    const c = await connect();
    try {
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/refs.html` });
      const snap = await c.tool.run('getAomSnapshot', { interactive_only: true });
      const nodes = snap.aom_snapshot as { ref: string; role: string; name: string }[];
      const ref = (role: string, name: string) => {
        const n = nodes.find((x) => x.role === role && (name === '*' || x.name === name));
        assert.ok(n, `${role} "${name}" in ${JSON.stringify(nodes)}`);
        return n.ref;
      };
      await c.tool.run('type', { ref: ref('textbox', 'Search'), text: 'north' });
      const click = await c.tool.run('click', { ref: ref('button', 'Go') });
      assert.equal(click.data.element_ref, ref('button', 'Go'));
      assert.equal((await c.tool.run('getText', { selector: '#out' })).data.text, 'went north');
      const sel = await c.tool.run('select', { ref: ref('combobox', '*'), index: 2 });
      assert.equal(sel.data.verified, true);
      await c.tool.run('scrollTo', { ref: ref('button', 'Far away') });
      const pos = await c.tool.run('scrollTo', { x: 0, y: 0 });
      assert.deepEqual(pos.data, { x: 0, y: 0 });
      // A stale ref after a reload of the document.
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/refs.html` });
      await rejectsCode(c.tool.run('click', { ref: ref('button', 'Go') }), 'element_not_found');
    } finally {
      await c.close();
    }
  });

  test('element errors: several matches, hidden, disabled, bad selector', async () => {
    const c = await connect();
    try {
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/refs.html` });
      await rejectsCode(c.tool.run('click', { selector: '.dup' }), 'element_not_found');
      await rejectsCode(c.tool.run('click', { selector: '#nothing' }), 'element_not_found');
      const hidden = await rejectsCode(c.tool.run('click', { selector: '#ghost' }), 'element_not_actionable');
      assert.equal(hidden.local, false);
      await rejectsCode(c.tool.run('click', { selector: '#off' }), 'element_not_actionable');
      await rejectsCode(c.tool.run('getText', { selector: 'p[' }), 'invalid_params');
      await rejectsCode(c.tool.run('select', { selector: '#q', value: 'x' }), 'element_not_actionable');
      // getText with a selector reads the first match and says how many matched.
      const t = await c.tool.run('getText', { selector: '.dup' });
      assert.deepEqual([t.data.text, t.data.match_count], ['Go', 2]);
    } finally {
      await c.close();
    }
  });

  test('zombie pages: spawn, act, storage shared by origin, kill; the main page is untouched', async () => {
    const c = await connect();
    try {
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/form.html` });
      const z = await c.tool.run('zombieSpawn', { url: `${fx.url}/fixtures/pipe/refs.html` });
      const id = String(z.data.zombie_id);
      await c.tool.run('type', { zombie_id: id, selector: '#q', text: 'z' });
      await c.tool.run('click', { zombie_id: id, selector: '#go' });
      assert.equal((await c.tool.run('getText', { zombie_id: id, selector: '#out' })).data.text, 'went z');
      await c.tool.run('storageSet', { zombie_id: id, key: 'sgclaw_k', value: 'v1' });
      assert.equal((await c.tool.run('storageGet', { key: 'sgclaw_k' })).data.value, 'v1');
      assert.equal(
        (await c.tool.run('storageGet', { key: 'sgclaw_none', area: 'session' })).data.value,
        null,
      );
      assert.equal((await c.tool.run('getText', { selector: 'h1' })).data.text, 'Login');
      const two = await c.tool.run('zombieSpawn', { url: `${fx.url}/fixtures/pipe/bg.html` });
      assert.notEqual(two.data.zombie_id, id);
      await c.tool.run('zombieKill', { zombie_id: id });
      await rejectsCode(
        c.tool.run('getText', { zombie_id: id }, { expected_domain: '127.0.0.1' }),
        'invalid_params',
      );
      assert.equal(c.host.executor.session.pages().length, 2, 'main page and the second zombie');
    } finally {
      await c.close();
    }
  });

  test('pipelined commands are executed in order and answered by seq, with queue time', async () => {
    const c = await connect();
    try {
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/form.html` });
      const results = await Promise.all([
        c.tool.run('type', { selector: '#user', text: 'a' }),
        c.tool.run('type', { selector: '#user', text: 'b' }),
        c.tool.run('click', { selector: '#submit' }),
        c.tool.run('getText', { selector: '#status' }),
      ]);
      assert.deepEqual(
        results.map((r) => r.seq),
        [2, 3, 4, 5],
      );
      assert.equal(results[3]!.data.text, 'signed in as ab (viewer)');
      assert.ok(
        results[3]!.timing.queue_ms >= results[0]!.timing.exec_ms / 2,
        'the last one waited in the queue',
      );
    } finally {
      await c.close();
    }
  });

  test('a line that is not a command after the handshake is answered with seq 0', async () => {
    const c = await connect();
    try {
      const lines: string[] = [];
      c.toAgent.on('data', (b: Buffer) => lines.push(...b.toString().split('\n').filter(Boolean)));
      c.fromAgent.write(
        encodeLine({ type: 'init_ack', version: '1.0', agent_id: 'x', supported_actions: [] }),
      );
      c.fromAgent.write('{"type":"command","seq":1}\n');
      await new Promise((r) => setTimeout(r, 300));
      const got = lines.map((l) => JSON.parse(l));
      assert.deepEqual(
        got.map((m) => [m.seq, m.error?.code]),
        [
          [0, 'invalid_message'],
          [0, 'invalid_message'], // it claims seq 1, but a malformed command is tied to no seq
        ],
      );
      // The SDK ignored both (no pending seq 0 or 1) and still works.
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/bg.html` });
    } finally {
      await c.close();
    }
  });
});
