import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { PipeHost } from '../src/doors/pipe/host/host.js';
import { deriveSessionKey, signCommand } from '../src/doors/pipe/protocol/hmac.js';
import { encodeLine, MacPolicy, PIPE_ACTIONS, parseRules } from '../src/doors/pipe/sdk/index.js';
import type { Engine } from '../src/index.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// The host on a real engine against a raw agent (no SDK: it writes exactly the lines of the script),
// under a scripted mix of valid, forged, replayed, duplicate, out-of-order, oversized and malformed
// lines. The seed's rule: every accepted command seq has exactly one response with that seq, and
// every other line gets one response with seq 0.

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

const RULES = parseRules({
  version: '1.0',
  domains: { allowed: ['127.0.0.1'] },
  pipe_actions: { allowed: [...PIPE_ACTIONS], blocked: ['eval'] },
  storage: { key_prefixes: ['sgclaw_'] },
  circuit_breaker: { max_failures: 100, window_ms: 60_000, cooldown_ms: 1_000 },
});

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
