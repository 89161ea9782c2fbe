import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type PipeRun, pipeHarness } from './helpers/pipe-run.js';

// The built `tabwright pipe` against a hand-written agent (not the SDK) that misbehaves on purpose.

let fx: FixtureServer;
const home = tempHome();

before(async () => {
  fx = await startFixtureServer();
});
after(async () => {
  await fx.close();
  home.cleanup();
});

const { writeJson, rules, runPipe, handAgent } = pipeHarness(home.dir);

interface Result {
  name: string;
  seq: number;
  success: boolean;
  code: string | null;
  message: string | null;
  data: Record<string, unknown>;
  timing?: { queue_ms: number; exec_ms: number };
}

describe('tabwright pipe against a hand-written agent', () => {
  const results = (r: PipeRun) => {
    const line = r.stderr.split('\n').find((l) => l.startsWith('[agent] RESULTS '));
    assert.ok(line, r.stderr.slice(-3000));
    return JSON.parse(line.slice('[agent] RESULTS '.length)) as Result[];
  };

  test('tampered MAC, replayed seq, disallowed domain, blocked action, bad storage key, 2 MB line: each refused, the host keeps serving', async () => {
    const page = `${fx.url}/fixtures/pipe/form.html`;
    const h = '127.0.0.1';
    const script = [
      { name: 'navigate', seq: 1, action: 'navigate', domain: h, params: { url: page } },
      {
        name: 'tampered mac',
        seq: 2,
        action: 'getText',
        domain: h,
        params: { selector: '#intro' },
        signParams: { selector: '#status' },
      },
      { name: 'getText after tamper', seq: 2, action: 'getText', domain: h, params: { selector: '#intro' } },
      { name: 'replayed seq', seq: 2, action: 'getText', domain: h, params: { selector: '#intro' } },
      { name: 'skipped seq', seq: 9, action: 'getText', domain: h, params: {} },
      {
        name: 'disallowed domain',
        seq: 3,
        action: 'navigate',
        domain: 'localhost',
        params: { url: `${fx.altUrl}/fixtures/pipe/next.html` },
      },
      { name: 'domain not the page host', seq: 4, action: 'getText', domain: 'other.example', params: {} },
      {
        name: 'redirect to another host (engine origin policy)',
        seq: 5,
        action: 'navigate',
        domain: h,
        params: {
          url: `${fx.url}/redirect?to=${encodeURIComponent(`${fx.altUrl}/fixtures/pipe/next.html`)}`,
        },
      },
      { name: 'blocked action', seq: 6, action: 'eval', domain: h, params: { code: '1' } },
      { name: 'unknown action', seq: 7, action: 'fly', domain: h, params: {} },
      {
        name: 'bad storage key',
        seq: 8,
        action: 'storageSet',
        domain: h,
        params: { key: 'token', value: 'x' },
      },
      { name: '2 MB line', big: 2 * 1024 * 1024, seq: 9 },
      { name: 'not JSON', raw: 'hello there' },
      { name: 'invalid params', seq: 9, action: 'click', domain: h, params: {} },
      { name: 'element not found', seq: 10, action: 'click', domain: h, params: { selector: '#nope' } },
      { name: 'still serving', seq: 11, action: 'getText', domain: h, params: { selector: '#intro' } },
    ];
    const r = await runPipe(['--rules', rules(), '--agent', handAgent(script)]);
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    const got = results(r).map((x) => [x.name, x.seq, x.code ?? 'ok']);
    assert.deepEqual(got, [
      ['navigate', 1, 'ok'],
      ['tampered mac', 0, 'hmac_mismatch'],
      ['getText after tamper', 2, 'ok'],
      ['replayed seq', 0, 'seq_out_of_order'],
      ['skipped seq', 0, 'seq_out_of_order'],
      ['disallowed domain', 3, 'domain_not_allowed'],
      ['domain not the page host', 4, 'domain_not_allowed'],
      ['redirect to another host (engine origin policy)', 5, 'domain_not_allowed'],
      ['blocked action', 6, 'action_not_allowed'],
      ['unknown action', 7, 'unknown_action'],
      ['bad storage key', 8, 'storage_key_not_allowed'],
      ['2 MB line', 0, 'invalid_message'],
      ['not JSON', 0, 'invalid_message'],
      ['invalid params', 9, 'invalid_params'],
      ['element not found', 10, 'element_not_found'],
      ['still serving', 11, 'ok'],
    ]);
    const all = results(r);
    assert.equal(all.at(-1)!.data.text, 'Welcome to the pipe fixture.');
    for (const x of all) assert.ok(x.timing && Number.isInteger(x.timing.exec_ms));
    for (const x of all.filter((y) => !y.success))
      assert.ok(String(x.message).length > 10, 'messages say what to do');
    assert.equal(r.stdout, '');
  });

  test("the circuit breaker refuses everything after repeated failures; the host exits with the agent's code", async () => {
    const h = '127.0.0.1';
    const page = `${fx.url}/fixtures/pipe/form.html`;
    const script = [
      { name: 'nav', seq: 1, action: 'navigate', domain: h, params: { url: page } },
      { name: 'f1', seq: 2, action: 'eval', domain: h, params: {} },
      { name: 'f2', seq: 3, action: 'eval', domain: h, params: {} },
      { name: 'f3', seq: 4, action: 'eval', domain: h, params: {} },
      { name: 'valid but open', seq: 5, action: 'getText', domain: h, params: {} },
    ];
    const r = await runPipe([
      '--rules',
      rules({ circuit_breaker: { max_failures: 3, window_ms: 60_000, cooldown_ms: 60_000 } }),
      '--agent',
      handAgent(script, 'ok', 3),
    ]);
    assert.equal(r.code, 3, "the agent's exit code");
    assert.deepEqual(
      results(r).map((x) => x.code ?? 'ok'),
      ['ok', 'action_not_allowed', 'action_not_allowed', 'action_not_allowed', 'circuit_open'],
    );
  });
});
