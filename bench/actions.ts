/**
 * npm run bench:actions — a ref action with its receipt (tabwright engine)
 * against Playwright MCP's browser_click / browser_type /
 * browser_select_option (the @playwright/mcp package over stdio, driven by
 * the MCP SDK client, on the same Chromium binary), in the same run.
 *
 * Scenarios: a click that changes the DOM (toggle a TodoMVC todo), a click
 * that changes nothing (the "All" filter while it is already selected),
 * typing 20 characters into the new-todo box, selecting an option (a
 * fixture <select>, since TodoMVC has none). Prints medians, p95 and the
 * ratio ours/theirs per scenario. Not a test: numbers go to docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createEngine, type Page } from '../src/index.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { playwrightMcpTransport } from './lib/playwright-mcp.js';
import { fmt, machine, median, percentile } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WARMUP = 2;

type Scenario = 'click_changes_dom' | 'click_no_change' | 'type_20_chars' | 'select_option';
const ALL: Scenario[] = ['click_changes_dom', 'click_no_change', 'type_20_chars', 'select_option'];
/** `npm run bench:actions -- type_20_chars select_option` runs only those (BENCH_ROUNDS=40 for more rounds). */
const picked = process.argv.slice(2).filter((a): a is Scenario => (ALL as string[]).includes(a));
const SCENARIOS: Scenario[] = picked.length > 0 ? ALL.filter((s) => picked.includes(s)) : ALL;
const TEXT20 = 'abcdefghij0123456789';

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

// ---- tabwright ------------------------------------------------------------

async function refOf(page: Page, role: string, name?: (n: string) => boolean): Promise<string> {
  const snap = await page.snapshot();
  const el = snap.elements.find((e) => e.role === role && (!name || name(e.name)));
  if (!el) throw new Error(`no ${role} in snapshot:\n${snap.text}`);
  return el.element_ref;
}

/** One side of the comparison: per scenario, a set-up step (open the page, find refs), the step, a reset. */
interface Side {
  setup(s: Scenario): Promise<void>;
  step(s: Scenario, round: number): Promise<unknown>;
  reset(s: Scenario): Promise<unknown>;
  close(): Promise<void>;
}

async function ours(base: string, home: string): Promise<Side> {
  const engine = createEngine({ home });
  const page = (await engine.startSession()).page();
  const refs: Record<string, string> = {};
  return {
    async setup(s) {
      if (s === 'select_option') {
        await page.open(`${base}/fixtures/actions/form.html`);
        refs.select = await refOf(page, 'combobox', (n) => n === 'Color');
      } else if (!refs.input) {
        await page.open(`${base}/corpus/apps/todomvc-react/index.html`);
        refs.input = await refOf(page, 'textbox');
        await page.act({ element_ref: refs.input }, { action: 'type', text: 'Benchmark todo', submit: true });
        refs.toggle = await refOf(page, 'checkbox', (n) => !n.includes('Toggle All'));
        refs.all = await refOf(page, 'link', (n) => n === 'All');
      }
    },
    step(s, round) {
      if (s === 'click_changes_dom') return page.act({ element_ref: refs.toggle! }, { action: 'click' });
      if (s === 'click_no_change') return page.act({ element_ref: refs.all! }, { action: 'click' });
      if (s === 'type_20_chars')
        return page.act({ element_ref: refs.input! }, { action: 'type', text: TEXT20 });
      return page.act(
        { element_ref: refs.select! },
        { action: 'select', labels: [round % 2 ? 'Red' : 'Green'] },
      );
    },
    async reset(s) {
      if (s !== 'type_20_chars') return;
      await page.evaluate(
        'bench.reset',
        () => {
          (document.querySelector('.new-todo') as HTMLInputElement).value = '';
        },
        null,
      );
    },
    close: () => engine.close(),
  };
}

// ---- Playwright MCP -----------------------------------------------------------

interface ToolResult {
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

function textOf(r: ToolResult): string {
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}

function mcpRef(snapshot: string, pred: (line: string) => boolean): string {
  const line = snapshot.split('\n').find(pred);
  const m = line && /\[ref=([^\]]+)\]/.exec(line);
  if (!m) throw new Error(`no ref in Playwright MCP snapshot:\n${snapshot.slice(0, 3000)}`);
  return m[1]!;
}

async function playwrightMcp(base: string, dir: string): Promise<Side> {
  const client = new Client({ name: 'tabwright-bench', version: '0' });
  await client.connect(playwrightMcpTransport(dir));
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as ToolResult;
    if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
    return textOf(r);
  };
  const refs: Record<string, string> = {};
  return {
    async setup(s) {
      // Action replies write their snapshot to a file in this version; browser_snapshot returns it inline.
      if (s === 'select_option') {
        await call('browser_navigate', { url: `${base}/fixtures/actions/form.html` });
        refs.select = mcpRef(await call('browser_snapshot', {}), (l) => l.includes('combobox "Color"'));
      } else if (!refs.input) {
        await call('browser_navigate', { url: `${base}/corpus/apps/todomvc-react/index.html` });
        refs.input = mcpRef(await call('browser_snapshot', {}), (l) => l.includes('textbox'));
        await call('browser_type', {
          element: 'new todo',
          target: refs.input,
          text: 'Benchmark todo',
          submit: true,
        });
        const snap = await call('browser_snapshot', {});
        refs.toggle = mcpRef(snap, (l) => /checkbox \[ref=/.test(l) && !l.includes('Toggle All'));
        refs.all = mcpRef(snap, (l) => l.includes('link "All"'));
      }
    },
    step(s, round) {
      if (s === 'click_changes_dom')
        return call('browser_click', { element: 'todo toggle', target: refs.toggle });
      if (s === 'click_no_change') return call('browser_click', { element: 'All filter', target: refs.all });
      if (s === 'type_20_chars')
        return call('browser_type', { element: 'new todo', target: refs.input, text: TEXT20 });
      return call('browser_select_option', {
        element: 'Color',
        target: refs.select,
        values: [round % 2 ? 'Red' : 'Green'],
      });
    },
    async reset(s) {
      if (s !== 'type_20_chars') return;
      await call('browser_evaluate', {
        function: "() => { document.querySelector('.new-todo').value = ''; }",
      });
    },
    close: () => client.close(),
  };
}

/**
 * Both sides on the same scenario at the same time: warm-up rounds, then rounds that alternate
 * which side goes first, so neither always runs on a warmer (or busier) machine.
 */
async function rounds(a: Side, b: Side, s: Scenario): Promise<[number[], number[]]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const order: [Side, 0 | 1][] =
      i % 2
        ? [
            [b, 1],
            [a, 0],
          ]
        : [
            [a, 0],
            [b, 1],
          ];
    for (const [side, k] of order) {
      await side.reset(s);
      const t = await timed(() => side.step(s, i));
      if (i >= WARMUP) times[k].push(t);
    }
  }
  return times;
}

async function main(): Promise<void> {
  const server = await startFixtureServer();
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-bench-'));
  const sides: Side[] = [];
  try {
    const theirs = await playwrightMcp(server.url, dir);
    sides.push(theirs);
    const mine = await ours(server.url, dir);
    sides.push(mine);
    const results = {} as Record<Scenario, [number[], number[]]>;
    for (const s of SCENARIOS) {
      await mine.setup(s);
      await theirs.setup(s);
      results[s] = await rounds(mine, theirs, s);
    }
    console.log(`machine: ${machine()}`);
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    console.log(`rounds: ${ROUNDS} per scenario (after ${WARMUP} warm-up), alternating sides`);
    console.log(
      'scenario              ours median / p95        Playwright MCP median / p95   ratio (median)',
    );
    for (const s of SCENARIOS) {
      const [o, t] = results[s];
      console.log(
        `${s.padEnd(21)} ${`${fmt(median(o))} / ${fmt(percentile(o, 95))}`.padEnd(24)} ${`${fmt(median(t))} / ${fmt(percentile(t, 95))}`.padEnd(29)} ${(median(o) / median(t)).toFixed(2)}x`,
      );
    }
  } finally {
    for (const side of sides.reverse()) await side.close().catch(() => {});
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
