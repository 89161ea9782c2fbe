import type { BackendFrame } from '../../backends/backend.js';
import { INTERACTIVE_ROLES } from '../../snapshot/index.js';
import type { SnapshotNode } from '../../snapshot/model.js';
import { registryOf, targetOf } from '../../snapshot/refs.js';
import { takeSnapshot } from '../../snapshot/snapshot.js';
import type { Deadline } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import { frameById, mainFrame } from '../frames.js';
import type { Page } from '../page.js';
import { parseInput } from '../schemas.js';
import { frameCall, type PinnedElement } from './element-calls.js';
import { Target as TargetSchema } from './spec.js';
import type { Target } from './types.js';

export type ResolvedTarget =
  /** `count`: how many elements the selector / text matched (more than one only with an explicit nth). */
  | ({ kind: 'element'; role?: string; name?: string; count?: number } & PinnedElement)
  | { kind: 'point'; x: number; y: number };

function describeTarget(t: Target): string {
  if ('element_ref' in t) return `ref ${t.element_ref}`;
  const inFrame = 'frame' in t && t.frame !== undefined ? ` in frame ${t.frame}` : '';
  if ('selector' in t) return `selector ${JSON.stringify(t.selector)}${inFrame}`;
  if ('role' in t) return `role ${t.role}${t.name !== undefined ? ` named ${JSON.stringify(t.name)}` : ''}`;
  if ('text' in t) return `text ${JSON.stringify(t.text)}${inFrame}`;
  return `point (${t.x}, ${t.y})`;
}

/** Validates a caller's target (one of the shapes of spec.ts); invalid_request names the problem. */
export function parseTarget(t: unknown): Target {
  return parseInput(TargetSchema, t, 'target');
}

/** Resolves any target to a pinned element (by identity) or a point. Never guesses. */
export async function resolveTarget(page: Page, target: Target, d: Deadline): Promise<ResolvedTarget> {
  if ('x' in target) return { kind: 'point', x: target.x, y: target.y };
  if ('element_ref' in target) {
    // No round trip here: the guard that follows pins the element by identity and fails on a stale ref.
    const { target: t, frame } = targetOf(page, target.element_ref);
    return { kind: 'element', ref: t.ref, frame, doc: t.doc, id: t.id };
  }
  if ('role' in target) return resolveByRole(page, target, d);
  const frame = target.frame === undefined ? mainFrame(page) : frameById(page, target.frame);
  const spec =
    'selector' in target
      ? { selector: target.selector, nth: target.nth }
      : { text: target.text, exact: target.exact };
  type Found =
    | { ok: true; count: number; identity: { doc: string; id: number } | null }
    | {
        ok: false;
        reason: 'invalid_selector' | 'no_match' | 'ambiguous' | 'nth_out_of_range';
        count: number;
        message: string;
      };
  const found = await frameCall<Found>(frame, { op: 'find', spec }, d);
  if (!found.ok) {
    if (found.reason === 'invalid_selector') {
      throw new TabwrightError(
        'invalid_selector',
        `The selector is not valid CSS (${found.message}). Fix it, or target by element_ref.`,
        {
          details: { selector: (target as { selector: string }).selector },
        },
      );
    }
    const nth = 'nth' in target ? target.nth : undefined;
    throw new TabwrightError(
      'element_not_found',
      found.reason === 'no_match'
        ? `Nothing matches ${describeTarget(target)}. Take a snapshot and target by element_ref.`
        : found.reason === 'nth_out_of_range'
          ? `${describeTarget(target)} matches ${found.count} elements, so there is no nth ${nth} (0-based). Pick nth below ${found.count}.`
          : `${describeTarget(target)} matches ${found.count} elements; an action needs exactly one. Narrow it, pass nth, or take a snapshot and use an element_ref.`,
      { details: { reason: found.reason, match_count: found.count, ...(nth !== undefined ? { nth } : {}) } },
    );
  }
  if (!found.identity)
    throw new TabwrightError('internal_error', 'The matched element has no identity. Retry the action.');
  const ref = registryOf(page.session).refFor(page.id, frame.id, found.identity.doc, found.identity.id);
  return { kind: 'element', ref, frame, doc: found.identity.doc, id: found.identity.id, count: found.count };
}

/** What `Page.locate` answers: the one element a target names, without acting on it. */
export interface Located {
  element_ref: string;
  /** Engine frame id of the element's document. */
  frame: string;
  /** Elements the selector / text matched (1 unless an explicit nth chose among several). */
  match_count: number;
}

/** Resolves an element target (not a point) to its ref, by the same rules as an action. */
export async function locateTarget(page: Page, target: Target, d: Deadline): Promise<Located> {
  const r = await resolveTarget(page, parseTarget(target), d);
  if (r.kind !== 'element') {
    throw new TabwrightError('invalid_request', 'A point names no element; locate needs an element target.', {
      details: { field: 'target' },
    });
  }
  return { element_ref: r.ref, frame: r.frame.id, match_count: r.count ?? 1 };
}

function norm(s: string, foldCase = true): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return foldCase ? t.toLowerCase() : t;
}

/** The nearest named ancestor that is not a control, as "role: name" (the form a context takes). */
function contextOf(ancestors: SnapshotNode[]): string | null {
  const a = [...ancestors]
    .reverse()
    .find((x) => x.name && x.role !== 'document' && !INTERACTIVE_ROLES.has(x.role));
  return a ? `${a.role}: ${a.name}` : null;
}

async function resolveByRole(
  page: Page,
  target: { role: string; name?: string; exact?: boolean; context?: string; case_sensitive?: boolean },
  d: Deadline,
): Promise<ResolvedTarget> {
  const snap = await takeSnapshot(page, { max_chars: 10_000_000 }, d);
  const role = target.role.toLowerCase();
  const fold = !target.case_sensitive;
  const name = target.name === undefined ? undefined : norm(target.name, fold);
  const context = target.context === undefined ? undefined : norm(target.context, fold);
  // The form candidates print ("group: Outbound"): the ancestor's role, then its name.
  const typed = context === undefined ? null : /^([a-z][a-z-]*): (.+)$/i.exec(context);
  const contextMatches = (a: SnapshotNode): boolean => {
    const n = norm(a.name, fold);
    if (n.includes(context!)) return true;
    return !!typed && a.role === typed[1]!.toLowerCase() && n.includes(typed[2]!);
  };
  const matches: { node: SnapshotNode; ancestors: SnapshotNode[] }[] = [];
  const visit = (node: SnapshotNode, ancestors: SnapshotNode[]) => {
    if (node.role === role && node.element_ref) {
      const n = norm(node.name, fold);
      const nameOk = name === undefined || (target.exact ? n === name : n.includes(name));
      const contextOk = context === undefined || ancestors.some(contextMatches);
      if (nameOk && contextOk) matches.push({ node, ancestors });
    }
    for (const c of node.children) visit(c, [...ancestors, node]);
  };
  visit(snap.model, []);
  if (matches.length !== 1) {
    const candidates = matches.slice(0, 10).map(({ node, ancestors }) => ({
      element_ref: node.element_ref,
      name: node.name,
      context: contextOf(ancestors),
    }));
    throw new TabwrightError(
      'element_not_found',
      matches.length === 0
        ? `No ${describeTarget(target)} is on the page. Take a snapshot to see the roles and names there.`
        : `${describeTarget(target)} matches ${matches.length} elements; pass exact: true, a context (an ancestor's name), or one of the element_refs in details.`,
      {
        details: {
          reason: matches.length === 0 ? 'no_match' : 'ambiguous',
          match_count: matches.length,
          candidates,
        },
      },
    );
  }
  const { node } = matches[0]!;
  const { target: t, frame } = targetOf(page, node.element_ref!);
  return { kind: 'element', ref: t.ref, frame, doc: t.doc, id: t.id, role: node.role, name: node.name };
}

/** Offset of a frame's viewport in the page's viewport (sum over the iframe chain). */
export async function frameOffset(
  page: Page,
  frame: BackendFrame,
  d: Deadline,
): Promise<{ x: number; y: number }> {
  let x = 0;
  let y = 0;
  const frames = page.backend.frames();
  let current: BackendFrame | undefined = frame;
  while (current?.parentId) {
    const box = await current.evaluateOnOwner(
      (el: unknown) => {
        const e = el as HTMLElement;
        const r = e.getBoundingClientRect();
        const s = getComputedStyle(e);
        return {
          x: r.left + e.clientLeft + Number.parseFloat(s.paddingLeft),
          y: r.top + e.clientTop + Number.parseFloat(s.paddingTop),
        };
      },
      null,
      Math.max(1, d.remaining()),
    );
    if (!box)
      throw new TabwrightError('element_not_found', 'The frame of the target is gone. Take a new snapshot.', {
        details: { reason: 'stale_ref' },
      });
    x += box.x;
    y += box.y;
    const parentId: string = current.parentId;
    current = frames.find((f) => f.id === parentId);
  }
  return { x, y };
}
