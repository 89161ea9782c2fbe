import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { PipeHost } from '../src/doors/pipe/host/host.js';
import { deriveSessionKey, signCommand } from '../src/doors/pipe/protocol/hmac.js';
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
      const stale = await rejectsCode(c.tool.run('click', { ref: ref('button', 'Go') }), 'element_not_found');
      // In this door's words: getAomSnapshot and ref, not the engine's page.snapshot and element_ref.
      assert.match(stale.message, /getAomSnapshot/, stale.message);
      assert.doesNotMatch(stale.message, /\b(page|tab)\.[a-z_]+\b|element_ref/, stale.message);
    } finally {
      await c.close();
    }
  });

  test('element errors: several matches, hidden, disabled, bad selector', async () => {
    const c = await connect();
    try {
      await c.tool.run('navigate', { url: `${fx.url}/fixtures/pipe/refs.html` });
      const dup = await rejectsCode(c.tool.run('click', { selector: '.dup' }), 'element_not_found');
      assert.doesNotMatch(dup.message, /\bnth\b|element_ref/, dup.message);
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

// The host against a raw agent (no SDK: it writes exactly the lines of the script), under a scripted mix of
// valid, forged, replayed, duplicate, out-of-order, oversized and malformed lines. The seed's rule: every
// accepted command seq has exactly one response with that seq, and every other line gets one with seq 0.

interface Response {
  seq: number;
  success: boolean;
  data: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** A host with a raw agent: `send` writes lines, `responses` collects every line the host wrote after init. */
async function rawAgent() {
  const session = await engine.startSession({ policy: { allowed_host_patterns: ['127.0.0.1'] } });
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  const host = new PipeHost({ session, policy: new MacPolicy(RULES), toAgent, fromAgent });
  const responses: Response[] = [];
  let buf = '';
  let init: { hmac_seed: string } | undefined;
  const waiters: (() => void)[] = [];
  toAgent.on('data', (b: Buffer) => {
    buf += b.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (msg.type === 'init') init = msg;
      else responses.push(msg);
    }
    for (const w of waiters.splice(0)) w();
  });
  const handshake = host.handshake();
  while (!init) await new Promise<void>((r) => waiters.push(r));
  const key = deriveSessionKey(init.hmac_seed);
  fromAgent.write(
    encodeLine({ type: 'init_ack', version: '1.0', agent_id: 'raw', supported_actions: [...PIPE_ACTIONS] }),
  );
  await handshake;
  const command = (
    seq: number,
    action: string,
    params: Record<string, unknown>,
    over: { signParams?: Record<string, unknown>; mac?: (m: string) => string } = {},
  ): string => {
    const mac = signCommand(key, seq, action, '127.0.0.1', over.signParams ?? params);
    return JSON.stringify({
      type: 'command',
      seq,
      action,
      params,
      security: { expected_domain: '127.0.0.1', hmac: over.mac ? over.mac(mac) : mac },
    });
  };
  return {
    responses,
    command,
    key,
    send: (line: string) => fromAgent.write(`${line}\n`),
    /** Resolves once `n` responses have arrived. */
    async until(n: number) {
      while (responses.length < n) await new Promise<void>((r) => waiters.push(r));
    },
    close: async () => {
      fromAgent.end();
      await host.done;
      await host.close();
      await engine.closeSession(session.id);
    },
  };
}

describe('pipe: exactly one answer per accepted command seq, seq 0 for everything else', () => {
  test('a scripted mix of valid, forged, replayed, duplicate, out-of-order, oversized and malformed lines', async () => {
    const a = await rawAgent();
    try {
      const page = `${fx.url}/fixtures/pipe/form.html`;
      const text = { selector: 'h1' };
      const seq2 = a.command(2, 'getText', text);
      const seq3 = a.command(3, 'getText', {});
      // [line, the seq its answer must carry, the outcome]
      const script: [string, number, string][] = [
        [a.command(1, 'navigate', { url: page }), 1, 'ok'],
        // A forged line with the seq the agent is about to use: it must not take that seq's answer.
        [a.command(2, 'getText', text, { signParams: { selector: '#status' } }), 0, 'hmac_mismatch'],
        [seq2, 2, 'ok'],
        [seq2, 0, 'seq_out_of_order'], // replayed
        [seq3, 3, 'ok'],
        [seq3, 0, 'seq_out_of_order'], // duplicate, back to back
        [a.command(9, 'getText', {}), 0, 'seq_out_of_order'], // a gap
        [a.command(1, 'getText', {}), 0, 'seq_out_of_order'], // an old seq, freshly signed
        [JSON.stringify({ type: 'command', seq: 4, pad: 'x'.repeat(2 * 1024 * 1024) }), 0, 'invalid_message'],
        ['{"type":"response","seq":4}', 0, 'invalid_message'], // not a command, with a seq
        ['{"type":"command","seq":4}', 0, 'invalid_message'], // a command without its fields
        ['seq 4 please', 0, 'invalid_message'], // not JSON
        [a.command(4, 'getText', {}, { mac: (m) => m.toUpperCase() }), 0, 'hmac_mismatch'], // MACs are lowercase
        [a.command(0, 'getText', {}), 0, 'invalid_message'], // seq starts at 1
        [
          a.command(4, 'getText', {}, { mac: (m) => m.replace(/^./, (c) => (c === '0' ? '1' : '0')) }),
          0,
          'hmac_mismatch',
        ],
        [a.command(4, 'eval', { code: '1' }), 4, 'action_not_allowed'], // authentic and in order: seq 4 is used
        [a.command(5, 'type', { selector: '#user', text: '张三 ✓' }), 5, 'ok'], // UTF-8 in the MAC input
        [a.command(5, 'getText', { selector: '#user' }), 0, 'seq_out_of_order'],
        [a.command(6, 'getText', { selector: 'h1' }), 6, 'ok'],
      ];
      for (const [line] of script) a.send(line);
      await a.until(script.length);
      // Nothing more comes: give the host a moment to (wrongly) answer anything twice.
      await new Promise((r) => setTimeout(r, 200));
      const got = a.responses.map((r) => [r.seq, r.success ? 'ok' : r.error?.code]);
      assert.deepEqual(
        got,
        script.map(([, seq, outcome]) => [seq, outcome]),
      );
      const numbered = a.responses.filter((r) => r.seq > 0).map((r) => r.seq);
      assert.deepEqual(numbered, [1, 2, 3, 4, 5, 6], 'each accepted seq answered exactly once, in order');
      assert.equal(a.responses[2]!.data.text, 'Login');
      assert.equal(a.responses.at(-1)!.data.text, 'Login');
      for (const r of a.responses.filter((x) => x.seq === 0)) {
        assert.ok(r.error && r.error.message.length > 20, 'a seq-0 answer says why');
        assert.equal(r.success, false);
      }
      assert.match(a.responses[1]!.error!.message, /seq 2.*seq 0/);
    } finally {
      await a.close();
    }
  });

  test('absent params or expected_domain: invalid_message with seq 0, nothing executed, seq not used', async () => {
    const a = await rawAgent();
    try {
      const mac = signCommand(a.key, 1, 'navigate', '127.0.0.1', {});
      a.send(
        JSON.stringify({
          type: 'command',
          seq: 1,
          action: 'navigate',
          security: { expected_domain: '127.0.0.1', hmac: mac },
        }),
      );
      a.send(
        JSON.stringify({ type: 'command', seq: 1, action: 'getText', params: {}, security: { hmac: mac } }),
      );
      // seq 1 is still free.
      a.send(a.command(1, 'getText', {}));
      await a.until(3);
      assert.deepEqual(
        a.responses.map((r) => [r.seq, r.success ? 'ok' : r.error?.code]),
        [
          [0, 'invalid_message'],
          [0, 'invalid_message'],
          [1, 'domain_not_allowed'], // accepted (a blank page has no host), so seq 1 is used
        ],
      );
      assert.match(a.responses[0]!.error!.message, /params/);
      assert.match(a.responses[1]!.error!.message, /expected_domain/);
    } finally {
      await a.close();
    }
  });
});
