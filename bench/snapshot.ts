/**
 * Snapshot benchmark: every page of ../shared/corpus/pages, served from
 * 127.0.0.1 (requests leaving 127.0.0.1 are blocked), in one Chromium. For
 * each page, tabwright's snapshot (engine call → model + agent text) is timed
 * beside Playwright's page.ariaSnapshot({ mode: 'ai' }) on the same page.
 *
 * Prints per page and in total: size ratio, latency ratios (median, p95),
 * interactive recall, text recall, and a fidelity report versus Chromium's own
 * accessibility tree (CDP Accessibility.getFullAXTree) both ways: our actionable
 * elements as Chromium names them, and Chromium's interactive nodes (role + name)
 * that our snapshot misses or names differently, listed per page.
 *
 * Usage: npm run bench:snapshot [-- --iterations 5] [-- --filter name] [-- --json out.json]
 *        npm run bench:snapshot -- --browser firefox (Firefox beside Playwright on Chromium)
 *        npm run bench:snapshot -- --doors (through every door, = npm run bench:snapshot-doors)
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page as PwPage } from 'playwright-core';
import type { ChromiumPage } from '../src/backends/chromium/chromium-page.js';
import { createEngine } from '../src/index.js';
import { INTERACTIVE_ROLES } from '../src/snapshot/model.js';
import { registryOf } from '../src/snapshot/refs.js';
import { CORPUS_ROOT, startFixtureServer } from '../test/helpers/fixture-server.js';
import { median, percentile } from './lib/stats.js';

const INTERACTIVE = INTERACTIVE_ROLES;

const args = process.argv.slice(2);
const arg = (k: string, d?: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const iterations = Number(arg('--iterations', '5'));
const filter = arg('--filter');
const jsonOut = arg('--json');
const verbose = args.includes('--verbose');
/** Our options: defaults, but no character budget, so recall is measured on the whole page like Playwright's. */
const OURS = { max_chars: 10_000_000 };

// Whitespace-normalized; zero-width characters are dropped (as in our names).
const norm = (s: string) =>
  s
    .replace(/\u200b|\u200c|\u200d|\u2060|\ufeff/g, '')
    .replace(/\s+/g, ' ')
    .trim();
/** Chromium-internal roles whose ARIA mapping is a standard role. */
const CHROMIUM_ROLE: Record<string, string> = { DisclosureTriangle: 'button' };

const p95 = (xs: number[]) => percentile(xs, 95);

/** Playwright's ref-bearing nodes with an interactive role: role + name. */
function playwrightInteractive(yaml: string): { role: string; name: string; ref: string }[] {
  const out: { role: string; name: string; ref: string }[] = [];
  for (const raw of yaml.split('\n')) {
    let line = raw.trim();
    if (!line.startsWith('- ')) continue;
    line = line.slice(2);
    if (line.endsWith(':')) line = line.slice(0, -1);
    if (line.startsWith("'") && line.endsWith("'")) line = line.slice(1, -1).replace(/''/g, "'");
    else if (line.startsWith('"') && line.endsWith('"')) {
      try {
        line = JSON.parse(line);
      } catch {}
    }
    const m = /^([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(.*)$/.exec(line);
    if (!m) continue;
    const ref = /\[ref=([a-z0-9]+)\]/.exec(m[3] ?? '');
    if (!ref || !INTERACTIVE.has(m[1]!)) continue;
    let name = m[2] ?? '';
    try {
      name = JSON.parse(`"${name}"`);
    } catch {}
    out.push({ role: m[1]!, name: norm(name), ref: ref[1]! });
  }
  return out;
}

const WORD = /[\p{L}\p{N}]+/gu;
function words(s: string): Set<string> {
  return new Set((s.match(WORD) ?? []).map((w) => w.toLowerCase()));
}

interface PageRow {
  page: string;
  oursChars: number;
  theirsChars: number;
  oursMs: number[];
  theirsMs: number[];
  interactive: number;
  interactiveHit: number;
  misses: string[];
  textWords: number;
  textHit: number;
  textMisses: string[];
  textStrictHit: number;
  fidelityTotal: number;
  fidelityAgree: number;
  fidelityDiffs: string[];
  /** Chromium's interactive nodes (role + name), and how many of them our snapshot has. */
  chromiumTotal: number;
  chromiumHit: number;
  chromiumMisses: string[];
}

async function fidelity(
  pw: PwPage,
  page: import('../src/index.js').Page,
  elements: { element_ref: string; role: string; name: string; actionable: boolean }[],
) {
  const cdp = await pw.context().newCDPSession(pw);
  const checked = elements.filter((e) => e.actionable && INTERACTIVE.has(e.role));
  // Tag our elements so CDP can find them (after all measurements): every interactive one, so
  // Chromium's own interactive nodes can be looked up among ours too.
  for (const e of elements) {
    await page
      .evaluateRef(e.element_ref, '(el, ref) => el.setAttribute("data-tw-ref", ref)', e.element_ref)
      .catch(() => {});
  }
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: {
      nodeId: string;
      parentId?: string;
      backendDOMNodeId?: number;
      role?: { value: string };
      name?: { value: string };
      ignored?: boolean;
    }[];
  };
  const ax = new Map<number, { role: string; name: string }>();
  for (const n of nodes)
    if (n.backendDOMNodeId && !n.ignored)
      ax.set(n.backendDOMNodeId, {
        role: CHROMIUM_ROLE[n.role?.value ?? ''] ?? n.role?.value ?? '',
        name: norm(n.name?.value ?? ''),
      });
  const doc = (await cdp.send('DOM.getDocument', { depth: 0 })) as { root: { nodeId: number } };
  const { nodeIds } = (await cdp.send('DOM.querySelectorAll', {
    nodeId: doc.root.nodeId,
    selector: '[data-tw-ref]',
  })) as { nodeIds: number[] };
  const byRef = new Map<string, number>();
  for (const id of nodeIds) {
    const { node } = (await cdp.send('DOM.describeNode', { nodeId: id })) as {
      node: { backendNodeId: number; attributes?: string[] };
    };
    const attrs = node.attributes ?? [];
    const i = attrs.indexOf('data-tw-ref');
    if (i >= 0) byRef.set(attrs[i + 1]!, node.backendNodeId);
  }
  let total = 0;
  let agree = 0;
  const diffs: string[] = [];
  for (const e of checked) {
    const b = byRef.get(e.element_ref);
    const a = b !== undefined ? ax.get(b) : undefined;
    if (!a) continue; // not in Chromium's tree (e.g. inside a shadow root or ignored)
    total++;
    if (a.role === e.role && a.name === norm(e.name)) agree++;
    else diffs.push(`ours ${e.role} "${e.name}" vs chromium ${a.role} "${a.name}"`);
  }
  // The other way round: Chromium's interactive nodes (role + name) in our snapshot. Native select
  // options are left out (we list them inline under their select, Chromium as a popup's children).
  const ours = new Map(elements.map((e) => [e.element_ref, e]));
  const refOf = new Map([...byRef].map(([ref, b]) => [b, ref]));
  const ourPairs = new Set(elements.map((e) => `${e.role}\u0000${norm(e.name)}`));
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  let chromiumTotal = 0;
  let chromiumHit = 0;
  const chromiumMisses: string[] = [];
  for (const n of nodes) {
    if (n.ignored || !n.backendDOMNodeId) continue;
    const role = CHROMIUM_ROLE[n.role?.value ?? ''] ?? n.role?.value ?? '';
    if (!INTERACTIVE.has(role)) continue;
    if (role === 'option') {
      const parent = n.parentId ? byId.get(n.parentId) : undefined;
      if (parent?.role?.value === 'MenuListPopup') continue;
    }
    chromiumTotal++;
    const name = norm(n.name?.value ?? '');
    const ref = refOf.get(n.backendDOMNodeId);
    const e = ref ? ours.get(ref) : undefined;
    if (e ? e.role === role && norm(e.name) === name : ourPairs.has(`${role}\u0000${name}`)) {
      chromiumHit++;
      continue;
    }
    chromiumMisses.push(
      e
        ? `named differently: chromium ${role} "${name}", ours ${e.role} "${norm(e.name)}"`
        : `missing: ${role} "${name}"`,
    );
  }
  await cdp.detach().catch(() => {});
  return { total, agree, diffs, chromiumTotal, chromiumHit, chromiumMisses };
}

async function main() {
  const server = await startFixtureServer();
  const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-'));
  const engine = createEngine({ home });
  const session = await engine.startSession();
  const page = session.page();
  const pw = (page.backend as ChromiumPage).pw;
  await pw.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1' || u.protocol === 'data:' || u.protocol === 'blob:')
      return route.continue();
    return route.abort('blockedbyclient');
  });

  const dir = join(CORPUS_ROOT, 'pages');
  const names = readdirSync(dir)
    .filter((n) => existsSync(join(dir, n, 'index.html')))
    .filter((n) => !filter || n.includes(filter))
    .sort();
  const rows: PageRow[] = [];
  for (const name of names) {
    await page.open(`${server.url}/corpus/pages/${name}/index.html`, 'load', { timeoutMs: 30_000 });
    // Warm-up (installs our script; lets Playwright inject its own).
    await page.snapshot(OURS);
    await pw.ariaSnapshot({ mode: 'ai' });
    const oursMs: number[] = [];
    const theirsMs: number[] = [];
    let ours = await page.snapshot(OURS);
    let theirs = '';
    for (let i = 0; i < iterations; i++) {
      let t = performance.now();
      ours = await page.snapshot(OURS);
      oursMs.push(performance.now() - t);
      t = performance.now();
      theirs = await pw.ariaSnapshot({ mode: 'ai' });
      theirsMs.push(performance.now() - t);
    }
    const pwNodes = playwrightInteractive(theirs);
    const ourSet = new Set(ours.elements.map((e) => `${e.role}\u0000${norm(e.name)}`));
    const byRef = new Map(ours.elements.map((e) => [e.element_ref, e]));
    const mainFrame = page.backend.frames()[0]!.id;
    const misses: string[] = [];
    for (const n of pwNodes) {
      if (ourSet.has(`${n.role}\u0000${n.name}`)) continue;
      // Playwright's distiller drops a name that its children already show ("link" with an img "BBC"
      // child): such a nameless node counts when the same element is in our elements with the same role.
      if (n.name === '') {
        const ident = (await pw
          .locator(`aria-ref=${n.ref}`)
          .evaluate((el) => {
            const tw = (globalThis as unknown as Record<symbol, { doc: string; idOf(e: Element): number }>)[
              Symbol.for('tabwright.snapshot')
            ];
            return tw ? { doc: tw.doc, id: tw.idOf(el) } : null;
          })
          .catch(() => null)) as { doc: string; id: number } | null;
        if (ident) {
          const ref = registryOf(session).refFor(page.id, mainFrame, ident.doc, ident.id);
          if (byRef.get(ref)?.role === n.role) continue;
        }
      }
      misses.push(`${n.role} "${n.name}"`);
    }
    const inner = await pw.evaluate(() => document.body?.innerText ?? '');
    const innerWords = words(inner);
    const ourWords = words(ours.text);
    // innerText fuses words of adjacent inline boxes ("Skip to contentSkip to site index"); our text
    // keeps them apart, so a fused word (4+ chars) counts when it occurs in our text with separators removed.
    const compact = (ours.text.match(WORD) ?? []).join('').toLowerCase();
    const strictMisses = [...innerWords].filter((w) => !ourWords.has(w));
    const textMisses = strictMisses.filter((w) => w.length < 4 || !compact.includes(w));
    const fid = await fidelity(pw, page, ours.elements);
    const row: PageRow = {
      page: name,
      oursChars: ours.text.length,
      theirsChars: theirs.length,
      oursMs,
      theirsMs,
      interactive: pwNodes.length,
      interactiveHit: pwNodes.length - misses.length,
      misses,
      textWords: innerWords.size,
      textHit: innerWords.size - textMisses.length,
      textMisses,
      textStrictHit: innerWords.size - strictMisses.length,
      fidelityTotal: fid.total,
      fidelityAgree: fid.agree,
      fidelityDiffs: fid.diffs,
      chromiumTotal: fid.chromiumTotal,
      chromiumHit: fid.chromiumHit,
      chromiumMisses: fid.chromiumMisses,
    };
    rows.push(row);
    const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '100.0');
    console.log(
      `${name.padEnd(40)} size ${(row.oursChars / row.theirsChars).toFixed(2)} (${row.oursChars}/${row.theirsChars})  ` +
        `lat ${(median(oursMs) / median(theirsMs)).toFixed(2)} (${median(oursMs).toFixed(1)}/${median(theirsMs).toFixed(1)} ms)  ` +
        `irecall ${pct(row.interactiveHit, row.interactive)}%  trecall ${pct(row.textHit, row.textWords)}%  ` +
        `fidelity ${pct(row.fidelityAgree, row.fidelityTotal)}%  chromium-recall ${pct(row.chromiumHit, row.chromiumTotal)}%`,
    );
    for (const m of row.chromiumMisses) console.log(`   chromium ${m}`);
    if (verbose) {
      if (misses.length) console.log(`   interactive misses: ${misses.slice(0, 10).join('; ')}`);
      if (textMisses.length) console.log(`   text misses: ${textMisses.slice(0, 20).join(' ')}`);
      if (fid.diffs.length) console.log(`   fidelity: ${fid.diffs.slice(0, 10).join('; ')}`);
    }
  }
  const sum = (f: (r: PageRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const allOurs = rows.flatMap((r) => r.oursMs);
  const allTheirs = rows.flatMap((r) => r.theirsMs);
  const total = {
    pages: rows.length,
    size_ratio: sum((r) => r.oursChars) / sum((r) => r.theirsChars),
    ours_chars: sum((r) => r.oursChars),
    theirs_chars: sum((r) => r.theirsChars),
    median_ms: {
      ours: median(allOurs),
      theirs: median(allTheirs),
      ratio: median(allOurs) / median(allTheirs),
    },
    p95_ms: { ours: p95(allOurs), theirs: p95(allTheirs), ratio: p95(allOurs) / p95(allTheirs) },
    interactive_recall: sum((r) => r.interactiveHit) / sum((r) => r.interactive),
    interactive_total: sum((r) => r.interactive),
    text_recall: sum((r) => r.textHit) / sum((r) => r.textWords),
    text_words: sum((r) => r.textWords),
    text_recall_strict: sum((r) => r.textStrictHit) / sum((r) => r.textWords),
    fidelity: sum((r) => r.fidelityAgree) / sum((r) => r.fidelityTotal),
    fidelity_total: sum((r) => r.fidelityTotal),
    chromium_recall: sum((r) => r.chromiumHit) / sum((r) => r.chromiumTotal),
    chromium_total: sum((r) => r.chromiumTotal),
  };
  console.log('\nTOTAL', JSON.stringify(total, null, 2));
  const allMisses = rows.flatMap((r) => r.misses.map((m) => `${r.page}: ${m}`));
  const allFid = rows.flatMap((r) => r.fidelityDiffs.map((m) => `${r.page}: ${m}`));
  console.log(`\ninteractive misses (${allMisses.length}):\n  ${allMisses.slice(0, 60).join('\n  ')}`);
  console.log(`\nfidelity disagreements (${allFid.length}):\n  ${allFid.slice(0, 60).join('\n  ')}`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ total, rows }, null, 2));
  await engine.close();
  await server.close();
  rmSync(home, { recursive: true, force: true });
}

// --browser firefox: tabwright's snapshot on Firefox against Playwright's on Chromium (snapshot-firefox.ts).
// --doors: the snapshot through every door's real transport against Playwright (snapshot-doors.ts).
if (arg('--browser', 'chromium') === 'firefox') await import('./snapshot-firefox.js');
else if (args.includes('--doors')) await import('./snapshot-doors.js');
else await main();
