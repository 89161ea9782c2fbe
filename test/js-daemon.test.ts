import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAlive as signalable } from './helpers/external-browser.js';
import { type JsCli, jsCli } from './helpers/js-cli.js';

/** Alive and not a zombie (an exited daemon waits for its new parent to reap it). */
function isAlive(pid: number): boolean {
  if (!signalable(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

// The CLI and daemon without a browser: snippet semantics, output rules, flags, survival.
describe('tabwright js: daemon and snippet semantics', () => {
  let js: JsCli;
  before(() => {
    js = jsCli(`daemon-${process.pid}`);
  });
  after(async () => {
    await js.stop();
  });

  test('a single expression returns its value; the daemon starts on first use', async () => {
    const r = await js.cli(['-e', '1 + 1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '2\n');
  });

  test('heredoc: multi-statement snippets use return; globalThis persists, const does not', async () => {
    const a = await js.run(`globalThis.counter = 41;
const local = 'gone';
return { counter: counter + 1, local };
`);
    assert.equal(a.code, 0, a.stderr);
    assert.deepEqual(JSON.parse(a.stdout), { counter: 42, local: 'gone' });
    const b = await js.run(`return [typeof local, globalThis.counter]`);
    assert.deepEqual(JSON.parse(b.stdout), ['undefined', 41]);
    const c = await js.run(`const x = 5;\nx * 2;\n`);
    assert.equal(c.stdout, '', 'no return: nothing printed');
  });

  test('output rules: strings raw, objects JSON, undefined nothing; top-level await', async () => {
    assert.equal((await js.run(`'plain $HOME \`text\`'`)).stdout, 'plain $HOME `text`\n');
    assert.equal(
      (await js.run(`await new Promise(r => setTimeout(() => r({ a: [1, 'b'] }), 20))`)).stdout,
      '{"a":[1,"b"]}\n',
    );
    assert.equal((await js.run('undefined')).stdout, '');
    assert.equal((await js.run('true')).stdout, 'true\n');
  });

  test('console goes to the daemon log, not to the CLI', async () => {
    const r = await js.run(`console.log('note-for-the-log-7731'); return 'done'`);
    assert.equal(r.stdout, 'done\n');
    assert.ok(!r.stderr.includes('note-for-the-log-7731'));
    const logs = await js.cli(['--logs', '--lines', '50']);
    assert.match(logs.stdout, /note-for-the-log-7731/);
  });

  test('an exception prints its message and stack to stderr and exits 1', async () => {
    const r = await js.run(`function inner() { throw new Error('boom from snippet'); }\ninner();`);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Error: boom from snippet/);
    assert.match(r.stderr, /at inner \(snippet-\d+\.js:1:/);
  });

  test('a rejected promise left behind never kills the daemon; overwriting eval spoils nothing', async () => {
    const pid = JSON.parse((await js.cli(['--status'])).stdout).pid as number;
    const r = await js.run(
      `Promise.reject(new Error('left behind')); setTimeout(() => { throw new Error('late throw'); }, 10); globalThis.eval = null; return 'ok'`,
    );
    assert.equal(r.stdout, 'ok\n');
    await new Promise((res) => setTimeout(res, 200));
    const again = await js.run(`return 6 * 7`);
    assert.equal(again.stdout, '42\n');
    assert.equal(JSON.parse((await js.cli(['--status'])).stdout).pid, pid, 'same daemon');
  });

  test('the snippet deadline (--timeout): abandoned, the CLI says so, the daemon goes on', async () => {
    const t0 = Date.now();
    const r = await js.run(`await new Promise(r => setTimeout(r, 20000)); return 'never'`, [
      '--timeout',
      '500',
    ]);
    assert.equal(r.code, 1);
    assert.ok(Date.now() - t0 < 8000);
    assert.match(r.stderr, /did not finish within 500 ms and was abandoned/);
    const spin = await js.run(`while (true) {}`, ['--timeout', '300']);
    assert.equal(spin.code, 1);
    assert.match(spin.stderr, /abandoned/);
    assert.equal((await js.run('1')).stdout, '1\n');
  });

  test('socket 0600 in a 0700 runtime dir; --version; --status says when the daemon is stale', async () => {
    const dir = join(js.runtimeDir, 'tabwright');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, `js-${js.name}.sock`)).mode & 0o777, 0o600);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal((await js.cli(['--version'])).stdout.trim(), pkg.version);
    const s = JSON.parse((await js.cli(['--status'])).stdout);
    assert.equal(s.ok, true);
    assert.equal(s.version, pkg.version);
    assert.equal(s.stale, false);
    assert.ok(s.uptimeMs > 0 && isAlive(s.pid));
    assert.deepEqual(s.browsers, []);
    // The same CLI seeing newer code on disk than the daemon booted with.
    const stale = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      import('node:child_process').then(({ execFile }) =>
        execFile(
          process.execPath,
          ['bin/tabwright.js', 'js', '--name', js.name, '--status'],
          { env: { ...process.env, XDG_RUNTIME_DIR: js.runtimeDir, TABWRIGHT_JS_CODE_STAMP: 'newer-code' } },
          (_e, stdout, stderr) => resolve({ stdout, stderr }),
        ),
      );
    });
    assert.equal(JSON.parse(stale.stdout).stale, true);
    assert.match(stale.stderr, /older code than this CLI.*--restart/);
  });

  test('--restart stops the old daemon (confirmed), starts a new one, globals are gone; --stop', async () => {
    await js.run('globalThis.keep = 1');
    const old = JSON.parse((await js.cli(['--status'])).stdout).pid as number;
    const r = await js.cli(['--restart']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.restarted, true);
    assert.equal(s.previousPid, old);
    assert.notEqual(s.pid, old);
    assert.equal(isAlive(old), false, 'the old daemon exited');
    assert.equal((await js.run('typeof keep')).stdout, 'undefined\n');
    const stop = JSON.parse((await js.cli(['--stop'])).stdout);
    assert.equal(stop.stopped, true);
    assert.equal(isAlive(s.pid), false);
    const down = await js.cli(['--status']);
    assert.equal(down.code, 1);
    assert.equal(JSON.parse(down.stdout).running, false);
  });

  test('usage errors exit 2', async () => {
    const r = await js.cli(['--bogus']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option --bogus/);
    assert.equal((await js.cli(['--name', '../x', '-e', '1'])).code, 2);
  });
});
