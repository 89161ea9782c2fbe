import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags for tabwright's own processes, set as the first thing a process does (the bin, the
 * `tabwright js` daemon's entry): a door command lives for hours with one engine and a few pages,
 * where memory counts more than the last percent of JavaScript speed.
 *
 * `--optimize-for-size`: V8 then keeps the young generation at 2 × 4 MB instead of letting it grow
 * to 2 × 16 MB while playwright-core loads, and grows the old generation in smaller steps; with
 * one page open the Node side's PSS fell by 20-30 MB (docs/benchmarks.md, memory). It is read by
 * the heap at each collection, so setting it at run time works: measured, not assumed (Node does
 * not accept it in NODE_OPTIONS, and a shebang would not apply to `node bin/tabwright.js`).
 *
 * `TABWRIGHT_V8_FLAGS` replaces the default (space-separated V8 flags; empty: none), e.g. to
 * compare with and without in a benchmark.
 */
export const DEFAULT_V8_FLAGS = '--optimize-for-size';

export function applyV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  const flags = (env.TABWRIGHT_V8_FLAGS ?? DEFAULT_V8_FLAGS).split(/\s+/).filter(Boolean);
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}

applyV8Flags();
