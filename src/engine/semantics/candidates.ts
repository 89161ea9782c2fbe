import { INTERACTIVE_ROLES, type SnapshotNode } from '../../snapshot/index.js';
import type { ActionName } from '../actions/spec.js';
import type { OperationOptions } from '../deadline.js';
import { readElements } from '../element-reads.js';
import type { Page } from '../page.js';

/**
 * Page understanding for bounded decisions: the elements an agent can act on now (main frame,
 * enabled, actionable, not secret), each with the actions its role allows, its state, and the
 * nearest named container as context. A door gives them its own handles and vocabulary (the JS
 * harness's observe()).
 */

/** The actions a candidate offers, by role. */
export type CandidateAction = Extract<ActionName, 'click' | 'type' | 'press' | 'select' | 'scroll'>;

export interface ActionCandidate {
  element_ref: string;
  role: string;
  /** The accessible name, at most 256 characters. */
  label: string;
  actions: CandidateAction[];
  /** The current value (at most 4096 characters; a select's selected label). */
  value?: string;
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  /** A select's option labels (at most 64). */
  options?: string[];
  /** The nearest named non-interactive ancestor, as `role: name`. */
  context?: string;
  /** A scrollable container (action `scroll`): whether it can move up and down from here. */
  scroll?: { up: boolean; down: boolean };
}

export interface Candidates {
  url: string;
  title: string;
  /** More candidates than `max` were found; the first `max` are listed. */
  truncated: boolean;
  candidates: ActionCandidate[];
}

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
const KEY_ROLES = new Set(['slider', 'scrollbar']);

/** Which actions an element's role (and tag) allows; null when it offers none. */
export function actionsForRole(n: SnapshotNode): CandidateAction[] | null {
  if (n.tag === 'select' && n.role === 'combobox') return ['select'];
  // Range widgets move with keys; a spinbutton that is not a text field takes keys and clicks only.
  if (KEY_ROLES.has(n.role)) return ['press'];
  if (n.role === 'spinbutton' && n.tag !== 'input') return ['press', 'click'];
  if (TEXT_ROLES.has(n.role) || (n.role === 'combobox' && (n.tag === 'input' || n.tag === 'textarea')))
    return ['type', 'press', 'click'];
  if (CLICK_ROLES.has(n.role) || n.clickable) return ['click'];
  return null;
}

/** Reads the page once (interactive model, main frame) and lists at most `max` candidates. */
export async function actionCandidates(page: Page, max: number, opts: OperationOptions): Promise<Candidates> {
  const snap = await page.snapshot(
    { interactive_only: true, include_frames: false, max_chars: 10_000_000 },
    opts,
  );
  // Every control in document order; the ones without actions of their role are kept only when
  // they scroll (a listbox, a list of results), read below.
  const all: ActionCandidate[] = [];
  const visit = (n: SnapshotNode, context: string | undefined) => {
    let ctx = context;
    if (n.element_ref && n.interactive && n.actionable && !n.frame && !n.states?.disabled) {
      const actions = actionsForRole(n);
      if (n.value !== '[redacted]') all.push(candidate(n, n.element_ref, actions ?? [], ctx));
    }
    if (n.name && n.role !== 'document' && n.role !== 'text' && !INTERACTIVE_ROLES.has(n.role))
      ctx = `${n.role}: ${n.name.slice(0, 120)}`;
    for (const k of n.children) visit(k, ctx);
  };
  visit(snap.model, undefined);
  const inert = all.filter((c) => c.actions.length === 0);
  const scrolls = await readEach(page, inert, 'scrollable', opts);
  inert.forEach((c, i) => {
    const s = scrolls[i] as { up: boolean; down: boolean } | '' | null;
    if (s && typeof s === 'object') {
      c.actions = ['scroll'];
      c.scroll = { up: s.up, down: s.down };
    }
  });
  const actionable = all.filter((c) => c.actions.length > 0);
  const truncated = actionable.length > max;
  const found = actionable.slice(0, max);
  // Secret text fields are left out: one read per frame for all of them; one that cannot be read
  // (null) is left out too.
  const textual = found.filter((c) => c.actions.includes('type'));
  const reasons = await readEach(page, textual, 'sensitive', opts);
  const secret = new Set(textual.filter((_, i) => reasons[i] !== '').map((c) => c.element_ref));
  return {
    url: snap.url,
    title: snap.title,
    truncated,
    candidates: found.filter((c) => !secret.has(c.element_ref)),
  };
}

/** One read per frame for all of `list`; null for each when the read fails. */
function readEach(
  page: Page,
  list: ActionCandidate[],
  kind: 'scrollable' | 'sensitive',
  opts: OperationOptions,
): Promise<unknown[]> {
  return readElements(
    page,
    list.map((c) => c.element_ref),
    kind,
    null,
    opts,
  ).catch(() => list.map(() => null));
}

function candidate(
  n: SnapshotNode,
  ref: string,
  actions: CandidateAction[],
  context: string | undefined,
): ActionCandidate {
  const c: ActionCandidate = { element_ref: ref, role: n.role, label: n.name.slice(0, 256), actions };
  if (n.value !== undefined && n.tag !== 'select') c.value = n.value.slice(0, 4096);
  // A contenteditable field's value is its text (the model keeps it as text, not as a value).
  else if (actions.includes('type') && n.tag !== 'input' && n.tag !== 'textarea')
    c.value = textOf(n).slice(0, 4096);
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
  if (context) c.context = context;
  return c;
}

/** The text under a node, runs joined by spaces. */
function textOf(n: SnapshotNode): string {
  const parts: string[] = [];
  const walk = (k: SnapshotNode) => {
    if (k.text) parts.push(k.text);
    for (const c of k.children) walk(c);
  };
  walk(n);
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}
