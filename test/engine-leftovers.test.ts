import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isAlive as alive } from '../src/backends/process-tree.js';
import { LaunchRecords } from '../src/engine/launch-records.js';
import { newEngine, tempHome } from './helpers/engine.js';

// Nothing a session creates is left after it closes: no browser process, no temporary profile, no
// work directory, whether the engine closes gracefully, by force, or its process is killed outright.
// (Run `npm run -s build` first: the last two tests spawn the CLI.)

const records = (home: string) => {
  const dir = join(home, 'run');
  if (!existsSync(dir)) return [];
  // A record another process is writing right now may be empty or cut: it is read on the next poll.
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      try {
        return [JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
};

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const homes: { cleanup(): void }[] = [];
after(() => {
  for (const h of homes) h.cleanup();
});

/** An engine in a fresh home with one session open on about:blank, and that browser's run record. */
async function sessionOnBlank() {
  const home = tempHome();
  homes.push(home);
  const engine = newEngine(home.dir);
  try {
    const session = await engine.startSession({}, { timeoutMs: 30_000 });
    await session.page().open('about:blank');
    const [record] = records(home.dir);
    return { home, engine, session, record };
  } catch (e) {
    await engine.close();
    throw e;
  }
}

describe('leftovers', () => {
  test('a graceful close and a forced one leave no process, profile or work directory', async () => {
    for (const graceMs of [undefined, 0]) {
      const { home, engine, record: rec } = await sessionOnBlank();
      assert.ok(rec, 'the launched browser is recorded');
      const pid = rec.browser_pid as number;
      const profile = rec.temporary_profile as string;
      assert.ok(profile && existsSync(profile), `its temporary profile exists (${profile})`);
      assert.ok(existsSync(rec.work_dir as string));
      await engine.close(graceMs === undefined ? {} : { graceMs });
      await until(`browser ${pid} to exit`, () => !alive(pid));
      assert.equal(existsSync(profile), false, `profile ${profile} removed (grace ${graceMs})`);
      assert.equal(existsSync(rec.work_dir as string), false, 'work directory removed');
      assert.deepEqual(records(home.dir), [], 'no record left');
    }
  });

  test('a close with a bad timeout_ms fails with the session still listed and open', async () => {
    const { engine, session: s } = await sessionOnBlank();
    try {
      await assert.rejects(engine.closeSession(s.id, { timeoutMs: 0 }), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'invalid_request');
        return true;
      });
      assert.deepEqual(
        engine.sessions().map((x) => x.id),
        [s.id],
        'still listed',
      );
      assert.equal(s.alive, true, 'still open');
      await engine.closeSession(s.id);
      assert.deepEqual(engine.sessions(), []);
    } finally {
      await engine.close();
    }
  });

  test('a context that does not close in time is cleaned up at browser level and reported', async () => {
    const { engine, session: s, record: rec } = await sessionOnBlank();
    try {
      const pid = rec!.browser_pid as number;
      const profile = rec!.temporary_profile as string;
      // A stopped browser answers nothing: context.close() would wait forever.
      process.kill(-pid, 'SIGSTOP');
      await engine.closeSession(s.id, { timeoutMs: 1_000 });
      assert.equal(engine.counts().stuck_closes, 1, 'the late close is reported');
      await until(`browser ${pid} to be killed`, () => !alive(pid));
      assert.equal(existsSync(profile), false, 'its temporary profile is removed');
      const next = await engine.startSession({}, { timeoutMs: 30_000 });
      await next.page().open('about:blank');
      assert.notEqual(await engine.sharedBrowserPid(), pid, 'the next session gets a fresh browser');

      // A persistent session's own browser: killed at browser level, its profile free at once.
      const own = await engine.startSession({ kind: 'persistent', profile: 'stuck' }, { timeoutMs: 30_000 });
      const ownPid = own.browser.launchedProcess()!.pid;
      process.kill(-ownPid, 'SIGSTOP');
      await engine.closeSession(own.id, { timeoutMs: 1_000 });
      assert.equal(engine.counts().stuck_closes, 2);
      assert.equal(alive(ownPid), false, 'the stopped browser is killed and reaped when close returns');
      const again = await engine.startSession(
        { kind: 'persistent', profile: 'stuck' },
        { timeoutMs: 30_000 },
      );
      assert.equal(again.profileExisted, true, 'the same profile opens again');
    } finally {
      await engine.close();
    }
  });

  test('a shared browser retired while a session is still starting on it stays until that session is done', async () => {
    const { home, engine, session: first, record: rec } = await sessionOnBlank();
    const pid = rec!.browser_pid as number;
    try {
      // A stopped browser: the next session's context waits, and the first session's close is stuck.
      process.kill(-pid, 'SIGSTOP');
      const starting = engine.startSession({}, { timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 200));
      await engine.closeSession(first.id, { timeoutMs: 1_000 });
      assert.equal(engine.counts().stuck_closes, 1, 'the shared browser is retired');
      process.kill(-pid, 'SIGCONT');
      // Had the retired browser been closed as unused, this start would fail with it.
      const second = await starting;
      assert.equal(
        records(home.dir).length,
        1,
        'the second session started on the retired browser, not a new one',
      );
      await second.page().open('about:blank');
      assert.equal(await second.page().title(), '');
      await engine.closeSession(second.id);
      await until(`the retired browser ${pid} to close once unused`, () => !alive(pid));
    } finally {
      try {
        process.kill(-pid, 'SIGCONT');
      } catch {}
      await engine.close();
    }
  });

  test('a home whose path is too long for a socket in it: the browser starts, and leaves nothing', async () => {
    const home = tempHome();
    homes.push(home);
    const longHome = join(home.dir, 'h'.repeat(90));
    const tmp = mkdtempSync('/tmp/twl-');
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const engine = newEngine(longHome);
    try {
      // The browser's TMPDIR under this home would not fit Chromium's first socket: it died at launch.
      const s = await engine.startSession({}, { timeoutMs: 30_000 });
      await s.page().open('about:blank');
      const [rec] = records(longHome);
      assert.ok(String(rec!.work_dir).startsWith(tmp), 'the work directory is in the system temporary one');
      await engine.close();
      assert.deepEqual(readdirSync(tmp), [], 'its work directory is removed with the browser');
      assert.deepEqual(records(longHome), []);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      await engine.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('after tabwright is killed, the next engine in the same home cleans up what it left', async () => {
    const home = tempHome();
    homes.push(home);
    const child = spawn(process.execPath, ['bin/tabwright.js', 'provider'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'silent' },
    });
    child.stdin.write(
      `${JSON.stringify({ protocol_version: '0.1', id: '1', method: 'session.ensure', params: {} })}\n`,
    );
    await until('a session in the killed process', () => records(home.dir).length === 1, 30_000);
    const [rec] = records(home.dir);
    const profile = rec!.temporary_profile as string;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    assert.ok(existsSync(profile), 'a killed process cannot clean up');
    const engine = newEngine(home.dir);
    try {
      await engine.startSession({}, { timeoutMs: 30_000 });
      assert.equal(existsSync(profile), false, 'the old profile is removed by the next launch');
      // A killed process stays a zombie until its new parent reaps it.
      await until('its browser to be gone', () => !alive(rec!.browser_pid as number));
      assert.equal(records(home.dir).length, 1, 'only the new browser is recorded');
    } finally {
      await engine.close();
    }
  });

  test('a provider on Firefox killed with SIGKILL takes its Firefox with it at once', async () => {
    // Chromium quits when playwright-core's pipe closes; Firefox's remote agent listens on a socket
    // and, without the kernel's parent-death signal (firefox/launch.ts), ran on as an orphan.
    const home = tempHome();
    homes.push(home);
    const child = spawn(process.execPath, ['bin/tabwright.js', 'provider', '--browser', 'firefox'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'silent' },
    });
    child.stdin.write(
      `${JSON.stringify({ protocol_version: '0.1', id: '1', method: 'session.ensure', params: { timeout_ms: 60_000 } })}\n`,
    );
    let pid: number | undefined;
    try {
      await until('a Firefox session in the process', () => records(home.dir).length === 1, 60_000);
      pid = records(home.dir)[0]!.browser_pid as number;
      assert.ok(alive(pid), 'the recorded Firefox runs');
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      // Gone, or a zombie left for init to reap: either way it no longer runs.
      const firefox = pid;
      const runs = () => {
        try {
          return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${firefox}/stat`, 'utf8'));
        } catch {
          return false;
        }
      };
      await until('the orphaned Firefox to end', () => !runs(), 15_000);
    } finally {
      // Whatever this test failed on, it leaves no provider or Firefox behind.
      if (child.exitCode === null) child.kill('SIGKILL');
      try {
        if (pid) process.kill(-pid, 'SIGKILL');
      } catch {}
      // A SIGKILLed owner cleans up nothing: its Firefox's directories are the next engine's in this
      // home to remove (its work directory may be outside the home: test/helpers/tmp-guard.ts).
      new LaunchRecords(home.dir).sweep();
    }
  });

  // As the tests run it, and as an MCP client does (`npx tabwright mcp`: bin/tabwright.js run as a
  // program, whose sh line execs node: test/launcher.test.ts).
  for (const [how, argv] of [
    ['node bin/tabwright.js mcp', [process.execPath, 'bin/tabwright.js']],
    ['bin/tabwright.js mcp, run as a program', ['bin/tabwright.js']],
  ] as const)
    test(`tabwright mcp leaves nothing in its temporary directory when its client goes away (${how})`, async () => {
      const home = tempHome();
      homes.push(home);
      const tmp = mkdtempSync(join(tmpdir(), 'tabwright-leftovers-'));
      try {
        const child = spawn(argv[0], [...argv.slice(1), 'mcp'], {
          stdio: ['pipe', 'pipe', 'ignore'],
          env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'silent', TMPDIR: tmp },
        });
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
        send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '0' },
          },
        });
        await until('initialize', () => out.includes('"id":1'));
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'navigate', arguments: { url: 'about:blank' } },
        });
        await until('navigate', () => out.includes('"id":2'), 30_000);
        assert.ok(readdirSync(tmp).length > 0, 'the browser used the temporary directory');
        // playwright-core's artifacts directory lives in the work directory the engine removes: in
        // TMPDIR, an exit under load before playwright-core cleaned up left it behind.
        assert.deepEqual(
          readdirSync(tmp).filter((name) => name.startsWith('playwright-artifacts-')),
          [],
          'no artifacts directory in TMPDIR',
        );
        const exited = once(child, 'exit');
        child.stdin.end();
        await exited;
        assert.deepEqual(readdirSync(tmp), [], 'nothing left in TMPDIR');
        assert.deepEqual(records(home.dir), []);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
});
