import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// The built `tabwright pipe` when the agent's side of the handshake goes wrong.

const BIN = 'bin/tabwright.js';
let fx: FixtureServer;
const home = tempHome();

before(async () => {
  fx = await startFixtureServer();
});
after(async () => {
  await fx.close();
  home.cleanup();
});

const ALL = [
  'click',
  'type',
  'navigate',
  'getText',
  'getHtml',
  'waitForSelector',
  'pageScreenshot',
  'select',
  'scrollTo',
  'getAomSnapshot',
  'storageSet',
  'storageGet',
  'zombieSpawn',
  'zombieKill',
];

function writeJson(name: string, value: unknown): string {
  const path = join(home.dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

function rules(over: Record<string, unknown> = {}): string {
  return writeJson(`rules-${Math.random().toString(36).slice(2)}.json`, {
    version: '1.0',
    domains: { allowed: ['127.0.0.1', 'other.example'] },
    pipe_actions: { allowed: ALL, blocked: ['eval', 'executeJsInPage'] },
    storage: { key_prefixes: ['sgclaw_'] },
    circuit_breaker: { max_failures: 50, window_ms: 60_000, cooldown_ms: 60_000 },
    ...over,
  });
}

interface PipeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** JSON lines the agent wrote to its stderr (passed through by the host as "[agent] …"). */
  agent: Record<string, unknown>[];
  /** The host's own stderr lines. */
  hostLines: string[];
}

function runPipe(args: string[], timeoutMs = 80_000): Promise<PipeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'pipe', '--handshake-timeout', '30000', ...args], {
      env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tabwright pipe did not exit within ${timeoutMs} ms\n${stderr.slice(-3000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const lines = stderr.split('\n').filter(Boolean);
      const agent: Record<string, unknown>[] = [];
      const hostLines: string[] = [];
      for (const l of lines) {
        if (l.startsWith('[agent] ')) {
          try {
            agent.push(JSON.parse(l.slice(8)));
          } catch {
            agent.push({ raw: l.slice(8) });
          }
        } else hostLines.push(l);
      }
      resolve({ code, stdout, stderr, agent, hostLines });
    });
  });
}

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
