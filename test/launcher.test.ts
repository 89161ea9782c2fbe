import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { MALLOC_TRIM_THRESHOLD } from '../src/cli/malloc-env.js';
import { tempHome } from './helpers/engine.js';
import { BIN, ROOT } from './helpers/provider.js';

// bin/tabwright.js run as a program (what `npx tabwright …` and an installed `tabwright …` run) is
// a sh line that sets glibc's malloc trim threshold and execs node on the same file; run as
// `node bin/tabwright.js …` it is the plain CLI. (Built CLI: run `npm run -s build` first.)

const home = tempHome();
const scratch = mkdtempSync(join(tmpdir(), 'tw-launcher-'));
after(() => {
  home.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** The caller's environment without any malloc setting of its own. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'silent' };
  delete env.MALLOC_TRIM_THRESHOLD_;
  delete env.GLIBC_TUNABLES;
  return { ...env, ...extra };
}

const environOf = (pid: number): Map<string, string> =>
  new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
  );

const line = (id: string, method: string) =>
  `${JSON.stringify({ protocol_version: '0.1', id, method, params: {} })}\n`;

/** Starts a provider over stdio with `argv`, asks provider.status, resolves with the child once answered. */
async function provider(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; reply: string }> {
  const child = spawn(argv[0]!, [...argv.slice(1), 'provider'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.resume();
  let out = '';
  child.stdout!.setEncoding('utf8');
  const reply = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) =>
      reject(new Error(`the provider exited (${code}) before it answered: ${out}`)),
    );
    child.stdin!.write(line('1', 'provider.status'));
  });
  return { child, reply };
}

async function stopWith(
  child: ChildProcess,
  signal: NodeJS.Signals,
): Promise<[number | null, string | null]> {
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  child.kill(signal);
  return exited;
}

describe('bin/tabwright.js as a program (the package bin)', () => {
  test('the door process is node itself (same pid, no process added) and starts with MALLOC_TRIM_THRESHOLD_; stdout stays the protocol; SIGTERM reaches it', async () => {
    const { child, reply } = await provider([BIN], cleanEnv());
    try {
      const pid = child.pid!;
      assert.match(basename(readlinkSync(`/proc/${pid}/exe`)), /^node/, 'exec replaced the shell with node');
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      assert.deepEqual(argv.slice(1), [BIN, 'provider']);
      assert.equal(environOf(pid).get('MALLOC_TRIM_THRESHOLD_'), MALLOC_TRIM_THRESHOLD);
      assert.equal(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim(), '', 'no child process');
      // The first byte on stdout is the reply's: the sh line writes nothing.
      const first = JSON.parse(reply.slice(0, reply.indexOf('\n'))) as { id: string; ok?: boolean };
      assert.equal(first.id, '1');
    } finally {
      const [code, signal] = await stopWith(child, 'SIGTERM');
      // The provider's own SIGTERM handler ran (it closes its engine and exits 0).
      assert.deepEqual([code, signal], [0, null]);
    }
  });

  test('the same as `node bin/tabwright.js`: exit 0 and 1, the same stdout and stderr, SIGINT handled the same', async () => {
    for (const args of [['--version'], ['nosuch-command'], ['--help'], ['mcp', '--help']]) {
      const asProgram = spawnSync(BIN, args, { encoding: 'utf8', env: cleanEnv() });
      const withNode = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: cleanEnv() });
      assert.equal(asProgram.status, withNode.status, args.join(' '));
      assert.equal(asProgram.stdout, withNode.stdout, args.join(' '));
      assert.equal(asProgram.stderr, withNode.stderr, args.join(' '));
    }
    assert.equal(spawnSync(BIN, ['nosuch-command'], { env: cleanEnv() }).status, 1);
    const codes: unknown[] = [];
    for (const argv of [[BIN], [process.execPath, BIN]]) {
      const { child } = await provider(argv, cleanEnv());
      codes.push(await stopWith(child, 'SIGINT'));
    }
    assert.deepEqual(codes, [
      [0, null],
      [0, null],
    ]);
  });

  test('a value of the caller is kept: their MALLOC_TRIM_THRESHOLD_, or none when GLIBC_TUNABLES sets a glibc.malloc tunable', async () => {
    const cases: [NodeJS.ProcessEnv, string | undefined][] = [
      [{ MALLOC_TRIM_THRESHOLD_: '262144' }, '262144'],
      [{ GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=262144' }, undefined],
      // Another tunable is no malloc setting: the launcher still sets the threshold.
      [{ GLIBC_TUNABLES: 'glibc.rtld.optional_static_tls=4096' }, MALLOC_TRIM_THRESHOLD],
    ];
    for (const [extra, expected] of cases) {
      const { child } = await provider([BIN], cleanEnv(extra));
      try {
        const env = environOf(child.pid!);
        assert.equal(env.get('MALLOC_TRIM_THRESHOLD_'), expected, JSON.stringify(extra));
        if (extra.GLIBC_TUNABLES) assert.equal(env.get('GLIBC_TUNABLES'), extra.GLIBC_TUNABLES);
      } finally {
        await stopWith(child, 'SIGTERM');
      }
    }
  });

  test('through npm-style links (node_modules/.bin/tabwright -> ../tabwright/bin/tabwright.js) and with arguments that need quoting', () => {
    const nm = join(scratch, 'node_modules');
    mkdirSync(join(nm, '.bin'), { recursive: true });
    symlinkSync(ROOT, join(nm, 'tabwright'));
    symlinkSync('../tabwright/bin/tabwright.js', join(nm, '.bin', 'tabwright'));
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = spawnSync('tabwright', ['--version'], {
      encoding: 'utf8',
      cwd: scratch,
      env: cleanEnv({ PATH: `${join(nm, '.bin')}:${process.env.PATH}` }),
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), pkg.version);
    // An argument with spaces, quotes and a `$` reaches the CLI unchanged (commander names it).
    const odd = `it's "$HOME" a b`;
    const bad = spawnSync(join(nm, '.bin', 'tabwright'), [odd], { encoding: 'utf8', env: cleanEnv() });
    assert.equal(bad.status, 1);
    assert.ok(bad.stderr.includes(`unknown command '${odd}'`), bad.stderr);
  });
});
