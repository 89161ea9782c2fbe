import type { Page } from '../engine/page.js';
import type { SnapshotNode } from './model.js';
import { nodeLine, quote, type RenderOptions } from './render.js';

/**
 * Snapshot diffs: against the previous snapshot of the same page and scope,
 * nodes keyed by ref are added, removed or changed. A node's signature is its
 * own line plus its direct text, so text edits show as a change of the
 * element that holds the text.
 */
export interface DiffEntry {
  ref: string;
  line: string;
  /** Ref of the nearest ancestor with a ref (where the node sits). */
  parent?: string;
  /** For changes: the previous line. */
  was?: string;
}

export interface SnapshotDiff {
  /** True when there was nothing to diff against (first snapshot, navigation, new scope): text is the full snapshot. */
  full: boolean;
  reason?: 'no_previous' | 'navigation';
  added: DiffEntry[];
  removed: DiffEntry[];
  changed: DiffEntry[];
  text: string;
}

interface Entry {
  sig: string;
  parent?: string;
  node: SnapshotNode;
}

interface Baseline {
  docs: string;
  model: SnapshotNode;
  /** The model's index, kept once a diff computed it (the next diff needs it as its previous side), and its options. */
  entries?: Map<string, Entry>;
  entriesFor?: string;
}

const baselines = new WeakMap<Page, Map<string, Baseline>>();

/**
 * Baselines kept per page (one per scope and option set, the most recently used): each holds a
 * whole model, so a caller that snapshots many scopes must not make a page hold them all.
 */
export const MAX_BASELINES = 8;

/** Baselines a page holds now (at most MAX_BASELINES). */
export function baselineCount(page: Page): number {
  return baselines.get(page)?.size ?? 0;
}

/** Drops a page's baselines (the next snapshot of each scope is a full one). */
export function forgetBaselines(page: Page): void {
  baselines.delete(page);
}

function signature(n: SnapshotNode, o: RenderOptions): string {
  // The node's own line without its text (no copy of the node per signature).
  let s = nodeLine(n, o, true, false, false);
  const texts: string[] = [];
  if (n.text) texts.push(n.text);
  for (const c of n.children) if (c.role === 'text' && c.text) texts.push(c.text);
  if (texts.length) s += `: ${texts.join(' ')}`;
  return s;
}

function index(root: SnapshotNode, o: RenderOptions): Map<string, Entry> {
  const m = new Map<string, Entry>();
  const visit = (n: SnapshotNode, parent: string | undefined) => {
    let p = parent;
    if (n.element_ref) {
      m.set(n.element_ref, { sig: signature(n, o), parent, node: n });
      p = n.element_ref;
    }
    for (const c of n.children) visit(c, p);
  };
  visit(root, undefined);
  return m;
}

/** Records `root` as the new baseline for (page, scope) and returns the diff against the old one. */
export function diffAndRemember(
  page: Page,
  scopeKey: string,
  docs: string,
  root: SnapshotNode,
  o: RenderOptions,
  wantDiff: boolean,
): SnapshotDiff | { full: true; reason: 'no_previous' | 'navigation' } {
  let perPage = baselines.get(page);
  if (!perPage) {
    perPage = new Map();
    baselines.set(page, perPage);
  }
  const prevBase = perPage.get(scopeKey);
  // Re-inserted, so the Map's order is least recently used first.
  perPage.delete(scopeKey);
  const base: Baseline = { docs, model: root };
  perPage.set(scopeKey, base);
  if (perPage.size > MAX_BASELINES) perPage.delete(perPage.keys().next().value as string);
  if (!prevBase) return { full: true, reason: 'no_previous' };
  if (prevBase.docs.split(',')[0] !== docs.split(',')[0]) return { full: true, reason: 'navigation' };
  if (!wantDiff) return { full: true, reason: 'no_previous' };
  // Indexed only when a diff is asked for: snapshots without diff pay nothing.
  const entries = index(root, o);
  const optionsKey = `${!!o.includeUrls},${!!o.includeBoxes},${!!o.interactiveOnly},${o.maxDepth}`;
  base.entries = entries;
  base.entriesFor = optionsKey;
  const prev = {
    entries:
      prevBase.entries && prevBase.entriesFor === optionsKey ? prevBase.entries : index(prevBase.model, o),
  };

  const added: DiffEntry[] = [];
  const removed: DiffEntry[] = [];
  const changed: DiffEntry[] = [];
  const lines: string[] = [];
  for (const [ref, e] of entries) {
    const old = prev.entries.get(ref);
    if (!old) {
      added.push({ ref, line: e.sig, parent: e.parent });
      // Only the top-most added node is printed with its subtree.
      if (!e.parent || prev.entries.has(e.parent)) {
        lines.push(`+ ${e.sig}${e.parent ? ` (in ${e.parent})` : ''}`);
        const sub = (n: SnapshotNode, depth: number) => {
          for (const c of n.children) {
            lines.push(`${'  '.repeat(depth)}+ ${c.role === 'text' ? quote(c.text ?? '') : signature(c, o)}`);
            if (c.role !== 'text') sub(c, depth + 1);
          }
        };
        sub(e.node, 1);
      }
    } else if (old.sig !== e.sig) {
      changed.push({ ref, line: e.sig, was: old.sig, parent: e.parent });
      lines.push(`~ ${e.sig}`);
      lines.push(`  (was: ${old.sig})`);
    } else if (old.parent !== e.parent) {
      changed.push({ ref, line: e.sig, was: old.sig, parent: e.parent });
      lines.push(`~ ${e.sig} (moved to ${e.parent ?? 'top'})`);
    }
  }
  for (const [ref, e] of prev.entries) {
    if (entries.has(ref)) continue;
    removed.push({ ref, line: e.sig, parent: e.parent });
    if (!e.parent || entries.has(e.parent)) {
      lines.push(`- ${e.sig}`);
      const sub = (n: SnapshotNode, depth: number) => {
        for (const c of n.children) {
          if (c.role === 'text') continue;
          if (c.element_ref) lines.push(`${'  '.repeat(depth)}- ${signature(c, o)}`);
          sub(c, depth + 1);
        }
      };
      sub(e.node, 1);
    }
  }
  const text = lines.length ? lines.join('\n') : '(no changes)';
  return { full: false, added, removed, changed, text };
}
