/**
 * Snapshot latency through every door's real transport, in one run against Playwright's
 * `page.ariaSnapshot({ mode: 'ai' })`: the corpus pages (../shared/corpus/pages/<name>/index.html)
 * served from 127.0.0.1, nothing else reachable, one Chromium per side (same binary and flags).
 * Per page, every side opens the page and takes its first snapshot of the document (which installs
 * the walkers), then `--rounds` rounds; the first snapshots and each round call every side once, in
 * an order that rotates, so all sides see the same machine. Whole pages on every side (no character
 * budget where a door has one).
 *
 * Sides: provider (`tabwright provider` over stdio, `page.snapshot` default reply: nodes, elements,
 * text), mcp (`tabwright mcp` over stdio via the MCP SDK client, `snapshot`), http (`tabwright
 * serve`, `get_browser_state` of the whole page), pipe (`tabwright pipe` with an SDK agent,
 * `getAomSnapshot`), js (the `tabwright js` daemon, `page.snapshot()`), engine (our engine call in
 * this process, for reference) and playwright (the anchor).
 *
 * Prints p50 and p95 per side over all rounds of all pages and each side's ratios to Playwright, then
 * the same for the first snapshot of each document (what an agent's snapshot right after a
 * navigation costs).
 *
 * Usage: npm run bench:snapshot-doors [-- --rounds 3] [-- --doors provider,mcp] [-- --filter wiki]
 *        [-- --pages 20] [-- --json out.json]          (needs `npm run -s build`: it spawns the CLI)
 *        [-- --env-b NAME=value]: every spawned door a second time ("provider+B"), its process
 *        started with NAME=value added to the environment (e.g. MALLOC_TRIM_THRESHOLD_=131072), to
 *        compare in one run; the first copy keeps this process's environment.
 *        [-- --flags-b "--optimize-for-size …"]: the same with TABWRIGHT_V8_FLAGS=<these flags>
 *        (src/cli/v8-flags.ts).
 *        [-- --bin-b /work/main/bin/tabwright.js]: every spawned door a second time ("provider+B")
 *        running that CLI (another tree's build: its dist/), to compare two builds in one run; the
 *        http door has no B copy.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS_ROOT, startFixtureServer } from '../test/helpers/fixture-server.js';
import {
  engineSide,
  httpSide,
  jsSide,
  lastPipeMs,
  mcpSide,
  pipeSide,
  playwrightSide,
  providerSide,
  type Side,
  withBin,
} from './lib/doors/snapshot-doors.js';
import { machine, median, percentile } from './lib/stats.js';

const args = process.argv.slice(2);
const arg = (k: string, d?: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const ALL = ['provider', 'mcp', 'http', 'pipe', 'js', 'engine'] as const;
const rounds = Number(arg('--rounds', '3'));
const filter = arg('--filter');
const maxPages = Number(arg('--pages', '0'));
const jsonOut = arg('--json');
// `--doors` alone (as `npm run bench:snapshot -- --doors` passes it) means every door.
const doorList = arg('--doors');
const wanted = (doorList && !doorList.startsWith('--') ? doorList : ALL.join(',')).split(',');
const flagsB = arg('--flags-b');
const envB = arg('--env-b') ?? (flagsB !== undefined ? `TABWRIGHT_V8_FLAGS=${flagsB}` : undefined);
const binB = arg('--bin-b');
if (binB !== undefined && envB !== undefined) throw new Error('--bin-b and --env-b: one B side at a time');
if (binB !== undefined && !existsSync(binB)) throw new Error(`--bin-b ${binB}: no such file`);

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** The side `make` starts, its process started with `assignment` (NAME=value) in its environment, named `<name>+B`. */
async function withEnv(assignment: string, name: string, make: () => Promise<Side>): Promise<Side> {
  const eq = assignment.indexOf('=');
  if (eq < 1) throw new Error(`--env-b wants NAME=value, got ${assignment}`);
  const key = assignment.slice(0, eq);
  const before = process.env[key];
  process.env[key] = assignment.slice(eq + 1);
  try {
    const side = await make();
    return { name: `${name}+B`, open: side.open, snapshot: side.snapshot, close: side.close };
  } finally {
    if (before === undefined) delete process.env[key];
    else process.env[key] = before;
  }
}

async function main() {
  // The in-process engine logs like a door would: warnings only.
  process.env.TABWRIGHT_LOG ??= 'warn';
  const server = await startFixtureServer();
  const origin = server.url;
  const home = mkdtempSync(join(tmpdir(), 'twsd-'));
  const runtimeDir = mkdtempSync(join(tmpdir(), 'twjs-bench-'));
  const sides: Side[] = [];
  try {
    const homeOf = (door: string) => mkdirSync(join(home, door), { recursive: true }) ?? join(home, door);
    const make: Record<string, () => Promise<Side>> = {
      provider: () => providerSide(homeOf('provider'), origin),
      mcp: () => mcpSide(homeOf('mcp'), origin),
      http: () => httpSide(homeOf('http'), origin),
      pipe: () => pipeSide(homeOf('pipe')),
      js: () => jsSide(homeOf('js'), runtimeDir, origin),
      engine: () => engineSide(homeOf('engine'), origin),
    };
    for (const name of wanted) {
      if (!make[name]) throw new Error(`unknown door ${name}: one of ${ALL.join(', ')}`);
      sides.push(await make[name]!());
      if (envB !== undefined && name !== 'engine') sides.push(await withEnv(envB, name, make[name]!));
      if (binB !== undefined && name !== 'engine' && name !== 'http') {
        const side = await withBin(binB, make[name]!);
        sides.push({ name: `${name}+B`, open: side.open, snapshot: side.snapshot, close: side.close });
      }
    }
    sides.push(await playwrightSide(origin));

    const dir = join(CORPUS_ROOT, 'pages');
    let names = readdirSync(dir)
      .filter((n) => existsSync(join(dir, n, 'index.html')))
      .filter((n) => !filter || n.includes(filter))
      .sort();
    if (maxPages > 0) names = names.slice(0, maxPages);
    console.log(`${machine()}; load average ${load()}; ${names.length} pages × ${rounds} rounds`);

    const ms = new Map<string, number[]>(sides.map((s) => [s.name, []]));
    const first = new Map<string, number[]>(sides.map((s) => [s.name, []]));
    const chars = new Map<string, number>(sides.map((s) => [s.name, 0]));
    let turn = 0;
    const t0 = performance.now();
    for (const name of names) {
      const url = `${origin}/corpus/pages/${name}/index.html`;
      await Promise.all(sides.map((s) => s.open(url)));
      // The first snapshot of the document installs the walkers (what an agent's snapshot right after
      // a navigation costs): timed and reported apart, in a rotating order; the rounds come after it.
      turn++;
      for (let k = 0; k < sides.length; k++) {
        const s = sides[(k + turn) % sides.length]!;
        const t = performance.now();
        await s.snapshot();
        first.get(s.name)!.push(s.name.startsWith('pipe') ? lastPipeMs : performance.now() - t);
      }
      const row: string[] = [];
      const perPage = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      for (let r = 0; r < rounds; r++) {
        turn++;
        for (let k = 0; k < sides.length; k++) {
          const s = sides[(k + turn) % sides.length]!;
          const t = performance.now();
          const n = await s.snapshot();
          const dt = s.name.startsWith('pipe') ? lastPipeMs : performance.now() - t;
          ms.get(s.name)!.push(dt);
          perPage.get(s.name)!.push(dt);
          if (r === 0) chars.set(s.name, chars.get(s.name)! + n);
        }
      }
      const pw = median(perPage.get('playwright')!);
      for (const s of sides)
        if (s.name !== 'playwright') row.push(`${s.name} ${(median(perPage.get(s.name)!) / pw).toFixed(2)}`);
      console.log(`${name.padEnd(36)} playwright ${pw.toFixed(1)} ms | ${row.join('  ')}`);
    }
    const summarize = (times: Map<string, number[]>) => {
      const pw = times.get('playwright')!;
      return sides.map((s) => {
        const xs = times.get(s.name)!;
        return {
          side: s.name,
          p50_ms: median(xs),
          p95_ms: percentile(xs, 95),
          p50_ratio: median(xs) / median(pw),
          p95_ratio: percentile(xs, 95) / percentile(pw, 95),
          chars: chars.get(s.name)!,
        };
      });
    };
    const summary = summarize(ms);
    const firstSummary = summarize(first);
    console.log(
      `\n${names.length} pages × ${rounds} rounds in ${((performance.now() - t0) / 1000).toFixed(0)} s; load average ${load()}`,
    );
    console.log('side        p50 ms    p95 ms   p50 / PW  p95 / PW   chars (round 1)');
    const print = (rows: typeof summary, withChars: boolean) => {
      for (const r of rows)
        console.log(
          `${r.side.padEnd(10)} ${r.p50_ms.toFixed(1).padStart(7)} ${r.p95_ms.toFixed(1).padStart(9)} ${r.p50_ratio.toFixed(2).padStart(9)}× ${r.p95_ratio.toFixed(2).padStart(8)}×${withChars ? `   ${r.chars}` : ''}`,
        );
    };
    print(summary, true);
    console.log(`\nfirst snapshot of each document (${names.length} per side)`);
    console.log('side        p50 ms    p95 ms   p50 / PW  p95 / PW');
    print(firstSummary, false);
    if (jsonOut)
      writeFileSync(
        jsonOut,
        JSON.stringify(
          {
            pages: names,
            rounds,
            summary,
            first_summary: firstSummary,
            ms: Object.fromEntries(ms),
            first_ms: Object.fromEntries(first),
          },
          null,
          2,
        ),
      );
  } finally {
    for (const s of sides) await s.close().catch((e) => console.error(`closing ${s.name}: ${e}`));
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

await main();
