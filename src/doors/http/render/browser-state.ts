import type { SnapshotNode } from '../../../snapshot/index.js';
import { DOM_ATTRIBUTES } from '../../kit/index.js';

/**
 * The indexed `text` of get_browser_state (reference §9.4-9.6), rendered from
 * the engine's page model. Pure rendering: the model already carries tags,
 * the attributes this door asks for (STATE_ATTRIBUTES), live values (secrets
 * redacted) and states.
 */

/** The DOM attributes the door's snapshots ask the engine for: what an element line prints from the DOM (§9.5). */
export const STATE_ATTRIBUTES = [...DOM_ATTRIBUTES];

/** Attribute whitelist, in print order (§9.5). */
export const ATTR_ORDER = [
  'title',
  'type',
  'checked',
  'name',
  'role',
  'value',
  'placeholder',
  'data-date-format',
  'alt',
  'aria-label',
  'aria-expanded',
  'data-state',
  'aria-checked',
  'readonly',
  'disabled',
  'editable',
  'selected',
  'selected-text',
] as const;

/** Only these are cut at 160 characters + `...` (§9.5). */
const CUT = new Set(['title', 'placeholder', 'alt', 'aria-label', 'selected-text']);
const CUT_AT = 160;
/** Tags whose children get one more tab (§9.6). */
const MEANINGFUL = new Set([
  'form',
  'fieldset',
  'table',
  'thead',
  'tbody',
  'tr',
  'td',
  'th',
  'ul',
  'ol',
  'li',
  'nav',
  'section',
  'dialog',
]);
const MAX_INDENT = 6;
/** Controls shown without an index when they have none (rule 2 of §9.4). */
const CONTROL_TAGS = new Set(['input', 'textarea', 'select', 'option', 'button']);
/** Roles whose accessible name is their visible content (the model folds the text into the name). */
const NAME_IS_CONTENT = new Set([
  'link',
  'button',
  'generic',
  'heading',
  'cell',
  'gridcell',
  'columnheader',
  'rowheader',
  'listitem',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'treeitem',
  'caption',
  'legend',
  'term',
  'definition',
  'tooltip',
  'status',
  'label',
  'paragraph',
  'code',
  'summary',
]);

export interface IndexedElement {
  index: number;
  ref: string;
  tag: string;
  role: string;
  name: string;
  text: string;
  selector?: string;
  frame?: string;
  actionable: boolean;
  covered?: boolean;
  isNew: boolean;
}

export interface RenderedState {
  lines: string[];
  elements: IndexedElement[];
  mediaCount: number;
  /** Per-frame blocks, only when rendered with a FrameSplit. */
  frames?: FrameBlock[];
}

export function escapeAttr(v: string): string {
  return v
    .replace(/&/g, '&amp;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t');
}

function cut(key: string, v: string): string {
  return CUT.has(key) && v.length > CUT_AT ? `${v.slice(0, CUT_AT)}...` : v;
}

/** The attribute map of one element line: whitelisted DOM attributes plus live state. */
export function lineAttrs(n: SnapshotNode): [string, string][] {
  const a: Record<string, string> = { ...(n.attrs ?? {}) };
  const st = n.states ?? {};
  const type = (a.type ?? '').toLowerCase();
  const isToggle = n.tag === 'input' && (type === 'checkbox' || type === 'radio');
  if (isToggle) a.checked = st.checked === true ? 'true' : 'false';
  else if (n.role === 'checkbox' || n.role === 'radio' || n.role === 'switch') {
    if (st.checked !== undefined && a['aria-checked'] === undefined) a.checked = String(st.checked);
  }
  if (n.tag === 'select') {
    if (n.value) a['selected-text'] = n.value;
  } else if (n.value !== undefined && n.value !== '' && (n.tag === 'input' || n.tag === 'textarea')) {
    // A secret field's value (and its value attribute) arrives masked by the engine's one secret rule.
    a.value = n.value;
  } else if (n.value !== undefined && n.value !== '' && a.value === undefined && n.tag !== 'option') {
    a.value = n.value;
  }
  if (st.readonly) a.readonly = 'true';
  if (st.disabled) a.disabled = 'true';
  if (n.tag === 'option' && st.selected) a.selected = 'true';
  const out: [string, string][] = [];
  for (const k of ATTR_ORDER) {
    const v = a[k];
    if (v === undefined) continue;
    out.push([k, escapeAttr(cut(k, v))]);
  }
  return out;
}

function elementLine(prefix: string, n: SnapshotNode, text: string): string {
  const attrs = lineAttrs(n)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  let tail: string;
  if (text === '') tail = attrs === '' ? ' />' : '/>';
  else tail = attrs === '' ? ` >${text}/>` : `>${text}/>`;
  return `${prefix}<${n.tag}${attrs === '' ? '' : ` ${attrs}`}${tail}`;
}

/** Whether the model's name stands for visible content (not an aria-label, title, alt or placeholder). */
function nameIsContent(n: SnapshotNode): boolean {
  if (!n.name || !NAME_IS_CONTENT.has(n.role)) return false;
  const a = n.attrs ?? {};
  return ![a['aria-label'], a.title, a.alt, a.placeholder].includes(n.name);
}

/** A node gets an index when it is interactive and not disabled (§9.7: disabled controls show state only). */
function indexable(n: SnapshotNode): boolean {
  return n.interactive && n.element_ref !== undefined && !n.states?.disabled;
}

function isFormControl(n: SnapshotNode): boolean {
  return n.tag === 'input' || n.tag === 'textarea' || n.tag === 'select';
}

/**
 * The label text of a form control. The engine folds `<label>` text (wrapping or `for=`) into the
 * control's accessible name and leaves no text node behind, so the door prints the name as the
 * plain text line a reader sees next to the field (§9.4: text outside indexed elements is shown).
 * Names that come from attributes the line already prints (aria-label, title, placeholder, value)
 * are not repeated.
 */
function labelText(n: SnapshotNode): string {
  if (!isFormControl(n) || !n.name) return '';
  const a = n.attrs ?? {};
  const name = n.name.trim();
  if ([a['aria-label'], a.title, a.placeholder, a.value, a.alt].some((v) => v?.trim() === name)) return '';
  const type = (a.type ?? '').toLowerCase();
  if (['submit', 'button', 'reset', 'image', 'hidden'].includes(type)) return '';
  return name;
}

/** Checkbox and radio labels usually follow the box; other fields' labels precede them. */
function labelFollows(n: SnapshotNode): boolean {
  const type = (n.attrs?.type ?? '').toLowerCase();
  return n.tag === 'input' && (type === 'checkbox' || type === 'radio');
}

/** Text of a subtree up to (not into) indexed descendants. */
function ownText(n: SnapshotNode): string {
  const parts: string[] = [];
  if (isFormControl(n)) return '';
  if (n.children.length === 0 && nameIsContent(n)) parts.push(n.name);
  if (n.text) parts.push(n.text);
  for (const c of n.children) {
    if (c.role === 'text') parts.push(c.text ?? '');
    else if (!indexable(c) && !(n.tag === 'select')) parts.push(ownText(c));
  }
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join(' ')
    .trim();
}

/**
 * Renders the model. `previous` is the set of refs the task's previous
 * snapshot of the same page indexed (for `*[N]`), or undefined on a first read.
 */
export function renderBrowserState(
  root: SnapshotNode,
  previous: ReadonlySet<string> | undefined,
  split?: FrameSplit,
): RenderedState {
  const lines: string[] = [];
  const elements: IndexedElement[] = [];
  let mediaCount = 0;
  const tabs = (k: number) => '\t'.repeat(k);
  /** A control's element line with its label text as a plain line before or after it (not twice in a row). */
  const pushControl = (n: SnapshotNode, indent: number, line: string): void => {
    const label = labelText(n);
    const shown = label !== '' && lines.slice(-2).some((l) => l.trim() === label);
    if (label && !shown && !labelFollows(n)) lines.push(`${tabs(indent)}${label}`);
    lines.push(line);
    if (label && !shown && labelFollows(n)) lines.push(`${tabs(indent)}${label}`);
  };
  /** With `split`: iframe subtrees are rendered after the main frame, each behind a separator line. */
  const deferred: SnapshotNode[] = [];

  const visit = (n: SnapshotNode, indent: number): void => {
    if (n.role === 'text') {
      const t = (n.text ?? '').trim();
      if (t) lines.push(`${tabs(indent)}${t}`);
      return;
    }
    if (n.tag === 'img' || n.role === 'img' || n.tag === 'canvas' || n.tag === 'svg') mediaCount++;
    if (indexable(n)) {
      const index = elements.length;
      const ref = n.element_ref!;
      const isNew = previous !== undefined && !previous.has(ref);
      const text = ownText(n);
      pushControl(n, indent, `${tabs(indent)}${isNew ? '*' : ''}[${index}]${elementLine('', n, text)}`);
      elements.push({
        index,
        ref,
        tag: n.tag,
        role: n.role,
        name: n.name,
        text,
        selector: n.selector_hint,
        frame: n.frame,
        actionable: n.actionable,
        covered: n.covered,
        isNew,
      });
      const inner = Math.min(indent + 1, MAX_INDENT);
      for (const c of n.children) if (c.role !== 'text') visitNested(c, inner);
      return;
    }
    if (CONTROL_TAGS.has(n.tag)) {
      // Options of a select are its state (selected-text), not lines of their own.
      if (n.tag === 'option') return;
      pushControl(n, indent, `${tabs(indent)}${elementLine('', n, ownText(n))}`);
      return;
    }
    const own = [n.children.length === 0 && nameIsContent(n) ? n.name : '', n.text ?? '']
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .join(' ');
    if (own) lines.push(`${tabs(indent)}${own}`);
    if (split && (n.role === 'iframe' || n.tag === 'iframe' || n.tag === 'frame') && n.children.length > 0) {
      deferred.push(n);
      return;
    }
    const inner = MEANINGFUL.has(n.tag) ? Math.min(indent + 1, MAX_INDENT) : indent;
    for (const c of n.children) visit(c, inner);
  };

  // Inside an indexed element only indexed descendants (and controls) print; their text is the parent's.
  const visitNested = (n: SnapshotNode, indent: number): void => {
    if (indexable(n) || (CONTROL_TAGS.has(n.tag) && n.tag !== 'option')) {
      visit(n, indent);
      return;
    }
    if (n.tag === 'img' || n.role === 'img') mediaCount++;
    const inner = MEANINGFUL.has(n.tag) ? Math.min(indent + 1, MAX_INDENT) : indent;
    for (const c of n.children) if (c.role !== 'text') visitNested(c, inner);
  };

  if (!split) {
    for (const c of root.children) visit(c, 0);
    return { lines, elements, mediaCount };
  }
  const frames: FrameBlock[] = [];
  const block = (frameId: string | undefined, nodes: SnapshotNode[]) => {
    const at = lines.length;
    const first = elements.length;
    lines.push('');
    for (const c of nodes) visit(c, 0);
    const count = elements.length - first;
    const label = split.label(frameId);
    const range = count > 0 ? `${first}..${elements.length - 1}` : '-';
    lines[at] =
      `--- frame[${label.index}]${frameId === undefined ? ' (main)' : ''} ${label.url} elements=${count} index=${range} ---`;
    frames.push({
      index: label.index,
      url: label.url,
      isMain: frameId === undefined,
      elementCount: count,
      indexRange: range,
    });
  };
  block(undefined, root.children);
  while (deferred.length > 0) {
    const f = deferred.shift()!;
    block(frameIdOf(f), f.children);
  }
  // A page with a single frame prints no separator (§9.8).
  if (frames.length === 1) lines.shift();
  return { lines, elements, mediaCount, frames };
}

function frameIdOf(n: SnapshotNode): string | undefined {
  for (const c of n.children) {
    if (c.frame) return c.frame;
    const inner = frameIdOf(c);
    if (inner) return inner;
  }
  return undefined;
}

export interface FrameSplit {
  /** Index (0 = main, as list_frames) and URL of a frame id (undefined = the main frame). */
  label(frameId: string | undefined): { index: number; url: string };
}

export interface FrameBlock {
  index: number;
  url: string;
  isMain: boolean;
  elementCount: number;
  indexRange: string;
}

export interface TabLine {
  title: string;
  url: string;
  current: boolean;
}

/** The `browser_state` tab block (§9.3): tabs numbered from 1. */
export function renderTabBlock(tabs: TabLine[]): string {
  const out: string[] = [];
  let current = 0;
  tabs.forEach((t, i) => {
    const blank = t.title === '' && (t.url === '' || t.url === 'about:blank');
    out.push(
      blank ? `Browser tab: ${i + 1}, ` : `Browser tab: ${i + 1}, Title: "${t.title}", URL: "${t.url}".`,
    );
    if (t.current) current = i + 1;
  });
  out.push(`current tab is: ${current}`);
  return out.join('\n');
}
