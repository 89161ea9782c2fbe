/**
 * npm run bench:mcp — our MCP server (`tabwright mcp`, built) against
 * Playwright MCP (`@playwright/mcp`), both over stdio, driven by the same MCP
 * SDK client through the same scripted task, on the same Chromium binary,
 * pages served from 127.0.0.1 with outside requests blocked:
 *
 *   three TodoMVC apps: navigate, snapshot, add two todos, snapshot, complete
 *   one, verify the counter ("1 item left");
 *   ten pages of ../shared/corpus/pages: navigate, snapshot.
 *
 * Prints per tool call (median over rounds) and in total the response
 * characters and latency of both, the tools/list size, and the ratios.
 * Not a test: results go to docs/benchmarks.md. Run `npm run build` first.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CORPUS_ROOT, startFixtureServer } from '../test/helpers/fixture-server.js';
import { playwrightMcpTransport } from './lib/playwright-mcp.js';
import { machine, median } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APPS = ['react', 'vue', 'javascript-es6'];

/** Ten corpus pages: the first ten (by name) whose page is at least 20 KB, so they are real articles. */
function corpusPages(): string[] {
  const root = join(CORPUS_ROOT, 'pages');
  return readdirSync(root)
    .sort()
    .filter((d) => {
      const f = join(root, d, 'index.html');
      return existsSync(f) && statSync(f).size >= 20_000;
    })
    .slice(0, 10);
}

interface ToolResult {
  content?: { type: string; text?: string; data?: string }[];
  isError?: boolean;
}

interface CallRecord {
  step: string;
  chars: number;
  ms: number;
  error: boolean;
}

function textOf(r: ToolResult): string {
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}

function charsOf(r: ToolResult): number {
  return (r.content ?? []).reduce((n, c) => n + (c.text?.length ?? 0) + (c.data?.length ?? 0), 0);
}

/** The differences between the two servers: tool names, argument names, how refs look. */
interface Side {
  name: string;
  transport(dir: string, origin: string): StdioClientTransport;
  navigate(url: string): [string, Record<string, unknown>];
  snapshot(): [string, Record<string, unknown>];
  type(ref: string, text: string): [string, Record<string, unknown>];
  click(ref: string): [string, Record<string, unknown>];
  waitText(text: string): [string, Record<string, unknown>];
}

const refRe = /\[ref=([^\]]+)\]/;

function findRef(snapshot: string, pred: (line: string) => boolean): string | undefined {
  const line = snapshot.split('\n').find((l) => refRe.test(l) && pred(l));
  return line ? refRe.exec(line)?.[1] : undefined;
}

const ours: Side = {
  name: 'tabwright',
  transport: (_dir, origin) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [join(process.cwd(), 'bin', 'tabwright.js'), 'mcp', '--allow-origin', origin],
      env: { ...(process.env as Record<string, string>), TABWRIGHT_LOG: 'warn' },
      stderr: 'ignore',
    }),
  navigate: (url) => ['navigate', { url }],
  snapshot: () => ['snapshot', {}],
  type: (ref, text) => ['type', { ref, text, submit: true }],
  click: (ref) => ['click', { ref }],
  waitText: (text) => ['wait', { text_present: text }],
};

const theirs: Side = {
  name: 'Playwright MCP',
  transport: (dir, origin) => playwrightMcpTransport(dir, ['--allowed-origins', origin]),
  navigate: (url) => ['browser_navigate', { url }],
  snapshot: () => ['browser_snapshot', {}],
  type: (ref, text) => ['browser_type', { element: 'new todo', target: ref, text, submit: true }],
  click: (ref) => ['browser_click', { element: 'todo toggle', target: ref }],
  waitText: (text) => ['browser_wait_for', { text }],
};

interface RunResult {
  calls: CallRecord[];
  toolsListChars: number;
  misses: string[];
}

async function runSide(side: Side, base: string, pages: string[], dir: string): Promise<RunResult> {
  const client = new Client({ name: 'tabwright-bench', version: '0' });
  await client.connect(side.transport(dir, base));
  const calls: CallRecord[] = [];
  const misses: string[] = [];
  const call = async (step: string, [name, args]: [string, Record<string, unknown>]): Promise<string> => {
    const t0 = performance.now();
    const r = (await client.callTool({ name, arguments: args })) as ToolResult;
    const ms = performance.now() - t0;
    calls.push({ step, chars: charsOf(r), ms, error: Boolean(r.isError) });
    if (r.isError) misses.push(`${step}: ${textOf(r).slice(0, 200)}`);
    return textOf(r);
  };
  try {
    const { tools } = await client.listTools();
    const toolsListChars = JSON.stringify({ tools }).length;
    // Warm-up (browser launch): not measured.
    const [warmName, warmArgs] = side.navigate(`${base}/corpus/apps/todomvc-react/index.html`);
    await client.callTool({ name: warmName, arguments: warmArgs });
    calls.length = 0;
    for (const app of APPS) {
      await call('navigate (todomvc)', side.navigate(`${base}/corpus/apps/todomvc-${app}/index.html`));
      const snap = await call('snapshot (todomvc)', side.snapshot());
      const input = findRef(snap, (l) => l.includes('textbox') && !/toggle/i.test(l));
      if (!input) {
        misses.push(`${app}: no textbox ref`);
        continue;
      }
      await call('type + Enter', side.type(input, 'Buy milk'));
      await call('type + Enter', side.type(input, 'Walk dog'));
      const snap2 = await call('snapshot (todomvc, 2 todos)', side.snapshot());
      const lines = snap2.split('\n');
      const at = lines.findIndex((l) => l.includes('Buy milk'));
      // The item's checkbox: on the item's line or the nearest checkbox line around it.
      const near = [...lines.slice(Math.max(0, at - 3), at + 4)].join('\n');
      const toggle = findRef(near, (l) => /checkbox/.test(l) && !/toggle all/i.test(l));
      if (!toggle) {
        misses.push(`${app}: no checkbox ref for "Buy milk"`);
        continue;
      }
      await call('click (complete)', side.click(toggle));
      await call('wait for "1 item left"', side.waitText('1 item left'));
    }
    for (const p of pages) {
      await call('navigate (corpus)', side.navigate(`${base}/corpus/pages/${p}/index.html`));
      await call('snapshot (corpus)', side.snapshot());
    }
    return { calls, toolsListChars, misses };
  } finally {
    await client.close();
  }
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

async function main(): Promise<void> {
  const server = await startFixtureServer();
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-bench-mcp-'));
  const pages = corpusPages();
  const runs: Record<string, RunResult[]> = { [ours.name]: [], [theirs.name]: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order so neither side always runs on a warmer machine.
      const order = round % 2 === 0 ? [theirs, ours] : [ours, theirs];
      for (const side of order) runs[side.name]!.push(await runSide(side, server.url, pages, dir));
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const summarize = (rs: RunResult[]) => {
    const steps = new Map<string, { chars: number[]; ms: number[] }>();
    const perCallMs: number[] = [];
    const totals: number[] = [];
    const totalMs: number[] = [];
    for (const r of rs) {
      totals.push(r.calls.reduce((n, c) => n + c.chars, 0));
      totalMs.push(r.calls.reduce((n, c) => n + c.ms, 0));
      for (const c of r.calls) {
        perCallMs.push(c.ms);
        const s = steps.get(c.step) ?? { chars: [], ms: [] };
        s.chars.push(c.chars);
        s.ms.push(c.ms);
        steps.set(c.step, s);
      }
    }
    return {
      steps,
      perCallMs,
      totalChars: median(totals),
      totalMs: median(totalMs),
      calls: rs[0]?.calls.length ?? 0,
      toolsList: rs[0]?.toolsListChars ?? 0,
      misses: rs.flatMap((r) => r.misses),
    };
  };
  const o = summarize(runs[ours.name]!);
  const t = summarize(runs[theirs.name]!);

  console.log(`machine: ${machine()}`);
  console.log(`rounds: ${ROUNDS}; corpus pages: ${pages.join(', ')}`);
  console.log('');
  console.log(
    `${pad('step (median per call)', 30)} ${pad('ours chars', 11)} ${pad('theirs chars', 13)} ${pad('ratio', 7)} ${pad('ours ms', 9)} ${pad('theirs ms', 10)} ratio`,
  );
  for (const [step, so] of o.steps) {
    const st = t.steps.get(step);
    if (!st) continue;
    const oc = median(so.chars);
    const tc = median(st.chars);
    const om = median(so.ms);
    const tm = median(st.ms);
    console.log(
      `${pad(step, 30)} ${pad(String(Math.round(oc)), 11)} ${pad(String(Math.round(tc)), 13)} ${pad(`${(oc / tc).toFixed(2)}x`, 7)} ${pad(om.toFixed(0), 9)} ${pad(tm.toFixed(0), 10)} ${(om / tm).toFixed(2)}x`,
    );
  }
  console.log('');
  console.log(
    `total response chars (median run): ours ${o.totalChars}, theirs ${t.totalChars}, ratio ${(o.totalChars / t.totalChars).toFixed(2)}x (target <= 0.4x)`,
  );
  console.log(
    `median latency per call: ours ${median(o.perCallMs).toFixed(0)} ms, theirs ${median(t.perCallMs).toFixed(0)} ms, ratio ${(median(o.perCallMs) / median(t.perCallMs)).toFixed(2)}x (target <= 0.6x)`,
  );
  console.log(
    `total task time (median run): ours ${o.totalMs.toFixed(0)} ms, theirs ${t.totalMs.toFixed(0)} ms, ratio ${(o.totalMs / t.totalMs).toFixed(2)}x`,
  );
  console.log(
    `tools/list: ours ${o.toolsList} chars (~${Math.round(o.toolsList / 4)} tokens), theirs ${t.toolsList} chars (~${Math.round(t.toolsList / 4)} tokens)`,
  );
  console.log(`calls per run: ours ${o.calls}, theirs ${t.calls}`);
  console.log(`misses: ours ${o.misses.length}, theirs ${t.misses.length}`);
  for (const m of o.misses) console.log(`  ours: ${m}`);
  for (const m of t.misses) console.log(`  theirs: ${m}`);
}

await main();
