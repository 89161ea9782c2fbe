/**
 * node bench/heap-diff.mjs BEFORE.heapsnapshot AFTER.heapsnapshot [--top 30] [--paths 6]
 *
 * What grew between two V8 heap snapshots of one process: nodes and self size by constructor (or
 * node type), the largest growth first; then, for the top kinds, a few retainer paths of objects
 * that are in the second snapshot only (by node id), skipping weak edges, so the path says what
 * keeps them alive.
 */

import { readSnapshot } from './lib/heap-snapshot.mjs';

const [beforeFile, afterFile] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const opt = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const top = opt('top', 30);
const paths = opt('paths', 6);

function byKind(s) {
  const m = new Map();
  for (let i = 0; i < s.count; i++) {
    const k = s.kind(i);
    const g = m.get(k) ?? { n: 0, size: 0 };
    g.n++;
    g.size += s.selfSize(i);
    m.set(k, g);
  }
  return m;
}

const a = readSnapshot(beforeFile);
const b = readSnapshot(afterFile);
const ka = byKind(a);
const kb = byKind(b);
let total = 0;
const rows = [];
for (const [k, g] of kb) {
  const o = ka.get(k) ?? { n: 0, size: 0 };
  rows.push({ k, dn: g.n - o.n, ds: g.size - o.size, n: g.n, size: g.size });
  total += g.size;
}
let totalA = 0;
for (const g of ka.values()) totalA += g.size;
rows.sort((x, y) => y.ds - x.ds);
console.log(`self size: ${(totalA / 2 ** 20).toFixed(1)} MB -> ${(total / 2 ** 20).toFixed(1)} MB`);
console.log('Δ KB      Δ nodes   now nodes  kind');
for (const r of rows.slice(0, top))
  console.log(
    `${(r.ds / 1024).toFixed(0).padStart(8)}  ${String(r.dn).padStart(8)}  ${String(r.n).padStart(9)}  ${r.k}`,
  );

// Retainer paths for new objects of the top object kinds.
const oldIds = new Set();
for (let i = 0; i < a.count; i++) oldIds.add(a.id(i));
const skip = new Set(['weak', 'shortcut']);
function pathOf(s, i, depth = 12) {
  const out = [];
  const seen = new Set([i]);
  let cur = i;
  for (let d = 0; d < depth; d++) {
    const rs = s
      .retainersOf(cur)
      .filter((r) => !skip.has(r.edgeType) && !seen.has(r.from) && s.type(r.from) !== 'synthetic');
    // Prefer retainers that are objects (not system/hidden caches), to get a readable path.
    const r = rs.find((x) => s.type(x.from) === 'object' || s.type(x.from) === 'closure') ?? rs[0];
    if (!r) break;
    out.push(`${r.name} <- ${s.kind(r.from)}`);
    seen.add(r.from);
    cur = r.from;
  }
  return out.join(' | ');
}
for (const r of rows.filter((x) => x.k.startsWith('object:') || x.k.startsWith('closure:')).slice(0, paths)) {
  console.log(`\n== ${r.k} (+${r.dn} nodes, +${(r.ds / 1024).toFixed(0)} KB)`);
  let shown = 0;
  const seenPath = new Map();
  for (let i = 0; i < b.count && shown < 400; i++) {
    if (b.kind(i) !== r.k || oldIds.has(b.id(i))) continue;
    shown++;
    const p = pathOf(b, i);
    seenPath.set(p, (seenPath.get(p) ?? 0) + 1);
  }
  for (const [p, n] of [...seenPath].sort((x, y) => y[1] - x[1]).slice(0, 4)) console.log(`  ${n}× ${p}`);
}
