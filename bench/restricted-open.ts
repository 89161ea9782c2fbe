/**
 * npm run bench:restricted-open -- [--rounds N] [--busy MS]
 *
 * Opening real pages in a restricted session (the fixture origin only, subresources blocked), with
 * other hosts' subresources refused in Chromium itself (the default: in-browser-refusal.ts) against
 * the anchor, every request judged in Node (TABWRIGHT_REFUSE_IN_BROWSER=0), in one run: one engine,
 * one browser, two sessions, the same pages in turn. Per page the median time of `open` (to `load`)
 * and the Node CPU it took; ratios in-browser / in Node.
 *
 * `--busy MS` keeps this process's event loop busy MS out of every 1.1×MS, as a `tabwright serve`
 * driving many sessions is: every judgement in Node then waits for a turn of the loop.
 */
import type { Session } from '../src/index.js';
import { newEngine, tempHome } from '../test/helpers/engine.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { cliArg, machine, median } from './lib/stats.js';

const rounds = Number(cliArg('--rounds', '7'));
const busy = Number(cliArg('--busy', '0'));
const PAGES = ['buzzfeed-1', 'yahoo-4', 'wordpress', 'bbc-1', 'nytimes-1', 'qq', 'wikipedia-1'];

const fx = await startFixtureServer();
const home = tempHome();
const engine = newEngine(home.dir);
const policy = { allowed_origins: [fx.url], subresources: 'block' as const };
const inBrowser = await engine.startSession({ policy }, { timeoutMs: 30_000 });
process.env.TABWRIGHT_REFUSE_IN_BROWSER = '0';
const inNode = await engine.startSession({ policy }, { timeoutMs: 30_000 });
delete process.env.TABWRIGHT_REFUSE_IN_BROWSER;

type Kind = 'in-browser' | 'in Node';
const times: Record<Kind, Record<string, { ms: number[]; cpu: number[] }>> = {
  'in-browser': {},
  'in Node': {},
};

async function open(kind: Kind, s: Session, name: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await s.page().open(`${fx.url}/corpus/pages/${name}/`, 'load', { timeoutMs: 60_000 });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const rec = times[kind][name] ?? { ms: [], cpu: [] };
  times[kind][name] = rec;
  rec.ms.push(ms);
  rec.cpu.push((cpu.user + cpu.system) / 1000);
}

console.log(`machine: ${machine()}`);
console.log(
  `restricted open: ${rounds} rounds of ${PAGES.length} corpus pages, event loop busy ${busy} ms per ${Math.round(busy * 1.1)} ms`,
);
// Warm-up: the renderer, the fixture server's file cache.
for (const p of PAGES) await Promise.all([open('in-browser', inBrowser, p), open('in Node', inNode, p)]);
for (const k of Object.keys(times) as Kind[]) times[k] = {};
if (busy > 0) {
  setInterval(() => {
    const until = Date.now() + busy;
    while (Date.now() < until);
  }, busy * 1.1).unref();
}
for (let r = 0; r < rounds; r++) {
  for (const p of PAGES) {
    // Alternate which goes first; one at a time, so the Node CPU is the open's own.
    const order: [Kind, Session][] = [
      ['in-browser', inBrowser],
      ['in Node', inNode],
    ];
    if (r % 2) order.reverse();
    for (const [k, s] of order) await open(k, s, p);
  }
}

console.log('\n| page | open, in-browser | open, in Node | ratio | Node CPU, in-browser | in Node | ratio |');
console.log('|---|---|---|---|---|---|---|');
const all: Record<Kind, { ms: number[]; cpu: number[] }> = {
  'in-browser': { ms: [], cpu: [] },
  'in Node': { ms: [], cpu: [] },
};
for (const p of PAGES) {
  const b = times['in-browser'][p]!;
  const n = times['in Node'][p]!;
  for (const [k, v] of [
    ['in-browser', b],
    ['in Node', n],
  ] as const) {
    all[k].ms.push(...v.ms);
    all[k].cpu.push(...v.cpu);
  }
  row(p, b, n);
}
row('all pages', all['in-browser'], all['in Node']);

function row(name: string, b: { ms: number[]; cpu: number[] }, n: { ms: number[]; cpu: number[] }): void {
  const [bm, nm, bc, nc] = [median(b.ms), median(n.ms), median(b.cpu), median(n.cpu)];
  console.log(
    `| ${name} | ${bm.toFixed(0)} ms | ${nm.toFixed(0)} ms | ${(bm / nm).toFixed(2)} | ${bc.toFixed(0)} ms | ${nc.toFixed(0)} ms | ${(bc / nc).toFixed(2)} |`,
  );
}

await engine.close();
await fx.close();
home.cleanup();
process.exit(0);
