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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createEngine, type Page } from '../src/index.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { playwrightMcpTransport } from './lib/playwright-mcp.js';
import { fmt, machine, median, percentile } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WARMUP = 2;

type Scenario = 'click_changes_dom' | 'click_no_change' | 'type_20_chars' | 'select_option';
const SCENARIOS: Scenario[] = ['click_changes_dom', 'click_no_change', 'type_20_chars', 'select_option'];
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

async function benchOurs(base: string, home: string): Promise<Record<Scenario, number[]>> {
  const engine = createEngine({ home });
  const out = {} as Record<Scenario, number[]>;
  try {
    const page = (await engine.startSession()).page();
    await page.open(`${base}/corpus/apps/todomvc-react/index.html`);
    const input = await refOf(page, 'textbox');
    await page.act({ element_ref: input }, { action: 'type', text: 'Benchmark todo', submit: true });
    const toggle = await refOf(page, 'checkbox', (n) => !n.includes('Toggle All'));
    const all = await refOf(page, 'link', (n) => n === 'All');
    out.click_changes_dom = await rounds(() => page.act({ element_ref: toggle }, { action: 'click' }));
    out.click_no_change = await rounds(() => page.act({ element_ref: all }, { action: 'click' }));
    out.type_20_chars = await rounds(
      async () => {
        await page.act({ element_ref: input }, { action: 'type', text: TEXT20 });
      },
      async () => {
        await page.evaluate(
          'bench.reset',
          () => {
            const el = document.querySelector('.new-todo') as HTMLInputElement;
            el.value = '';
          },
          null,
        );
      },
    );
    await page.open(`${base}/fixtures/actions/form.html`);
    const select = await refOf(page, 'combobox', (n) => n === 'Color');
    let i = 0;
    out.select_option = await rounds(() =>
      page.act({ element_ref: select }, { action: 'select', labels: [i++ % 2 ? 'Red' : 'Green'] }),
    );
  } finally {
    await engine.close();
  }
  return out;
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

async function benchPlaywrightMcp(base: string, dir: string): Promise<Record<Scenario, number[]>> {
  const transport = playwrightMcpTransport(dir);
  const client = new Client({ name: 'tabwright-bench', version: '0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as ToolResult;
    if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
    return textOf(r);
  };
  const out = {} as Record<Scenario, number[]>;
  try {
    // Action replies write their snapshot to a file in this version; browser_snapshot returns it inline.
    await call('browser_navigate', { url: `${base}/corpus/apps/todomvc-react/index.html` });
    let snap = await call('browser_snapshot', {});
    const input = mcpRef(snap, (l) => l.includes('textbox'));
    await call('browser_type', { element: 'new todo', target: input, text: 'Benchmark todo', submit: true });
    snap = await call('browser_snapshot', {});
    const toggle = mcpRef(snap, (l) => /checkbox \[ref=/.test(l) && !l.includes('Toggle All'));
    const all = mcpRef(snap, (l) => l.includes('link "All"'));
    out.click_changes_dom = await rounds(() =>
      call('browser_click', { element: 'todo toggle', target: toggle }),
    );
    out.click_no_change = await rounds(() => call('browser_click', { element: 'All filter', target: all }));
    out.type_20_chars = await rounds(
      () => call('browser_type', { element: 'new todo', target: input, text: TEXT20 }),
      () =>
        call('browser_evaluate', { function: "() => { document.querySelector('.new-todo').value = ''; }" }),
    );
    await call('browser_navigate', { url: `${base}/fixtures/actions/form.html` });
    snap = await call('browser_snapshot', {});
    const select = mcpRef(snap, (l) => l.includes('combobox "Color"'));
    let i = 0;
    out.select_option = await rounds(() =>
      call('browser_select_option', {
        element: 'Color',
        target: select,
        values: [i++ % 2 ? 'Red' : 'Green'],
      }),
    );
  } finally {
    await client.close();
  }
  return out;
}

async function rounds(fn: () => Promise<unknown>, between?: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    if (between) await between();
    const t = await timed(fn);
    if (i >= WARMUP) times.push(t);
  }
  return times;
}

async function main(): Promise<void> {
  const server = await startFixtureServer();
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-bench-'));
  try {
    // Alternate the order so neither side always runs on a warmer machine.
    const theirs = await benchPlaywrightMcp(server.url, dir);
    const ours = await benchOurs(server.url, dir);
    console.log(`machine: ${machine()}`);
    console.log(`rounds: ${ROUNDS} per scenario (after ${WARMUP} warm-up)`);
    console.log(
      'scenario              ours median / p95        Playwright MCP median / p95   ratio (median)',
    );
    for (const s of SCENARIOS) {
      const o = ours[s];
      const t = theirs[s];
      console.log(
        `${s.padEnd(21)} ${`${fmt(median(o))} / ${fmt(percentile(o, 95))}`.padEnd(24)} ${`${fmt(median(t))} / ${fmt(percentile(t, 95))}`.padEnd(29)} ${(median(o) / median(t)).toFixed(2)}x`,
      );
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
