import { createHash, randomUUID } from 'node:crypto';
import { readElements } from '../../engine/element-reads.js';
import type { Page as EnginePage } from '../../engine/page.js';
import { INTERACTIVE_ROLES, type SnapshotNode } from '../../snapshot/index.js';

/**
 * page.observe(): a bounded list of candidates with opaque one-time handles
 * (random UUIDs), the operations each allows, its context and a revision (a
 * hash of the observed state: stable while nothing changes). Handles are not
 * snapshot refs; one act() consumes the whole observation.
 */
export type Operation = 'click' | 'type' | 'press' | 'select' | 'scroll_into_view';

export interface Candidate {
  id: string;
  role: string;
  label: string;
  operations: Operation[];
  value?: string;
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  options?: string[];
  context?: string;
}

export interface Observation {
  observationId: string;
  revision: string;
  url: string;
  title: string;
  truncated: boolean;
  candidates: Candidate[];
}

export interface Projection {
  revision: string;
  url: string;
  title: string;
  truncated: boolean;
  items: { engineRef: string; candidate: Omit<Candidate, 'id'> }[];
}

export const OBSERVE_DEFAULT = 64;
export const OBSERVE_MAX = 128;

const CLICK_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'treeitem',
  'generic',
]);
const TEXT_ROLES = new Set(['textbox', 'searchbox', 'spinbutton']);

function operationsFor(n: SnapshotNode): Operation[] | null {
  if (n.tag === 'select' && n.role === 'combobox') return ['select'];
  if (TEXT_ROLES.has(n.role) || (n.role === 'combobox' && (n.tag === 'input' || n.tag === 'textarea')))
    return ['type', 'press', 'click'];
  if (CLICK_ROLES.has(n.role) || n.clickable) return ['click'];
  return null;
}

/** Reads the page once (interactive model, main frame) and projects candidates; no handles yet. */
export async function project(
  page: EnginePage,
  generation: number,
  maxElements: number,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<Projection> {
  const snap = await page.snapshot(
    { interactive_only: true, include_frames: false, max_chars: 10_000_000 },
    opts,
  );
  const items: Projection['items'] = [];
  let truncated = false;
  const textual: { engineRef: string; index: number }[] = [];
  const visit = (n: SnapshotNode, context: string | undefined) => {
    let ctx = context;
    if (n.element_ref && n.interactive && n.actionable && !n.frame && !n.states?.disabled) {
      const ops = operationsFor(n);
      if (ops && n.value !== '[redacted]') {
        if (items.length >= maxElements) truncated = true;
        else {
          const c: Omit<Candidate, 'id'> = { role: n.role, label: n.name.slice(0, 256), operations: ops };
          if (n.value !== undefined && n.tag !== 'select') c.value = n.value.slice(0, 4096);
          if (n.states?.checked !== undefined) c.checked = n.states.checked;
          if (n.states?.selected !== undefined) c.selected = n.states.selected;
          if (n.states?.expanded !== undefined) c.expanded = n.states.expanded;
          if (n.tag === 'select') {
            c.options = n.children
              .filter((k) => k.role === 'option')
              .slice(0, 64)
              .map((k) => k.name.slice(0, 256));
            if (n.value !== undefined) c.value = n.value;
          }
          if (ctx) c.context = ctx;
          if (ops.includes('type')) textual.push({ engineRef: n.element_ref, index: items.length });
          items.push({ engineRef: n.element_ref, candidate: c });
        }
      }
    }
    if (n.name && n.role !== 'document' && n.role !== 'text' && !INTERACTIVE_ROLES.has(n.role))
      ctx = `${n.role}: ${n.name.slice(0, 120)}`;
    for (const k of n.children) visit(k, ctx);
  };
  visit(snap.model, undefined);
  // Sensitive text fields are left out (the guard excludes them from observation).
  // One read per frame for all of them; one that cannot be read (null) is left out too.
  const drop = new Set<number>();
  const reasons = await readElements(
    page,
    textual.map((t) => t.engineRef),
    'sensitive',
    null,
    opts,
  ).catch(() => textual.map(() => null));
  for (const [i, t] of textual.entries()) if (reasons[i] !== '') drop.add(t.index);
  const kept = items.filter((_, i) => !drop.has(i));
  const revision = createHash('sha256')
    .update(JSON.stringify([generation, snap.url, kept.map((k) => [k.engineRef, k.candidate])]))
    .digest('hex')
    .slice(0, 24);
  return { revision, url: snap.url, title: snap.title, truncated, items: kept };
}

export interface IssuedObservation {
  observationId: string;
  revision: string;
  handles: Map<string, { engineRef: string; candidate: Candidate }>;
  consumed: boolean;
}

/** Gives every candidate a fresh one-time handle. */
export function issue(p: Projection): { observation: Observation; issued: IssuedObservation } {
  const handles = new Map<string, { engineRef: string; candidate: Candidate }>();
  const candidates = p.items.map((it) => {
    const c: Candidate = { id: randomUUID(), ...it.candidate };
    handles.set(c.id, { engineRef: it.engineRef, candidate: c });
    return c;
  });
  const observationId = randomUUID();
  return {
    observation: {
      observationId,
      revision: p.revision,
      url: p.url,
      title: p.title,
      truncated: p.truncated,
      candidates,
    },
    issued: { observationId, revision: p.revision, handles, consumed: false },
  };
}
