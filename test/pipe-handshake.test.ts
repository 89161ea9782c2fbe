import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { ALL_ACTIONS, pipeHarness } from './helpers/pipe-run.js';

// The built `tabwright pipe` when the agent's side of the handshake goes wrong.

let fx: FixtureServer;
const home = tempHome();

before(async () => {
  fx = await startFixtureServer();
});
after(async () => {
  await fx.close();
  home.cleanup();
});

const { writeJson, rules, runPipe } = pipeHarness(home.dir);
const ALL = ALL_ACTIONS;

/** A hand-written agent (no SDK): its own HMAC and sorted-key JSON, a scripted list of lines. */
const HAND_AGENT = String.raw`
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
const script = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const mode = process.argv[3] ?? 'ok';
const canon = (v) => Array.isArray(v) ? '[' + v.map(canon).join(',') + ']'
  : v && typeof v === 'object' ? '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}'
  : JSON.stringify(v);
let key; let buf = ''; const queue = []; let waiting = null;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c; let i;
  while ((i = buf.indexOf('\n')) !== -1) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (waiting) { const w = waiting; waiting = null; w(line); } else queue.push(line);
  }
});
const next = () => queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => { waiting = r; });
const send = (s) => process.stdout.write(s + '\n');
const init = JSON.parse(await next());
if (mode === 'silent') { await new Promise((r) => setTimeout(r, 60000)); }
key = createHmac('sha256', Buffer.from(init.hmac_seed, 'hex')).update('sgclaw-session-v1').digest();
send(JSON.stringify({ type: 'init_ack', version: mode === 'badversion' ? '2.0' : '1.0', agent_id: 'hand-agent',
  supported_actions: ${JSON.stringify(ALL)} }));
if (mode === 'badversion') { await new Promise((r) => setTimeout(r, 60000)); }
const mac = (seq, action, domain, params) =>
  createHmac('sha256', key).update(seq + '\n' + action + '\n' + domain + '\n' + canon(params)).digest('hex');
const results = [];
for (const s of script) {
  let line;
  if (s.raw !== undefined) line = s.raw;
  else if (s.big !== undefined) line = JSON.stringify({ type: 'command', seq: s.seq ?? 1, pad: 'x'.repeat(s.big) });
  else {
    const hmac = mac(s.seq, s.action, s.domain, s.signParams ?? s.params);
    line = JSON.stringify({ type: 'command', seq: s.seq, action: s.action, params: s.params,
      security: { expected_domain: s.domain, hmac } });
  }
  send(line);
  const resp = JSON.parse(await next());
  results.push({ name: s.name, seq: resp.seq, success: resp.success, code: resp.error?.code ?? null,
    message: resp.error?.message ?? null, data: resp.data, timing: resp.timing });
}
process.stderr.write('RESULTS ' + JSON.stringify(results) + '\n');
process.exit(Number(process.argv[4] ?? 0));
`;

describe('tabwright pipe: handshake failures', () => {
  function handAgent(script: unknown[], mode = 'ok', exitCode = 0): string {
    const file = join(home.dir, 'hand-agent.mjs');
    writeFileSync(file, HAND_AGENT);
    return `node ${file} ${writeJson(`script-${Math.random().toString(36).slice(2)}.json`, script)} ${mode} ${exitCode}`;
  }
  test('handshake failures: a wrong init_ack version, no init_ack at all', async () => {
    const bad = await runPipe(['--rules', rules(), '--agent', handAgent([], 'badversion')]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /handshake failed \(version_mismatch\)/);
    const silent = await runPipe([
      '--rules',
      rules(),
      '--handshake-timeout',
      '1500',
      '--agent',
      handAgent([], 'silent'),
    ]);
    assert.equal(silent.code, 1);
    assert.match(silent.stderr, /handshake failed \(timeout\): The agent sent no init_ack within 1500 ms/);
    const missing = await runPipe(['--rules', rules(), '--agent', 'definitely-not-a-command-xyz']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot start the agent "definitely-not-a-command-xyz": not found/);
    assert.ok(!missing.stderr.includes('shared browser launched'), 'checked before launching a browser');
  });
});
