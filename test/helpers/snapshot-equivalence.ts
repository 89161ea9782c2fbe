import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '../../src/index.js';
import type { SnapshotNode } from '../../src/snapshot/index.js';
import { CORPUS_ROOT, FIXTURE_ROOT } from './fixture-server.js';

/**
 * What "the same snapshot" means across browsers: the interactive nodes (those with a ref) by role,
 * accessible name (whitespace-normalized) and state (checked, expanded, disabled, …).
 */
export function interactiveKeys(model: SnapshotNode): string[] {
  const out: string[] = [];
  const visit = (n: SnapshotNode) => {
    if (n.element_ref) {
      const states = n.states ? JSON.stringify(Object.entries(n.states).sort()) : '';
      out.push(`${n.role} ␟ ${n.name.replace(/\s+/g, ' ').trim()} ␟ ${states}`);
    }
    for (const c of n.children) visit(c);
  };
  visit(model);
  return out;
}

/** Matched nodes of two multisets and the larger size (the denominator: a node missing on either side counts). */
export function compareKeys(
  a: string[],
  b: string[],
): { matched: number; total: number; onlyA: string[]; onlyB: string[] } {
  const count = new Map<string, number>();
  for (const k of a) count.set(k, (count.get(k) ?? 0) + 1);
  let matched = 0;
  const onlyB: string[] = [];
  for (const k of b) {
    const n = count.get(k) ?? 0;
    if (n > 0) {
      matched++;
      count.set(k, n - 1);
    } else onlyB.push(k);
  }
  const onlyA = [...count].flatMap(([k, n]) => Array(n).fill(k) as string[]);
  return { matched, total: Math.max(a.length, b.length), onlyA, onlyB };
}

/**
 * The pages compared: the snapshot and action fixtures, then the corpus pages (paths under the
 * fixture server); `every` = n keeps every n-th corpus page (the test's sample; the benchmark takes all).
 */
export function equivalencePages(every = 1): string[] {
  const fixtures = ['snapshot', 'actions'].flatMap((dir) =>
    existsSync(join(FIXTURE_ROOT, dir))
      ? readdirSync(join(FIXTURE_ROOT, dir))
          .filter((f) => f.endsWith('.html') && !/frame-(inner|leaf)/.test(f))
          .sort()
          .map((f) => `/fixtures/${dir}/${f}`)
      : [],
  );
  const corpus = join(CORPUS_ROOT, 'pages');
  const pages = readdirSync(corpus)
    .filter((n) => existsSync(join(corpus, n, 'index.html')))
    .sort()
    .filter((_, i) => i % every === 0)
    .map((n) => `/corpus/pages/${n}/index.html`);
  return [...fixtures, ...pages];
}

/** Opens `path` and returns its interactive keys (no character budget: the whole page). */
export async function keysOf(page: Page, url: string): Promise<string[]> {
  await page.open(url, 'load', { timeoutMs: 30_000 });
  const snap = await page.snapshot({ max_chars: 10_000_000 }, { timeoutMs: 30_000 });
  return interactiveKeys(snap.model);
}
