import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import {
  deriveSessionKey,
  encodeLine,
  PIPE_ACTIONS,
  PipeAgent,
  PipeHandshakeError,
  type PipeLogger,
  PipeToolError,
  parseMessage,
  parseRules,
  verifyCommand,
} from '../src/doors/pipe/sdk/index.js';

// The seed's self-test checklist for the agent side, against an in-process mock browser.

const SEED = '00112233445566778899aabbccddeeff';
const RULES = parseRules({
  version: '1.0',
  domains: { allowed: ['oa.example.com', '127.0.0.1'] },
  pipe_actions: { allowed: ['click', 'type', 'navigate', 'getText'], blocked: ['eval', 'executeJsInPage'] },
  storage: { key_prefixes: ['sgclaw_'] },
});

interface Mock {
  toAgent: PassThrough;
  fromAgent: PassThrough;
  lines: string[];
  next(): Promise<string>;
  send(msg: unknown): void;
  logs: { level: string; msg: string; fields?: Record<string, unknown> }[];
  logger: PipeLogger;
}

function mock(): Mock {
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  let buf = '';
  fromAgent.setEncoding('utf8');
  fromAgent.on('data', (c: string) => {
    buf += c;
    let i = buf.indexOf('\n');
    while (i !== -1) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
      i = buf.indexOf('\n');
    }
  });
  const logs: Mock['logs'] = [];
  return {
    toAgent,
    fromAgent,
    lines,
    next: () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise((r) => waiters.push(r))),
    send: (msg) => toAgent.write(typeof msg === 'string' ? msg : encodeLine(msg)),
    logs,
    logger: (level, msg, fields) => logs.push({ level, msg, fields }),
  };
}

const init = (over: Record<string, unknown> = {}) => ({
  type: 'init',
  version: '1.0',
  hmac_seed: SEED,
  capabilities: ['browser_action'],
  ...over,
});

async function connected(m: Mock, opts: { actionTimeoutMs?: number } = {}) {
  m.send(init());
  const agent = await PipeAgent.connect({
    input: m.toAgent,
    output: m.fromAgent,
    rules: RULES,
    logger: m.logger,
    ...opts,
  });
  const ack = JSON.parse(await m.next());
  return { agent, ack };
}

function response(seq: number, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    type: 'response',
    seq,
    success: true,
    data,
    aom_snapshot: [],
    timing: { queue_ms: 1, exec_ms: 2 },
    ...extra,
  };
}

describe('agent SDK: handshake', () => {
  test('init → init_ack with a UUID v4 agent_id and the allowed actions', async () => {
    const m = mock();
    const { agent, ack } = await connected(m);
    assert.equal(ack.type, 'init_ack');
    assert.equal(ack.version, '1.0');
    assert.match(ack.agent_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(ack.agent_id, agent.agentId);
    assert.deepEqual(ack.supported_actions, ['click', 'type', 'navigate', 'getText']);
    assert.deepEqual(agent.capabilities, ['browser_action']);
    // Exactly one line, and it parses as a protocol message.
    assert.equal(parseMessage(JSON.stringify(ack)).type, 'init_ack');
  });

  test('supportedActions override; the full list is the frozen 14', async () => {
    const m = mock();
    m.send(init());
    await PipeAgent.connect({
      input: m.toAgent,
      output: m.fromAgent,
      rules: RULES,
      logger: m.logger,
      supportedActions: [...PIPE_ACTIONS],
    });
    assert.deepEqual(JSON.parse(await m.next()).supported_actions, [...PIPE_ACTIONS]);
  });

  const failures: [string, unknown, string][] = [
    ['version mismatch', init({ version: '2.0' }), 'version_mismatch'],
    ['empty seed', init({ hmac_seed: '' }), 'invalid_message'],
    ['short seed', init({ hmac_seed: 'abcd' }), 'invalid_message'],
    ['odd-length seed', init({ hmac_seed: 'a'.repeat(17) }), 'invalid_message'],
    ['non-hex seed', init({ hmac_seed: 'zz'.repeat(8) }), 'invalid_message'],
    ['first message not init', response(1), 'invalid_message'],
    ['not JSON', 'hello\n', 'invalid_message'],
    ['init without capabilities', { type: 'init', version: '1.0', hmac_seed: SEED }, 'invalid_message'],
  ];
  for (const [name, first, code] of failures) {
    test(`handshake fails: ${name}`, async () => {
      const m = mock();
      m.send(first);
      await assert.rejects(
        PipeAgent.connect({ input: m.toAgent, output: m.fromAgent, rules: RULES, logger: m.logger }),
        (err: unknown) => err instanceof PipeHandshakeError && err.code === code,
      );
      assert.equal(m.lines.length, 0, 'no init_ack after a failed handshake');
      if (name === 'empty seed')
        assert.ok(m.logs.some((l) => String(l.fields?.error).includes('must not be empty')));
    });
  }

  test('handshake timeout', async () => {
    const m = mock();
    await assert.rejects(
      PipeAgent.connect({
        input: m.toAgent,
        output: m.fromAgent,
        rules: RULES,
        logger: m.logger,
        handshakeTimeoutMs: 100,
      }),
      (err: unknown) => err instanceof PipeHandshakeError && err.code === 'timeout',
    );
  });
});

describe('agent SDK: BrowserPipeTool', () => {
  test('click, type, navigate and getText encode as signed commands with increasing seq', async () => {
    const m = mock();
    const { agent } = await connected(m);
    const key = deriveSessionKey(SEED);
    const calls: [string, Record<string, unknown>][] = [
      ['navigate', { url: 'https://oa.example.com/login' }],
      ['type', { selector: '#user', text: 'alice' }],
      ['click', { selector: '#submit' }],
      ['getText', { selector: '#status' }],
    ];
    for (const [i, [action, params]] of calls.entries()) {
      const p = agent.tool.run(action, params);
      const line = await m.next();
      const cmd = parseMessage(line);
      assert.equal(cmd.type, 'command');
      if (cmd.type !== 'command') return;
      assert.equal(cmd.seq, i + 1);
      assert.equal(cmd.action, action);
      assert.deepEqual(cmd.params, params);
      assert.equal(cmd.security.expected_domain, 'oa.example.com');
      assert.match(cmd.security.hmac, /^[0-9a-f]{64}$/);
      assert.ok(verifyCommand(key, cmd), 'the MAC verifies with the session key');
      m.send(
        response(i + 1, action === 'navigate' ? { url: 'https://oa.example.com/login' } : { text: 'ok' }),
      );
      const r = await p;
      assert.equal(r.seq, i + 1);
      assert.deepEqual(r.timing, { queue_ms: 1, exec_ms: 2 });
    }
  });

  test('a response with another seq is never matched to the pending command', async () => {
    const m = mock();
    const { agent } = await connected(m);
    const p = agent.tool.run('navigate', { url: 'https://oa.example.com/' }, { timeoutMs: 2_000 });
    await m.next();
    let settled = false;
    void p.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    m.send(response(2, { url: 'https://oa.example.com/wrong' }));
    m.send(response(0, {}, { success: false, error: { code: 'invalid_message', message: 'x' } }));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(settled, false, 'seq 2 and seq 0 did not settle seq 1');
    assert.ok(m.logs.some((l) => l.msg.includes('matches no pending command')));
    m.send(response(1, { url: 'https://oa.example.com/right' }));
    assert.equal((await p).data.url, 'https://oa.example.com/right');
  });

  test('concurrent commands resolve by seq even when answered out of order', async () => {
    const m = mock();
    const { agent } = await connected(m);
    await Promise.all([
      (async () => {
        const p = agent.tool.run('navigate', { url: 'https://oa.example.com/' });
        await m.next();
        m.send(response(1, { url: 'https://oa.example.com/' }));
        await p;
      })(),
    ]);
    const a = agent.tool.run('getText', { selector: '#a' });
    const b = agent.tool.run('getText', { selector: '#b' });
    await m.next();
    await m.next();
    m.send(response(3, { text: 'B' }));
    m.send(response(2, { text: 'A' }));
    assert.equal((await a).data.text, 'A');
    assert.equal((await b).data.text, 'B');
  });

  test('an action timeout is an error; the late response is discarded', async () => {
    const m = mock();
    const { agent } = await connected(m);
    await assert.rejects(
      agent.tool.run('navigate', { url: 'https://oa.example.com/' }, { timeoutMs: 150 }),
      (err: unknown) => err instanceof PipeToolError && err.code === 'timeout' && err.seq === 1 && !err.local,
    );
    m.send(response(1));
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(m.logs.some((l) => l.msg.includes('matches no pending command')));
  });

  test('failed responses become typed errors', async () => {
    const m = mock();
    const { agent } = await connected(m);
    const p = agent.tool.run('navigate', { url: 'https://oa.example.com/' });
    await m.next();
    m.send(
      response(
        1,
        {},
        { success: false, error: { code: 'navigation_failed', message: 'net::ERR_NAME_NOT_RESOLVED' } },
      ),
    );
    await assert.rejects(
      p,
      (err: unknown) => err instanceof PipeToolError && err.code === 'navigation_failed' && err.seq === 1,
    );
  });

  test('the MAC policy refuses locally and nothing is sent', async () => {
    const m = mock();
    const { agent } = await connected(m);
    const refused: [string, Record<string, unknown>, string][] = [
      ['eval', { code: '1' }, 'action_not_allowed'],
      ['getHtml', {}, 'action_not_allowed'],
      ['fly', {}, 'unknown_action'],
      ['navigate', { url: 'https://evil.example/' }, 'domain_not_allowed'],
      ['getText', {}, 'domain_not_allowed'], // no page host known yet
      ['click', {}, 'invalid_params'],
    ];
    for (const [action, params, code] of refused) {
      await assert.rejects(
        agent.tool.run(action, params),
        (err: unknown) => err instanceof PipeToolError && err.code === code && err.local && err.seq === null,
        `${action} → ${code}`,
      );
    }
    await assert.rejects(
      agent.tool.run('navigate', { url: 'https://oa.example.com/' }, { expected_domain: '127.0.0.1' }),
      (err: unknown) => err instanceof PipeToolError && err.code === 'domain_not_allowed',
    );
    assert.equal(m.lines.length, 0, 'nothing reached the pipe');
    assert.equal(agent.tool.lastSeq, 0, 'no seq was used');
  });

  test('the circuit breaker opens after repeated failures', async () => {
    const m = mock();
    m.send(init());
    const agent = await PipeAgent.connect({
      input: m.toAgent,
      output: m.fromAgent,
      logger: m.logger,
      rules: { ...RULES, circuit_breaker: { max_failures: 2, window_ms: 10_000, cooldown_ms: 10_000 } },
    });
    await m.next();
    for (let i = 0; i < 2; i++) await assert.rejects(agent.tool.run('eval', {}));
    await assert.rejects(
      agent.tool.run('navigate', { url: 'https://oa.example.com/' }),
      (err: unknown) => err instanceof PipeToolError && err.code === 'circuit_open',
    );
  });
});
