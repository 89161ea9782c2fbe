/**
 * npm run bench:soak-heap -- [--sessions N] [--seconds S] [--door http|mcp[,…]]
 *
 * What each record the engine keeps costs in the Node heap: the HTTP command API and /mcp of a
 * `tabwright serve` started in this process (same engine, same doors), N sessions looping the soak
 * benchmark's step mix for S seconds; then, after a full GC, each kind of record is dropped in turn
 * (refs, snapshot baselines, request log, console buffers) and the heap freed by each is printed,
 * per session and per record. Run with `node --expose-gc` (the npm script does).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { createEngine } from '../src/cli/compose.js';
import { startServer } from '../src/cli/serve.js';
import type { Session } from '../src/engine/session.js';
import { baselineCount, forgetBaselines } from '../src/snapshot/diff.js';
import { registryOf } from '../src/snapshot/refs.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { httpSession, mcpSession, OUR_MCP, ourMcpTransport, type SoakSession } from './lib/soak/doors.js';
import { agentLoop, type Call, corpusPages } from './lib/soak/run.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc (npm run bench:soak-heap does)');
  process.exit(2);
}
const sessions = Number(arg('sessions') ?? 4);
const seconds = Number(arg('seconds') ?? 120);
const doors = (arg('door') ?? 'http,mcp').split(',');
/**
 * `--snapshot-calls 150,700 --snapshot-prefix FILE`: while the sessions run, write `FILE.<n>calls`
 * once that many calls finished (a heap snapshot pauses the process for a minute or more on a
 * loaded machine, so points in time would hold different call counts; call counts compare).
 */
const snapshotCalls = (arg('snapshot-calls') ?? '').split(',').filter(Boolean).map(Number);
const snapshotPrefix = arg('snapshot-prefix') ?? 'soak-heap';

function heapMb(): number {
  for (let i = 0; i < 3; i++) gc!();
  return getHeapStatistics().used_heap_size / 2 ** 20;
}

const home = mkdtempSync(join(tmpdir(), 'tabwright-soak-heap-'));
process.env.TABWRIGHT_HOME = home;
const fx = await startFixtureServer();
const engine = createEngine({ home, admission: { minFreeMemoryMb: 0 } });
const server = await startServer(engine, { port: 0, allowedOrigins: [fx.url] });
const pages = corpusPages();
const calls: Call[] = [];
try {
  // Idle: after one session was opened and closed (the browser launched, the driver loaded).
  const warm = await httpSession(server.url);
  await warm.open(`${fx.url}/corpus/apps/todomvc-react/index.html`);
  await warm.close();
  const idle = heapMb();
  const opened: SoakSession[] = [];
  const startedAt = Date.now();
  const stopAt = startedAt + seconds * 1000;
  const pending = [...snapshotCalls].sort((x, y) => x - y);
  const poll = setInterval(() => {
    if (pending.length === 0 || calls.length < pending[0]!) return;
    const at = pending.shift()!;
    const file = `${snapshotPrefix}.${at}calls`;
    writeHeapSnapshot(file);
    const used = getHeapStatistics().used_heap_size / 2 ** 20;
    const secs = ((Date.now() - startedAt) / 1000).toFixed(0);
    console.log(
      `heap snapshot after ${calls.length} calls (${secs} s): ${file}, heap used ${used.toFixed(1)} MB`,
    );
  }, 250);
  await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const door = doors[i % doors.length]!;
      const s =
        door === 'http'
          ? await httpSession(server.url)
          : await mcpSession(ourMcpTransport(server.url), OUR_MCP);
      opened.push(s);
      await agentLoop(s, door, i, stopAt, fx.url, pages, calls);
    }),
  );
  clearInterval(poll);
  const errors = calls.filter((c) => c.error).length;
  const live = engine.sessions();
  const counts = engine.counts();
  const baselines = live.flatMap((s) => s.pages()).reduce((n, p) => n + baselineCount(p), 0);
  const snapshotFile = arg('heap-snapshot');
  const pagesOpen = live.reduce((n, s) => n + s.pages().length, 0);
  const full = heapMb();
  const freed: [string, number, number][] = [];
  const drop = async (what: string, n: number, fn: (s: Session) => void | Promise<void>) => {
    const before = heapMb();
    for (const s of live) await fn(s);
    freed.push([what, n, before - heapMb()]);
  };
  await drop('refs', counts.refs, (s) => {
    // The registry's tables, emptied in place (a bench-only reach into its private fields).
    for (const m of Object.values(registryOf(s))) if (m instanceof Map) m.clear();
  });
  await drop('snapshot baselines', baselines, (s) => {
    for (const p of s.pages()) forgetBaselines(p);
  });
  await drop('request-log entries', counts.request_log_entries, (s) => {
    const log = s.requests as unknown as { entries: unknown[]; bodies: Map<string, string> };
    log.entries.length = 0;
    log.bodies.clear();
  });
  await drop('console entries', counts.console_entries, (s) => {
    for (const p of s.pages()) p.console.clear();
  });
  if (snapshotFile) writeHeapSnapshot(`${snapshotFile}.before-pages`);
  await drop(
    "pages (the driver's records of their requests, routes, responses, frames)",
    pagesOpen,
    async (s) => {
      for (const p of s.pages()) await p.close();
    },
  );
  const rest = heapMb();
  if (snapshotFile) writeHeapSnapshot(snapshotFile);
  console.log(
    `${sessions} sessions (${doors.join('+')}) × ${seconds} s: ${calls.length} calls, ${errors} errors; Node heap after a full GC: idle ${idle.toFixed(1)} MB, with the sessions ${full.toFixed(1)} MB`,
  );
  for (const [what, n, mb] of freed)
    console.log(
      `  ${what}: ${n} (${(n / sessions).toFixed(0)} per session) free ${mb.toFixed(1)} MB = ${(mb / sessions).toFixed(2)} MB per session, ${n ? ((mb * 2 ** 20) / n).toFixed(0) : '-'} bytes each`,
    );
  console.log(
    `  the rest (sessions without pages, doors): ${(rest - idle).toFixed(1)} MB = ${((rest - idle) / sessions).toFixed(2)} MB per session`,
  );
  for (const s of opened) await s.close().catch(() => {});
} finally {
  await server.close();
  await engine.close();
  await fx.close();
  rmSync(home, { recursive: true, force: true });
}
