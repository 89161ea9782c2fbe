import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// Orphan safety: when the process that started `tabwright mcp` dies, every browser it launched is gone within 2 s.
let server: FixtureServer;
const home = tempHome();
before(async () => {
  server = await startFixtureServer();
});
after(async () => {
  await server.close();
  home.cleanup();
});

/** pid → [ppid, state] for every process, from /proc. */
function processTable(): Map<number, { ppid: number; state: string }> {
  const out = new Map<number, { ppid: number; state: string }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), { state: rest[0]!, ppid: Number(rest[1]) });
    } catch {}
  }
  return out;
}

function descendants(root: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [pid, info] of table) {
      if (info.ppid === p) {
        found.push(pid);
        walk(pid);
      }
    }
  };
  walk(root);
  return found;
}

/** Running (not exited, not a zombie waiting to be reaped) among `pids`. */
function running(pids: number[]): number[] {
  const table = processTable();
  return pids.filter((p) => {
    const s = table.get(p)?.state;
    return s !== undefined && s !== 'Z' && s !== 'X';
  });
}

test('killing the client process closes the server and every browser it launched within 2 s', async () => {
  const parent = spawn(
    process.execPath,
    ['test/helpers/mcp-parent.mjs', `${server.url}/corpus/apps/todomvc-react/index.html`],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TABWRIGHT_HOME: home.dir } },
  );
  let out = '';
  parent.stdout.setEncoding('utf8');
  parent.stdout.on('data', (d: string) => {
    out += d;
  });
  const deadline = Date.now() + 60_000;
  while (!out.includes('\n') && Date.now() < deadline && parent.exitCode === null)
    await new Promise((r) => setTimeout(r, 100));
  const { server_pid } = JSON.parse(out.split('\n')[0]!) as { server_pid: number };
  const browsers = descendants(server_pid);
  assert.ok(browsers.length > 0, 'the MCP server runs a browser');
  const procs = [server_pid, ...browsers];

  const exited = once(parent, 'exit');
  parent.kill('SIGKILL');
  await exited;
  const t0 = Date.now();
  let alive = running(procs);
  while (alive.length && Date.now() - t0 < 5000) {
    await new Promise((r) => setTimeout(r, 50));
    alive = running(procs);
  }
  const ms = Date.now() - t0;
  // Leave nothing behind even when the assertion fails.
  for (const p of alive) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  }
  assert.deepEqual(alive, [], `still running after ${ms} ms`);
  assert.ok(ms <= 2000, `everything was gone only after ${ms} ms`);
});
