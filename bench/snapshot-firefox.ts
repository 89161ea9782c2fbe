/**
 * Snapshot benchmark on Firefox (`npm run bench:snapshot -- --browser firefox`): every page of
 * ../shared/corpus/pages served from 127.0.0.1, requests leaving it blocked (an origin policy in both
 * browsers). Per page: tabwright's snapshot on Firefox (WebDriver BiDi) timed beside Playwright's
 * page.ariaSnapshot({ mode: 'ai' }) on Chromium, sizes, and how many interactive nodes (role, name,
 * state) of the Firefox snapshot equal tabwright's Chromium snapshot of the same page.
 *
 * Usage: npm run bench:snapshot -- --browser firefox [--iterations 5] [--filter name] [--json out.json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChromiumPage } from '../src/backends/chromium/chromium-page.js';
import { createEngine } from '../src/index.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { compareKeys, equivalencePages, interactiveKeys } from '../test/helpers/snapshot-equivalence.js';
import { median } from './lib/stats.js';

const args = process.argv.slice(2);
const arg = (k: string, d?: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const iterations = Number(arg('--iterations', '5'));
const filter = arg('--filter');
const jsonOut = arg('--json');
const OURS = { max_chars: 10_000_000 };

const server = await startFixtureServer();
const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-ff-'));
const chromium = createEngine({ home, browser: 'chromium' });
const firefox = createEngine({ home, browser: 'firefox' });
const policy = { allowed_origins: [server.url], subresources: 'block' as const };
const [cs, fs] = await Promise.all([
  chromium.startSession({ policy }, { timeoutMs: 60_000 }),
  firefox.startSession({ policy }, { timeoutMs: 60_000 }),
]);
const cPage = cs.page();
const fPage = fs.page();
const pw = (cPage.backend as ChromiumPage).pw;

const rows: {
  page: string;
  firefoxChars: number;
  playwrightChars: number;
  firefoxMs: number;
  playwrightMs: number;
  matched: number;
  total: number;
}[] = [];
for (const path of equivalencePages().filter(
  (p) => p.startsWith('/corpus/') && (!filter || p.includes(filter)),
)) {
  const url = `${server.url}${path}`;
  await Promise.all([
    cPage.open(url, 'load', { timeoutMs: 30_000 }),
    fPage.open(url, 'load', { timeoutMs: 30_000 }),
  ]);
  // Warm-up: installs our script in both; lets Playwright inject its own.
  const chromiumSnap = await cPage.snapshot(OURS, { timeoutMs: 30_000 });
  let ffSnap = await fPage.snapshot(OURS, { timeoutMs: 30_000 });
  let theirs = await pw.ariaSnapshot({ mode: 'ai' });
  const ffMs: number[] = [];
  const pwMs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    let t = performance.now();
    ffSnap = await fPage.snapshot(OURS, { timeoutMs: 30_000 });
    ffMs.push(performance.now() - t);
    t = performance.now();
    theirs = await pw.ariaSnapshot({ mode: 'ai' });
    pwMs.push(performance.now() - t);
  }
  const cmp = compareKeys(interactiveKeys(chromiumSnap.model), interactiveKeys(ffSnap.model));
  const row = {
    page: path.split('/')[3]!,
    firefoxChars: ffSnap.text.length,
    playwrightChars: theirs.length,
    firefoxMs: median(ffMs),
    playwrightMs: median(pwMs),
    matched: cmp.matched,
    total: cmp.total,
  };
  rows.push(row);
  console.log(
    `${row.page.padEnd(40)} size ${(row.firefoxChars / row.playwrightChars).toFixed(2)} (${row.firefoxChars}/${row.playwrightChars})  ` +
      `lat ${(row.firefoxMs / row.playwrightMs).toFixed(2)} (${row.firefoxMs.toFixed(1)}/${row.playwrightMs.toFixed(1)} ms)  ` +
      `equal ${cmp.matched}/${cmp.total}`,
  );
  if (cmp.onlyA.length || cmp.onlyB.length)
    console.log(
      `   Chromium only: ${cmp.onlyA.slice(0, 5).join(' | ')}\n   Firefox only: ${cmp.onlyB.slice(0, 5).join(' | ')}`,
    );
}
const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
const total = {
  pages: rows.length,
  size_ratio: sum((r) => r.firefoxChars) / sum((r) => r.playwrightChars),
  firefox_chars: sum((r) => r.firefoxChars),
  playwright_chars: sum((r) => r.playwrightChars),
  median_ms: {
    firefox: median(rows.map((r) => r.firefoxMs)),
    playwright_chromium: median(rows.map((r) => r.playwrightMs)),
  },
  interactive_equal: sum((r) => r.matched) / sum((r) => r.total),
  interactive_nodes: sum((r) => r.total),
};
console.log('\nTOTAL', JSON.stringify(total, null, 2));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ total, rows }, null, 2));
await Promise.all([chromium.close(), firefox.close()]);
await server.close();
rmSync(home, { recursive: true, force: true });
