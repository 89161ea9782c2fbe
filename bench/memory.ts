/**
 * npm run bench:memory [-- --doors all|none|mcp,provider,… --rounds 3 --levels 1,8,32|none --rest-ms 25000 --page wikipedia]
 *                      [-- --env-b NAME=value | --bin-b <other tree>/bin/tabwright.js] [-- --launch bin|node]
 *
 * First, per door command (`tabwright mcp`, `provider`, `serve` through its HTTP command API and
 * through /mcp, the `js` daemon, the `pipe` host; bench/lib/memory-doors.ts) with one page open
 * through the door's own transport, beside one Playwright MCP process with the same page: PSS of
 * the Node process, of the whole tree, and of the page's renderers; medians of --rounds rounds,
 * the doors alternating within each round. Then memory with one corpus page open per session,
 * side by side with Playwright MCP: one `tabwright serve` (built: run `npm run build` first) with N isolated MCP sessions over /mcp,
 * against N Playwright MCP processes (stdio, the same Chromium binary and flags), each session on
 * the same page of ../shared/corpus/pages served from 127.0.0.1. The count ramps through the
 * levels; at each, after the pages settle, PSS (/proc/<pid>/smaps_rollup) is summed over each
 * side's process tree: the Node side (our one process; their N), the whole tree, and the
 * renderers alone. The marginal cost of a session is set against a renderer's. Every figure is
 * read twice: 4 s after the last navigation, and again at rest (--rest-ms after it).
 * `--env-b NAME=value` adds, in the door table, a second row per door ("mcp+B") whose process starts
 * with NAME=value added to its environment, alternating with the first in every round (e.g.
 * `--env-b MALLOC_TRIM_THRESHOLD_=131072`, or `--env-b TABWRIGHT_V8_FLAGS=` for no V8 flags).
 * `--bin-b <path>` does the same with another build's CLI as the second row (an A/B of two commits:
 * `git worktree add ../base <commit>`, node_modules linked, `npm run -s build` there, then
 * `--bin-b ../base/bin/tabwright.js`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { availableMemory } from '../src/engine/engine-stats.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import {
  cliArgv,
  DOOR_COMMANDS,
  DOOR_LABELS,
  type DoorCommand,
  type Launch,
  openDoor,
} from './lib/memory-doors.js';
import { playwrightMcpTransport } from './lib/playwright-mcp.js';
import { pssKb, treePids } from './lib/soak/tree.js';
import { machine, median } from './lib/stats.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const LEVELS = arg('levels') === 'none' ? [] : (arg('levels') ?? '1,8,32').split(',').map(Number);
const DOORS: DoorCommand[] =
  arg('doors') === 'none'
    ? []
    : !arg('doors') || arg('doors') === 'all'
      ? [...DOOR_COMMANDS]
      : (arg('doors')!.split(',') as DoorCommand[]);
const ROUNDS = Number(arg('rounds') ?? 3);
const ENV_B = arg('env-b');
const ENV_B_KEY = ENV_B?.slice(0, ENV_B.indexOf('='));
if (ENV_B !== undefined && !ENV_B_KEY) throw new Error(`--env-b wants NAME=value, got ${ENV_B}`);
const BIN_B = arg('bin-b') === undefined ? undefined : resolve(arg('bin-b')!);
if (BIN_B && ENV_B !== undefined) throw new Error('--env-b and --bin-b: one second row at a time');
const B_LABEL = BIN_B ? `from ${BIN_B}` : `with ${ENV_B}`;
const PAGE = arg('page') ?? 'wikipedia';
const LAUNCH = (arg('launch') ?? 'bin') as Launch;
if (LAUNCH !== 'bin' && LAUNCH !== 'node') throw new Error(`--launch wants bin or node, got ${LAUNCH}`);
const SETTLE_MS = 4000;
/**
 * A second reading, after the process sat idle this long: V8's memory reducer frees the young
 * generation and uncommits pages ≈ 8-15 s after allocation calms down (a Node side measured 4 s
 * after a navigation is 20-50 MB above the same process at rest; an agent thinking between steps
 * leaves it at rest). Both readings are printed.
 */
const REST_MS = Number(arg('rest-ms') ?? 25_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figures {
  sessions: number;
  /** The same process tree REST_MS after the pages loaded (the Node side and the tree). */
  rest?: { nodeMb: number; treeMb: number };
  nodeMb: number;
  /**
   * The Node side's anonymous part (Pss_Anon): its heaps, without the node binary's file pages,
   * whose share of PSS depends on how many other Node processes the machine runs.
   */
  nodeAnonMb: number;
  treeMb: number;
  rendererMb: number[];
  processes: number;
}

function isRenderer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
}

function measure(roots: number[], sessions: number): Figures {
  const pids = treePids(roots);
  const rootSet = new Set(roots);
  let node = 0;
  let tree = 0;
  const renderers: number[] = [];
  for (const pid of pids) {
    const kb = pssKb(pid);
    tree += kb;
    if (rootSet.has(pid)) node += kb;
    else if (isRenderer(pid)) renderers.push(kb / 1024);
  }
  return {
    sessions,
    nodeMb: node / 1024,
    nodeAnonMb: sum(roots.map((pid) => pssKb(pid, 'Pss_Anon'))) / 1024,
    treeMb: tree / 1024,
    rendererMb: renderers,
    processes: pids.length,
  };
}

async function connect(t: Transport): Promise<Client> {
  const c = new Client({ name: 'tabwright-bench-memory', version: '0' });
  await c.connect(t);
  return c;
}

async function navigate(c: Client, tool: string, url: string): Promise<void> {
  const r = (await c.callTool({ name: tool, arguments: { url } }, undefined, { timeout: 120_000 })) as {
    isError?: boolean;
    content?: { text?: string }[];
  };
  if (r.isError) throw new Error(`${tool}: ${r.content?.map((x) => x.text).join(' ')}`);
}

/** Measures SETTLE_MS after the last navigation, and again once the processes are at rest. */
async function settleAndRest(roots: () => number[], sessions: number): Promise<Figures> {
  await sleep(SETTLE_MS);
  const f = measure(roots(), sessions);
  await sleep(Math.max(0, REST_MS - SETTLE_MS));
  const r = measure(roots(), sessions);
  return { ...f, rest: { nodeMb: r.nodeMb, treeMb: r.treeMb } };
}

/** Opens sessions up to each level, in parallel batches of 4, and measures after the pages settle. */
async function ramp(
  name: string,
  roots: () => number[],
  open: () => Promise<Client>,
  tool: string,
  url: string,
  log: (l: string) => void,
  maxLevel = Number.POSITIVE_INFINITY,
): Promise<{ figures: Figures[]; clients: Client[] }> {
  const clients: Client[] = [];
  const figures: Figures[] = [];
  for (const level of LEVELS) {
    if (level > maxLevel) break;
    while (clients.length < level) {
      const batch = Math.min(4, level - clients.length);
      const opened = await Promise.all(
        Array.from({ length: batch }, async () => {
          const c = await open();
          await navigate(c, tool, url);
          return c;
        }),
      );
      clients.push(...opened);
    }
    const f = await settleAndRest(roots, level);
    figures.push(f);
    log(
      `${name}: ${level} session(s): tree ${f.treeMb.toFixed(0)} MB, node ${f.nodeMb.toFixed(0)} MB (at rest: tree ${f.rest!.treeMb.toFixed(0)} MB, node ${f.rest!.nodeMb.toFixed(0)} MB), renderers ${f.rendererMb.length} (median ${median(f.rendererMb).toFixed(0)} MB, sum ${f.rendererMb.reduce((n, x) => n + x, 0).toFixed(0)} MB), ${f.processes} processes`,
    );
  }
  return { figures, clients };
}

const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);

/** Runs `start` (which spawns a door) with --env-b's variable added to this process's environment. */
async function withEnvB<T>(start: () => Promise<T>): Promise<T> {
  const key = ENV_B_KEY!;
  const before = process.env[key];
  process.env[key] = ENV_B!.slice(key.length + 1);
  try {
    return await start();
  } finally {
    if (before === undefined) delete process.env[key];
    else process.env[key] = before;
  }
}

/**
 * One page through each door command, beside one Playwright MCP process on the same page, in
 * alternating rounds; prints the medians as a markdown table.
 */
async function doorTable(url: string, origin: string, home: string, log: (l: string) => void): Promise<void> {
  const rows: string[] = [...DOORS.flatMap((d) => (ENV_B || BIN_B ? [d, `${d}+B`] : [d])), 'Playwright MCP'];
  const seen = new Map<string, Figures[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const door of rows) {
      let pid: number;
      let stop: () => Promise<void>;
      if (door === 'Playwright MCP') {
        const t = playwrightMcpTransport(home, ['--allowed-origins', origin]);
        const c = await connect(t);
        await navigate(c, 'browser_navigate', url);
        pid = t.pid!;
        stop = () => c.close();
      } else if (door.endsWith('+B') && BIN_B)
        ({ pid, stop } = await openDoor(door.slice(0, -2) as DoorCommand, home, url, origin, LAUNCH, BIN_B));
      else if (door.endsWith('+B'))
        ({ pid, stop } = await withEnvB(() =>
          openDoor(door.slice(0, -2) as DoorCommand, home, url, origin, LAUNCH),
        ));
      else ({ pid, stop } = await openDoor(door as DoorCommand, home, url, origin, LAUNCH));
      const f = await settleAndRest(() => [pid], 1);
      await stop();
      seen.set(door, [...(seen.get(door) ?? []), f]);
      log(
        `round ${round}: ${door}: node ${f.nodeMb.toFixed(0)} MB (anonymous ${f.nodeAnonMb.toFixed(0)} MB; at rest ${f.rest!.nodeMb.toFixed(0)} MB), tree ${f.treeMb.toFixed(0)} MB, renderers ${f.rendererMb.length} (${sum(f.rendererMb).toFixed(0)} MB)`,
      );
    }
  }
  log('');
  log(
    `load average after the door rounds: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  log(
    `| one page open | Node side ${SETTLE_MS / 1000} s after load | of which anonymous (Pss_Anon) | Node side at rest (${REST_MS / 1000} s) | whole tree at rest | renderers |`,
  );
  log('|---|---|---|---|---|---|');
  for (const door of rows) {
    const fs = seen.get(door) ?? [];
    const label =
      door === 'Playwright MCP'
        ? 'Playwright MCP (stdio, one process)'
        : door.endsWith('+B')
          ? `${DOOR_LABELS[door.slice(0, -2) as DoorCommand]}, ${B_LABEL}`
          : DOOR_LABELS[door as DoorCommand];
    log(
      `| ${label} | ${median(fs.map((f) => f.nodeMb)).toFixed(0)} MB | ${median(fs.map((f) => f.nodeAnonMb)).toFixed(0)} MB | ${median(fs.map((f) => f.rest!.nodeMb)).toFixed(0)} MB | ${median(fs.map((f) => f.rest!.treeMb)).toFixed(0)} MB | ${median(fs.map((f) => sum(f.rendererMb))).toFixed(0)} MB |`,
    );
  }
  log('');
}

async function main(): Promise<void> {
  const log = (l: string) => console.log(l);
  log(`machine: ${machine()}; memory available at start: ${(availableMemory() / 2 ** 30).toFixed(1)} GiB`);
  log(
    `page: corpus/pages/${PAGE}; doors: ${DOORS.join(', ') || 'none'}; levels: ${LEVELS.join(', ') || 'none'}; launch: ${LAUNCH === 'bin' ? 'bin/tabwright.js as a program (as npx tabwright)' : 'node bin/tabwright.js'}`,
  );
  log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const fx = await startFixtureServer();
  const url = `${fx.url}/corpus/pages/${PAGE}/index.html`;
  const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-memory-'));
  const rows: Record<string, Figures[]> = {};
  try {
    if (DOORS.length) await doorTable(url, fx.url, home, log);
    if (!LEVELS.length) return;
    // Ours: one serve process, one isolated MCP session (own browser context) per agent.
    const [command, ...prefix] = cliArgv(LAUNCH) as [string, ...string[]];
    const serve = spawn(
      command,
      [...prefix, 'serve', '--port', '0', '--allow-origin', fx.url, '--min-free-mb', '0'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, TABWRIGHT_HOME: home, TABWRIGHT_LOG: 'error' },
      },
    );
    let out = '';
    serve.stdout.setEncoding('utf8');
    const base = await new Promise<string>((resolve, reject) => {
      serve.stdout.on('data', (d: string) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      serve.once('exit', (c) => reject(new Error(`serve exited (${c}): ${out}`)));
    });
    await sleep(1000);
    const idle = measure([serve.pid!], 0);
    log(`tabwright: serve idle (no browser yet): node ${idle.nodeMb.toFixed(0)} MB`);
    const ours = await ramp(
      'tabwright',
      () => [serve.pid!],
      () => connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`))),
      'navigate',
      url,
      log,
    );
    rows.tabwright = ours.figures;
    for (const c of ours.clients) {
      await (c.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => {});
      await c.close();
    }
    const exited = once(serve, 'exit');
    serve.kill('SIGTERM');
    await exited;

    // Theirs: one Playwright MCP process (and its browser) per agent.
    // A Playwright MCP session costs a browser (≈ 350 MB here): keep 4 GiB for the machine's other work.
    const fits = Math.floor((availableMemory() - 4 * 2 ** 30) / (350 * 2 ** 20));
    if (fits < Math.max(...LEVELS))
      log(`Playwright MCP: only levels up to ${fits} fit in the memory available now`);
    const transports: StdioClientTransport[] = [];
    const theirs = await ramp(
      'Playwright MCP',
      () => transports.map((t) => t.pid).filter((p): p is number => typeof p === 'number'),
      () => {
        const t = playwrightMcpTransport(home, ['--allowed-origins', fx.url]);
        transports.push(t);
        return connect(t);
      },
      'browser_navigate',
      url,
      log,
      fits,
    );
    rows['Playwright MCP'] = theirs.figures;
    await Promise.all(theirs.clients.map((c) => c.close().catch(() => {})));
  } finally {
    await fx.close();
    rmSync(home, { recursive: true, force: true });
  }

  log('');
  log(
    `| sessions | tabwright tree | Playwright MCP tree | ratio | tabwright Node | Playwright MCP Node (all processes) | same ${REST_MS / 1000} s later: tabwright Node / tree | Playwright MCP Node / tree |`,
  );
  log('|---|---|---|---|---|---|---|---|');
  const o = rows.tabwright ?? [];
  const t = rows['Playwright MCP'] ?? [];
  for (let i = 0; i < LEVELS.length; i++) {
    const a = o[i];
    const b = t[i];
    if (!a || !b) continue;
    log(
      `| ${a.sessions} | ${a.treeMb.toFixed(0)} MB | ${b.treeMb.toFixed(0)} MB | ${(a.treeMb / b.treeMb).toFixed(2)}× | ${a.nodeMb.toFixed(0)} MB | ${b.nodeMb.toFixed(0)} MB | ${a.rest!.nodeMb.toFixed(0)} / ${a.rest!.treeMb.toFixed(0)} MB | ${b.rest!.nodeMb.toFixed(0)} / ${b.rest!.treeMb.toFixed(0)} MB |`,
    );
  }
  /** Per added session, first to last level: what `pick` of the figures grew by. */
  const perSession = (fs: Figures[], pick: (f: Figures) => number) => {
    const first = fs[0];
    const last = fs[fs.length - 1];
    return first && last && last.sessions > first.sessions
      ? (pick(last) - pick(first)) / (last.sessions - first.sessions)
      : Number.NaN;
  };
  const line = (name: string, fs: Figures[]) =>
    `${name}: ${perSession(fs, (f) => f.treeMb).toFixed(0)} MB per added session (Node side ${perSession(fs, (f) => f.nodeMb).toFixed(0)} MB, renderers ${perSession(fs, (f) => sum(f.rendererMb)).toFixed(0)} MB, the rest browser processes); renderer median ${median(fs.flatMap((f) => f.rendererMb)).toFixed(0)} MB`;
  log('');
  log('marginal cost of a session (first to last level):');
  log(`  ${line('tabwright', o)}`);
  log(`  ${line('Playwright MCP', t)}`);
  log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
}

await main();
