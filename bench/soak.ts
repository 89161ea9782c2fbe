/**
 * npm run bench:soak -- --sessions N --minutes M [--door http|mcp|provider[,…]] [--anchor] [--sample-seconds S]
 *                      [--launch bin|node] [--think-ms T]
 *
 * N concurrent agent sessions through doors' real transports (`tabwright serve`'s HTTP command API
 * and /mcp, `tabwright provider` over stdio; run `npm run build` first), each looping a realistic
 * step mix on the TodoMVC apps and ../shared/corpus/pages served from 127.0.0.1 (nothing leaves
 * it: every door gets the fixture server as its only allowed origin). Every minute: per-door
 * errors, p50/p95 per operation, PSS of the whole process tree (Node + browser), the engine's
 * counts. At the end, after closing every session: is the tree back to its idle size, is any
 * browser process, context or temporary profile directory left? With --anchor, the same for
 * Playwright MCP (one process per session), after ours, for the same time.
 *
 * Every sample also prints PSS and CPU seconds per process kind (serve, provider, browser, renderer,
 * gpu-process, utility; bench = the clients and fixture server) and each failed call in full (a
 * missing target with the page's URL, DOM start, resource statuses, requests and console).
 * TABWRIGHT_SOAK_LOG=info TABWRIGHT_SOAK_STDERR=<file> keeps `tabwright serve`'s log. Per Node
 * process it prints where its PSS is: process.memoryUsage() and V8's spaces (from its stats file)
 * and its mappings (V8's heap and other anonymous memory, glibc's arenas, file pages).
 *
 * `--launch bin` (the default) starts the doors as users do, bin/tabwright.js as a program (its sh
 * line sets the launcher's environment: src/cli/malloc-env.ts); `--launch node` runs `node
 * bin/tabwright.js`, without it.
 *
 * `--think-ms T` pauses each session between its steps for its model's turn (each pause between
 * T/2 and 3T/2; default 0: back to back, which measures what the machine can take at most).
 */

import { DOOR_NAMES, type DoorName, runSoak, summarize } from './lib/soak/run.js';
import { machine } from './lib/stats.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sessions = Number(arg('sessions') ?? 4);
const minutes = Number(arg('minutes') ?? 2);
const doors = (arg('door') ?? 'mcp').split(',') as DoorName[];
const sampleSeconds = Number(arg('sample-seconds') ?? 60);
const launch = arg('launch') ?? 'bin';
const thinkMs = Number(arg('think-ms') ?? 0);
if (launch !== 'bin' && launch !== 'node') {
  console.error(`--launch wants bin or node, got ${launch}`);
  process.exit(2);
}
for (const d of doors) {
  if (!DOOR_NAMES.includes(d)) {
    console.error(`unknown door "${d}": use ${DOOR_NAMES.join(', ')} (comma-separated to mix)`);
    process.exit(2);
  }
}
if (!(sessions >= 1) || !(minutes > 0) || !(thinkMs >= 0)) {
  console.error('--sessions must be ≥ 1, --minutes > 0 and --think-ms ≥ 0');
  process.exit(2);
}

console.log(`machine: ${machine()}`);
console.log(
  `soak: ${sessions} sessions × ${minutes} min through ${doors.join('+')}${thinkMs ? `, ${thinkMs} ms to think between steps` : ''}${process.argv.includes('--anchor') ? ', then Playwright MCP' : ''}; started ${new Date().toISOString()}`,
);
const results = await runSoak({
  doors,
  sessions,
  durationMs: minutes * 60_000,
  sampleMs: sampleSeconds * 1000,
  anchor: process.argv.includes('--anchor'),
  launch,
  thinkMs,
});
console.log('');
for (const r of results) summarize(r, (l) => console.log(l));
const [ours, theirs] = results;
if (ours && theirs) {
  const last = (r: typeof ours) => r.samples[r.samples.length - 1];
  console.log(
    `== ratio (last sample): tree PSS ${(last(ours)!.treeMb / last(theirs)!.treeMb).toFixed(2)}×, p95 ${(last(ours)!.p95 / last(theirs)!.p95).toFixed(2)}×`,
  );
}
const failed = results.some((r) => r.errors > 0 || r.leftovers.length > 0);
process.exitCode = failed ? 1 : 0;
