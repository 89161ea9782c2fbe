/**
 * npm run bench:grid — sessions on a Selenium Grid 4 (hub + two nodes on loopback, started here)
 * against local sessions (the engine's shared launched Chromium), in the same run: session start,
 * a snapshot and a click, medians and ratios grid/local; then 16 concurrent Grid sessions over the
 * two nodes (all must succeed) and the memory they take on the nodes (PSS of each node's process
 * tree: chromedriver and Chromium, the JVM excluded), per session. Not a test: numbers go to
 * docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../src/index.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { startGrid } from '../test/helpers/grid.js';
import { fmt, machine, median } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CONCURRENT = 16;

interface Times {
  start: number[];
  snapshot: number[];
  click: number[];
}

async function timed<T>(out: number[], fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await fn();
  out.push(performance.now() - t0);
  return v;
}

async function rounds(engine: Engine, url: string): Promise<Times> {
  const t: Times = { start: [], snapshot: [], click: [] };
  for (let i = 0; i < ROUNDS + 1; i++) {
    const sink: Times = i === 0 ? { start: [], snapshot: [], click: [] } : t; // one warm-up round
    const s = await timed(sink.start, () => engine.startSession({}, { timeoutMs: 60_000 }));
    const page = s.page();
    await page.open(url);
    const snap = await timed(sink.snapshot, () => page.snapshot());
    const go = snap.elements.find((e) => e.name === 'Go');
    if (!go) throw new Error('no Go button');
    await timed(sink.click, () => page.act({ element_ref: go.element_ref }, { action: 'click' }));
    await engine.closeSession(s.id);
  }
  return t;
}

/** PSS (KiB: shared pages split between their processes) of one process; 0 when it is gone. */
function pssKiB(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** PSS (KiB) of every process below `pid` (not `pid` itself: the node's JVM). */
function treeRssKiB(pid: number): number {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number, number]);
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [p, pp] of rows)
      if (below.has(pp) && !below.has(p)) {
        below.add(p);
        grew = true;
      }
  }
  return rows.filter(([p]) => p !== pid && below.has(p)).reduce((sum, [p]) => sum + pssKiB(p), 0);
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-grid-'));
  const [grid, fx] = await Promise.all([
    startGrid({ nodes: 2, slotsPerNode: CONCURRENT / 2 }),
    startFixtureServer(),
  ]);
  const url = `${fx.url}/fixtures/provider/index.html`;
  const local = createEngine({ home, grid: null });
  const onGrid = createEngine({ home, grid: { url: grid.url } });
  try {
    const l = await rounds(local, url);
    const g = await rounds(onGrid, url);
    console.log(`machine: ${machine()}; ${ROUNDS} rounds after one warm-up`);
    console.log('| step | local median | Grid median | ratio |');
    console.log('|---|---|---|---|');
    for (const k of ['start', 'snapshot', 'click'] as const)
      console.log(
        `| ${k === 'start' ? 'session start (to a blank page)' : k} | ${fmt(median(l[k]))} | ${fmt(median(g[k]))} | ${(median(g[k]) / median(l[k])).toFixed(2)}× |`,
      );

    const pids = grid.nodes.map((n) => n.process.pid!);
    const before = pids.map(treeRssKiB);
    const t0 = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, async () => {
        const s = await onGrid.startSession({}, { timeoutMs: 60_000 });
        await s.page().open(url, 'load', { timeoutMs: 30_000 });
        await s.page().snapshot({}, { timeoutMs: 30_000 });
        return s;
      }),
    );
    const wall = performance.now() - t0;
    const ok = results.filter((r) => r.status === 'fulfilled');
    const perNode = (await grid.sessionNodes()).reduce<Record<string, number>>((m, n) => {
      m[n] = (m[n] ?? 0) + 1;
      return m;
    }, {});
    const afterRss = pids.map(treeRssKiB);
    const added = afterRss.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0);
    console.log(
      `\n${CONCURRENT} concurrent Grid sessions (start + open + snapshot): ${ok.length}/${CONCURRENT} succeeded in ${(wall / 1000).toFixed(1)} s; per node: ${Object.values(perNode).join(' + ')}`,
    );
    for (const r of results) if (r.status === 'rejected') console.log(`  failed: ${String(r.reason)}`);
    console.log(
      `node memory (PSS of the chromedriver + Chromium trees): ${(added / 1024).toFixed(0)} MiB for ${ok.length} sessions = ${(added / 1024 / Math.max(1, ok.length)).toFixed(0)} MiB per session`,
    );
    await Promise.all(ok.map((r) => onGrid.closeSession(r.value.id)));
  } finally {
    await onGrid.close();
    await local.close();
    await grid.stop();
    await fx.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
