import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ProviderClient } from '../../../src/conformance/client.js';
import type { EngineCounts, ProcessMemory } from '../../../src/engine/engine-stats.js';
import { CORPUS_ROOT, type FixtureServer, startFixtureServer } from '../../../test/helpers/fixture-server.js';
import { spawnProvider } from '../../../test/helpers/provider.js';
import { spawnServe } from '../../../test/helpers/serve.js';
import { cliArgv, type Launch } from '../memory-doors.js';
import { playwrightMcpTransport } from '../playwright-mcp.js';
import { percentile } from '../stats.js';
import {
  httpSession,
  mcpSession,
  OUR_MCP,
  ourMcpTransport,
  PLAYWRIGHT_MCP,
  providerSession,
  type SoakSession,
} from './doors.js';
import {
  CpuMeter,
  type CpuWindow,
  type NodeMappings,
  nodeMappings,
  profileDirs,
  pssByKind,
  pssKb,
  treeMemory,
  treePids,
} from './tree.js';

export type DoorName = 'http' | 'mcp' | 'provider';
export const DOOR_NAMES: readonly DoorName[] = ['http', 'mcp', 'provider'];

export interface SoakOptions {
  /** Sessions are dealt to these doors in turn (http and mcp share one `tabwright serve`). */
  doors: DoorName[];
  sessions: number;
  durationMs: number;
  /** How often figures are taken and printed (the bench: every minute). */
  sampleMs: number;
  /** Growth is measured from the first sample at or after this (default: one sample). */
  warmupMs?: number;
  /** Also run Playwright MCP, one process per session, for the same time, after ours. */
  anchor?: boolean;
  /**
   * How the doors are started (default `bin`: bin/tabwright.js as a program, as users start
   * `tabwright serve`, with the launcher's environment; `node`: `node bin/tabwright.js`, without it).
   */
  launch?: Launch;
  /**
   * The model's turn between two steps, ms (default 0: steps back to back, the machine's limit).
   * Each pause is drawn between half and one and a half of it, so sessions do not move in step.
   */
  thinkMs?: number;
  log?: (line: string) => void;
}

export interface Call {
  at: number;
  door: string;
  op: string;
  ms: number;
  error?: string;
}

export interface Sample {
  atMs: number;
  nodeMb: number;
  treeMb: number;
  processes: number;
  counts?: EngineCounts;
  /** Per door and operation in this window: calls, errors, p50, p95 (ms). */
  ops: Record<string, Record<string, { n: number; errors: number; p50: number; p95: number }>>;
  /** p95 of every call in this window. */
  p95: number;
  /** CPU seconds per kind of process in this window, and the whole machine's. */
  cpu?: CpuWindow;
  /** PSS per kind of process (serve, provider, browser, renderer, gpu-process, utility…), MiB. */
  pssByKind?: Record<string, number>;
  /** Each failed call of this window: door, operation, seconds into the run, the error. */
  errors: string[];
  /** Per Node process (serve, provider): its own memory figures and its mappings by kind. */
  node?: NodeProcessMemory[];
}

export interface NodeProcessMemory {
  name: string;
  pssMb: number;
  /** process.memoryUsage() and V8's spaces, from the process's stats file. */
  memory?: ProcessMemory;
  mappings?: NodeMappings;
}

export interface PhaseResult {
  name: string;
  samples: Sample[];
  idleTreeMb: number;
  afterCloseTreeMb: number;
  afterCloseCounts?: EngineCounts;
  errors: number;
  /** Errors that are a deadline passing (the machine too slow for it), a subset of `errors`. */
  timeouts: number;
  errorExamples: string[];
  calls: number;
  /** Tree PSS at the end against just after warm-up (means of two samples each): 0.05 = 5 % more. */
  growth: number;
  /** p95 of the last window / p95 of the second window. */
  p95Ratio: number;
  /** What was left after close: processes, profile directories, sessions. Empty is the goal. */
  leftovers: string[];
}

/** The TodoMVC apps of the soak's step mix (../shared/corpus/apps/todomvc-<name>). */
export const APPS = ['react', 'vue', 'javascript-es6'];

/** Corpus pages (those with an index.html), in name order. */
export function corpusPages(): string[] {
  const root = join(CORPUS_ROOT, 'pages');
  return readdirSync(root)
    .sort()
    .filter((d) => existsSync(join(root, d, 'index.html')));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One agent's realistic loop until `stopAt`: TodoMVC open/snapshot/type/wait/click, screenshot, network read, a corpus page, back. */
export async function agentLoop(
  s: SoakSession,
  door: string,
  index: number,
  stopAt: number,
  base: string,
  pages: string[],
  calls: Call[],
  thinkMs = 0,
): Promise<void> {
  let steps = 0;
  const step = async <T>(op: string, fn: () => Promise<T>, url?: string): Promise<T | undefined> => {
    // An agent reads each reply and decides before it sends the next call; the pause is not timed.
    if (thinkMs > 0 && steps++ > 0) await sleep(thinkMs * (0.5 + pseudoRandom(index, steps)));
    if (Date.now() >= stopAt) throw new Stop();
    const t0 = performance.now();
    try {
      const v = await fn();
      calls.push({ at: Date.now(), door, op, ms: performance.now() - t0 });
      return v;
    } catch (err) {
      // An open's error names its URL: a timeout on one heavy page is another story than on every page.
      const msg = `${err instanceof Error ? err.message : String(err)}${url ? ` (opening ${url})` : ''}`;
      calls.push({ at: Date.now(), door, op, ms: performance.now() - t0, error: msg });
      return undefined;
    }
  };
  try {
    for (let iter = 0; ; iter++) {
      const app = APPS[(index + iter) % APPS.length]!;
      const text = `soak ${index}-${iter}`;
      const appUrl = `${base}/corpus/apps/todomvc-${app}/index.html`;
      await step('open', () => s.open(appUrl), appUrl);
      let snap = (await step('snapshot', () => s.snapshot())) ?? '';
      await step('type', () => s.type('new_todo', text, snap));
      await step('wait', () => s.waitText(text));
      snap = (await step('snapshot', () => s.snapshot())) ?? '';
      await step('click', () => s.click('toggle', snap));
      snap = (await step('snapshot', () => s.snapshot())) ?? '';
      await step('click', () => s.click('clear_completed', snap));
      await step('screenshot', () => s.screenshot());
      await step('network', () => s.network());
      const page = pages[(index * 7 + iter) % pages.length]!;
      const pageUrl = `${base}/corpus/pages/${page}/index.html`;
      await step('open', () => s.open(pageUrl), pageUrl);
      await step('snapshot', () => s.snapshot());
      await step('back', () => s.back());
    }
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
  }
}

class Stop extends Error {}

/** A number in [0, 1) from a session and a step count: every run pauses the same way. */
function pseudoRandom(session: number, step: number): number {
  const x = Math.sin(session * 12.9898 + step * 78.233) * 43758.5453;
  return x - Math.floor(x);
}

function windowStats(calls: Call[]): Pick<Sample, 'ops' | 'p95'> {
  const ops: Sample['ops'] = {};
  const groups = new Map<string, Call[]>();
  for (const c of calls) {
    const k = `${c.door}\u0000${c.op}`;
    const g = groups.get(k) ?? [];
    g.push(c);
    groups.set(k, g);
  }
  for (const [k, g] of groups) {
    const [door, op] = k.split('\u0000') as [string, string];
    const ms = g.filter((c) => !c.error).map((c) => c.ms);
    ops[door] ??= {};
    ops[door][op] = {
      n: g.length,
      errors: g.filter((c) => c.error).length,
      p50: percentile(ms, 50),
      p95: percentile(ms, 95),
    };
  }
  return {
    ops,
    p95: percentile(
      calls.filter((c) => !c.error).map((c) => c.ms),
      95,
    ),
  };
}

/** What a phase drives: its processes, its sessions, its engine counts. */
interface Target {
  name: string;
  roots(): number[];
  /** The roots with a name for the CPU figures (serve, provider, pw-mcp). */
  namedRoots(): { pid: number; name: string }[];
  counts(): Promise<EngineCounts | undefined>;
  /** Each engine process's own memory figures (its stats file), by root name. */
  memory(): Map<string, ProcessMemory>;
  open(index: number): Promise<{ door: string; session: SoakSession }>;
  /** Stops the processes; resolves when they exited. */
  stop(): Promise<void>;
}

function readCounts(file: string): EngineCounts | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as EngineCounts;
  } catch {
    return undefined;
  }
}

/** The engine processes' Node options: --expose-gc, and TABWRIGHT_SOAK_NODE_OPTIONS (e.g. `--require ./bench/lib/soak/cpu-profile.cjs`). */
const NODE_OPTIONS = ['--expose-gc', process.env.TABWRIGHT_SOAK_NODE_OPTIONS].filter(Boolean).join(' ');

/** The engine processes' log level (stderr; TABWRIGHT_SOAK_STDERR=file keeps serve's). */
const LOG_LEVEL = process.env.TABWRIGHT_SOAK_LOG ?? 'error';

async function oursTarget(
  doors: DoorName[],
  home: string,
  fx: FixtureServer,
  launch: Launch,
): Promise<Target> {
  const roots: (() => number | undefined)[] = [];
  const rootNames: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  const countFiles: string[] = [];
  let serveUrl: string | undefined;
  let provider: ProviderClient | undefined;
  if (doors.includes('http') || doors.includes('mcp')) {
    const statsFile = join(home, 'serve-counts.json');
    const s = await spawnServe(
      home,
      ['--allow-origin', fx.url, '--min-free-mb', '0'],
      {
        TABWRIGHT_LOG: LOG_LEVEL,
        TABWRIGHT_STATS_FILE: statsFile,
        NODE_OPTIONS: NODE_OPTIONS,
      },
      cliArgv(launch),
    );
    serveUrl = s.url;
    if (process.env.TABWRIGHT_SOAK_STDERR) {
      const out = createWriteStream(process.env.TABWRIGHT_SOAK_STDERR, { flags: 'a' });
      s.child.stderr?.on('data', (d: Buffer) => out.write(d));
    }
    roots.push(() => s.child.pid);
    rootNames.push('serve');
    stops.push(() => s.close());
    countFiles.push(statsFile);
  }
  if (doors.includes('provider')) {
    const statsFile = join(home, 'provider-counts.json');
    const p = spawnProvider(
      home,
      [],
      {
        TABWRIGHT_STATS_FILE: statsFile,
        NODE_OPTIONS: NODE_OPTIONS,
        TABWRIGHT_LOG: LOG_LEVEL,
        TABWRIGHT_MIN_FREE_MB: '0',
      },
      cliArgv(launch),
    );
    provider = p;
    roots.push(() => p.pid);
    rootNames.push('provider');
    stops.push(async () => void (await p.close()));
    countFiles.push(statsFile);
  }
  return {
    name: `tabwright (${doors.join('+')})`,
    roots: () => roots.map((r) => r()).filter((p): p is number => p !== undefined),
    namedRoots: () =>
      roots.flatMap((r, i) => {
        const pid = r();
        return pid === undefined ? [] : [{ pid, name: rootNames[i]! }];
      }),
    async counts() {
      const all = countFiles.map(readCounts).filter((c): c is EngineCounts => c !== undefined);
      return all.length ? sumCounts(all) : undefined;
    },
    memory() {
      const out = new Map<string, ProcessMemory>();
      countFiles.forEach((f, i) => {
        const m = (readCounts(f) as { memory?: ProcessMemory } | undefined)?.memory;
        if (m) out.set(rootNames[i]!, m);
      });
      return out;
    },
    async open(index) {
      const door = doors[index % doors.length]!;
      if (door === 'http') return { door, session: await httpSession(serveUrl!) };
      if (door === 'mcp') return { door, session: await mcpSession(ourMcpTransport(serveUrl!), OUR_MCP) };
      return { door, session: await providerSession(provider!, fx.url, `soak-${index}-${Date.now()}`) };
    },
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}

function sumCounts(all: EngineCounts[]): EngineCounts {
  const out = structuredClone(all[0]!) as EngineCounts & Record<string, unknown>;
  delete (out as Record<string, unknown>).at;
  delete (out as Record<string, unknown>).pid;
  delete (out as Record<string, unknown>).memory;
  for (const c of all.slice(1)) {
    for (const [k, v] of Object.entries(c)) {
      const sum = out as Record<string, unknown>;
      if (typeof v !== 'number' || typeof sum[k] !== 'number') continue;
      // Event-loop delays are per process: the worst one counts.
      sum[k] = k.startsWith('loop_delay') ? Math.max(sum[k] as number, v) : (sum[k] as number) + v;
    }
    for (const [k, v] of Object.entries(c.node_resources))
      out.node_resources[k] = (out.node_resources[k] ?? 0) + v;
  }
  return out;
}

function anchorTarget(dir: string, fx: FixtureServer): Target {
  const transports: StdioClientTransport[] = [];
  return {
    name: 'Playwright MCP',
    roots: () => transports.map((t) => t.pid).filter((p): p is number => typeof p === 'number'),
    namedRoots: () =>
      transports
        .map((t) => t.pid)
        .filter((p): p is number => typeof p === 'number')
        .map((pid) => ({ pid, name: 'pw-mcp' })),
    counts: async () => undefined,
    memory: () => new Map(),
    async open() {
      const t = playwrightMcpTransport(dir, ['--allowed-origins', fx.url]);
      transports.push(t);
      return { door: 'pw-mcp', session: await mcpSession(t, PLAYWRIGHT_MCP) };
    },
    async stop() {
      await Promise.all(transports.map((t) => t.close().catch(() => {})));
    },
  };
}

/** Figures that matter in one line: the engine's counts without zeros. */
function countsLine(c: EngineCounts | undefined): string {
  if (!c) return 'engine counts: n/a';
  const { node_resources: nr, ...rest } = c;
  const main = Object.entries(rest)
    .filter(([k]) => k !== 'at' && k !== 'pid' && k !== 'heap_used_mb' && k !== 'memory')
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const res = Object.entries(nr)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const heap = (c as { heap_used_mb?: number }).heap_used_mb;
  return `engine: ${main} | node: ${heap === undefined ? '' : `heap_used=${heap}MB `}${res}`;
}

async function runPhase(
  target: Target,
  o: SoakOptions,
  fx: FixtureServer,
  log: (l: string) => void,
): Promise<PhaseResult> {
  const pages = corpusPages();
  const leftovers: string[] = [];
  // Idle: the process(es) with their browser launched by a first session, which is closed again.
  // A browser launch on a starved machine can miss its deadline: the warm-up tries three times.
  const warmUp = async (i: number, url?: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const w = await target.open(i);
        if (url) await w.session.open(url);
        await w.session.close();
        return;
      } catch (err) {
        if (attempt === 3) throw err;
        log(`[${target.name}] warm-up ${i}: ${String(err).slice(0, 200)}; again`);
      }
    }
  };
  await warmUp(0, `${fx.url}/corpus/apps/todomvc-react/index.html`);
  if (target.name.startsWith('tabwright')) for (let i = 1; i < o.doors.length; i++) await warmUp(i);
  await sleep(2000);
  const idle = treeMemory(target.roots());
  const idleTypes = processTypes(target.roots());
  // Processes the shared browser starts on its own timer, whatever the sessions do (Chromium 156's
  // on-device model service, 3 min after launch): the browser's, not a session's; named, not failed.
  const idleServices = browserServices(target.roots());
  log(
    `[${target.name}] idle: tree ${idle.treeMb.toFixed(0)} MB (node ${idle.nodeMb.toFixed(0)} MB, ${idle.processes} processes); ${countsLine(await target.counts())}`,
  );
  for (const n of nodeMemory(target)) log(`    node MB idle ${nodeMemoryLine(n)}`);

  const calls: Call[] = [];
  const sessions: SoakSession[] = [];
  const t0 = Date.now();
  const stopAt = t0 + o.durationMs;
  const profiles = new Set<string>();
  const loops = Array.from({ length: o.sessions }, async (_, i) => {
    // Spread the starts a little so 32 sessions do not all launch at the same instant.
    await sleep(i * 100);
    let opened: { door: string; session: SoakSession };
    try {
      opened = await target.open(i);
    } catch (err) {
      calls.push({
        at: Date.now(),
        door: o.doors[i % o.doors.length]!,
        op: 'session',
        ms: 0,
        error: String(err),
      });
      return;
    }
    sessions.push(opened.session);
    await agentLoop(opened.session, opened.door, i, stopAt, fx.url, pages, calls, o.thinkMs);
  });
  const samples: Sample[] = [];
  const cpu = new CpuMeter();
  cpu.window(target.namedRoots());
  let from = 0;
  const sampler = (async () => {
    for (let k = 1; ; k++) {
      const next = t0 + k * o.sampleMs;
      if (next > stopAt + 500) break;
      await sleep(Math.max(0, next - Date.now()));
      for (const d of profileDirs(target.roots())) profiles.add(d);
      const mem = treeMemory(target.roots());
      const window = calls.slice(from);
      from = calls.length;
      const s: Sample = {
        atMs: Date.now() - t0,
        nodeMb: mem.nodeMb,
        treeMb: mem.treeMb,
        processes: mem.processes,
        counts: await target.counts(),
        cpu: cpu.window(target.namedRoots()),
        pssByKind: pssByKind(target.namedRoots()),
        node: nodeMemory(target),
        ...windowStats(window),
        errors: window
          .filter((c) => c.error)
          .map((c) => `${c.door} ${c.op} t=${((c.at - t0) / 1000).toFixed(0)}s: ${c.error!.slice(0, 3000)}`),
      };
      samples.push(s);
      printSample(target.name, s, log);
    }
  })();
  await Promise.all(loops);
  await sampler;

  for (const s of sessions)
    await s.close().catch((err) => leftovers.push(`session close failed: ${String(err)}`));
  const sessionProcesses = () =>
    treeMemory(target.roots()).processes - (browserServices(target.roots()) - idleServices);
  // Closed contexts' renderers take a few seconds to exit on a busy machine: up to 20 s.
  let after = treeMemory(target.roots());
  for (let waited = 0; waited < 20_000 && sessionProcesses() > idle.processes; waited += 1000) {
    await sleep(1000);
    after = treeMemory(target.roots());
  }
  await sleep(2000);
  after = treeMemory(target.roots());
  const afterCounts = await target.counts();
  log(
    `[${target.name}] after closing every session: tree ${after.treeMb.toFixed(0)} MB (idle ${idle.treeMb.toFixed(0)} MB), node ${after.nodeMb.toFixed(0)} MB (idle ${idle.nodeMb.toFixed(0)} MB), ${after.processes} processes (idle ${idle.processes}); ${countsLine(afterCounts)}`,
  );
  for (const n of nodeMemory(target)) log(`    node MB after close ${nodeMemoryLine(n)}`);
  // Back to idle: Chromium and V8 keep some freed memory for reuse, so "idle" allows a quarter of
  // what the sessions took at their peak, and at least 64 MB.
  const peak = Math.max(idle.treeMb, ...samples.map((x) => x.treeMb));
  const allowed = idle.treeMb + Math.max(64, 0.25 * (peak - idle.treeMb));
  if (after.treeMb > allowed)
    leftovers.push(
      `tree ${after.treeMb.toFixed(0)} MB after close: more than idle ${idle.treeMb.toFixed(0)} MB + a quarter of the peak's ${(peak - idle.treeMb).toFixed(0)} MB`,
    );
  const started = browserServices(target.roots()) - idleServices;
  if (started > 0)
    log(
      `[${target.name}] the browser started ${started} service process(es) of its own since idle (${BROWSER_SERVICES.join(', ')}): not counted as left by a session`,
    );
  if (after.processes - Math.max(0, started) > idle.processes)
    leftovers.push(
      `${after.processes - Math.max(0, started) - idle.processes} more processes than idle (${processTypes(target.roots()).join(', ')}; idle: ${idleTypes.join(', ')})`,
    );
  if (afterCounts) {
    for (const k of ['sessions', 'pages', 'contexts', 'queued_operations', 'guarded_calls'] as const)
      if (afterCounts[k] !== 0) leftovers.push(`engine ${k}=${afterCounts[k]} after close`);
  }
  const pids = treePids(target.roots());
  await target.stop();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && pids.some((p) => existsSync(`/proc/${p}`))) await sleep(200);
  const alive = pids.filter((p) => existsSync(`/proc/${p}`));
  if (alive.length) leftovers.push(`processes still running after stop: ${alive.join(', ')}`);
  for (const d of profiles) if (existsSync(d)) leftovers.push(`profile directory left: ${d}`);

  const errored = calls.filter((c) => c.error);
  const warmupMs = o.warmupMs ?? o.sampleMs;
  // Growth: the mean of the last two samples against the mean of the first two after warm-up (a
  // single sample moves with whichever renderers happen to be alive).
  const steady = samples.filter((x) => x.atMs >= warmupMs);
  const mean = (xs: Sample[]) => xs.reduce((n, x) => n + x.treeMb, 0) / xs.length;
  const baseMb = steady.length >= 4 ? mean(steady.slice(0, 2)) : (steady[0] ?? samples[0])?.treeMb;
  const lastMb = steady.length >= 4 ? mean(steady.slice(-2)) : samples[samples.length - 1]?.treeMb;
  const last = samples[samples.length - 1];
  const second = samples[1] ?? samples[0];
  return {
    name: target.name,
    samples,
    idleTreeMb: idle.treeMb,
    afterCloseTreeMb: after.treeMb,
    afterCloseCounts: afterCounts,
    errors: errored.length,
    timeouts: errored.filter((c) =>
      /did not finish within|not all of .* held within|ACTION_TIMEOUT|timed? ?out/i.test(c.error ?? ''),
    ).length,
    errorExamples: [...new Set(errored.map((c) => `${c.door} ${c.op}: ${c.error}`))].slice(0, 10),
    calls: calls.length,
    growth: baseMb !== undefined && lastMb !== undefined ? (lastMb - baseMb) / baseMb : Number.NaN,
    p95Ratio: second && last ? last.p95 / second.p95 : Number.NaN,
    leftovers,
  };
}

/** Utility processes a Chromium starts on its own timer (not for a page or a session). */
const BROWSER_SERVICES = ['on_device_model.mojom.OnDeviceModelService'];

function browserServices(roots: number[]): number {
  let n = 0;
  for (const pid of treePids(roots)) {
    try {
      const sub = /--utility-sub-type=([\w.]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
      if (sub && BROWSER_SERVICES.includes(sub)) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/** Each process of the trees by its Chromium --type (browser, renderer, gpu-process, utility…), counted. */
function processTypes(roots: number[]): string[] {
  const n = new Map<string, number>();
  for (const pid of treePids(roots)) {
    let type = 'node';
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? (/chrom/i.test(cmd) ? 'browser' : 'node');
      const sub = /--utility-sub-type=([\w.]+)/.exec(cmd)?.[1];
      if (sub) type += ` ${sub}`;
    } catch {
      type = 'gone';
    }
    n.set(type, (n.get(type) ?? 0) + 1);
  }
  return [...n].map(([t, c]) => `${c} ${t}`);
}

/** Each Node root's PSS, its own memory figures and its mappings. */
function nodeMemory(target: Target): NodeProcessMemory[] {
  const own = target.memory();
  return target.namedRoots().map(({ pid, name }) => ({
    name,
    pssMb: pssKb(pid) / 1024,
    memory: own.get(name),
    mappings: nodeMappings(pid),
  }));
}

/** One line per Node process: where its PSS is (MiB). */
export function nodeMemoryLine(n: NodeProcessMemory): string {
  const f = (x: number) => x.toFixed(0);
  const m = n.memory;
  const own = m
    ? `rss ${f(m.rss)}, heap ${f(m.heap_used)}/${f(m.heap_total)} (old ${m.spaces.old?.map(f).join('/')}, lo ${m.spaces.lo?.map(f).join('/')}, code ${m.spaces.code?.map(f).join('/')}, new ${m.spaces.new?.map(f).join('/')}), external ${f(m.external)} (array buffers ${f(m.array_buffers)})`
    : 'no stats';
  const map = n.mappings;
  const maps = map
    ? `; smaps: anon ${f(map.anon)}, brk ${f(map.brk)}, arenas ${f(map.arenas)} (${map.arenaCount}), file ${f(map.file)}`
    : '';
  return `${n.name}: pss ${f(n.pssMb)}; ${own}${maps}`;
}

function printSample(name: string, s: Sample, log: (l: string) => void): void {
  log(
    `[${name}] t=${(s.atMs / 1000).toFixed(0)}s tree PSS ${s.treeMb.toFixed(0)} MB (node ${s.nodeMb.toFixed(0)} MB, ${s.processes} processes); ${countsLine(s.counts)}`,
  );
  for (const [door, ops] of Object.entries(s.ops)) {
    const errs = Object.values(ops).reduce((n, x) => n + x.errors, 0);
    const parts = Object.entries(ops).map(
      ([op, x]) => `${op} ${x.p50.toFixed(0)}/${x.p95.toFixed(0)}${x.errors ? ` (${x.errors} err)` : ''}`,
    );
    log(`    ${door}: errors ${errs}; p50/p95 ms: ${parts.join(', ')}`);
  }
  if (s.pssByKind) {
    const parts = Object.entries(s.pssByKind)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(0)}`);
    log(`    pss MB: ${parts.join(', ')}`);
  }
  if (s.cpu) {
    const parts = Object.entries(s.cpu.seconds)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(1)}`);
    log(
      `    cpu s: ${parts.join(', ')}; machine busy ${s.cpu.machineBusy.toFixed(0)} of ${s.cpu.machineCapacity.toFixed(0)}`,
    );
  }
  for (const n of s.node ?? []) log(`    node MB ${nodeMemoryLine(n)}`);
  // Each error of the window in full: the door's words and, for a missing target, the page's state.
  for (const e of s.errors) log(`    ! ${e}`);
}

export function summarize(r: PhaseResult, log: (l: string) => void): void {
  log(`== ${r.name}`);
  const timeouts = r.errorExamples.length ? r.timeouts : 0;
  log(`calls ${r.calls}, errors ${r.errors} (of which deadline timeouts: ${timeouts})`);
  for (const e of r.errorExamples) log(`  error: ${e}`);
  log(`PSS growth after warm-up: ${(r.growth * 100).toFixed(1)} % (target < 10 %)`);
  log(`p95 last window / second window: ${r.p95Ratio.toFixed(2)} (target <= 1.20)`);
  log(`tree after close ${r.afterCloseTreeMb.toFixed(0)} MB vs idle ${r.idleTreeMb.toFixed(0)} MB`);
  log(r.leftovers.length ? `LEFT AFTER CLOSE: ${r.leftovers.join('; ')}` : 'nothing left after close');
}

/** Runs the soak: ours through the given doors, then (anchor) Playwright MCP with as many processes. */
export async function runSoak(o: SoakOptions): Promise<PhaseResult[]> {
  const log = o.log ?? ((l: string) => console.log(l));
  log(
    `launch: ${(o.launch ?? 'bin') === 'bin' ? 'bin/tabwright.js as a program (as users start it)' : 'node bin/tabwright.js (no launcher environment)'}`,
  );
  const fx = await startFixtureServer();
  const home = mkdtempSync(join(tmpdir(), 'tabwright-soak-'));
  const results: PhaseResult[] = [];
  try {
    const ours = await oursTarget(o.doors, home, fx, o.launch ?? 'bin');
    try {
      results.push(await runPhase(ours, o, fx, log));
    } finally {
      await ours.stop().catch(() => {});
    }
    if (o.anchor) {
      const anchor = anchorTarget(home, fx);
      try {
        results.push(await runPhase(anchor, { ...o, doors: ['mcp'] }, fx, log));
      } finally {
        await anchor.stop().catch(() => {});
      }
    }
  } finally {
    await fx.close();
    const left = existsSync(home) ? statSync(home) : undefined;
    if (left) rmSync(home, { recursive: true, force: true });
  }
  return results;
}
