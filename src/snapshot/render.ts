import type { NodeStates, SnapshotNode } from './model.js';

/**
 * The agent text: one node per line, two-space indentation for structure,
 * `role "name" [states] [ref=eN]`, then value and text. Generic wrappers,
 * paragraphs and unnamed groups add no line of their own; text is inline.
 */
export interface RenderOptions {
  interactiveOnly?: boolean;
  maxDepth?: number;
  includeUrls?: boolean;
  includeBoxes?: boolean;
}

export interface Line {
  depth: number;
  text: string;
  /** Refs printed on this line. */
  refs: string[];
}

export interface Rendered {
  lines: Line[];
  /** Nodes left out by max_depth. */
  depthOmitted: number;
  depthOmittedRefs: string[];
}

/** Roles that print their children in place, without a line of their own (unless they carry a ref or name). */
const PASS_THROUGH = new Set([
  'paragraph',
  'generic',
  'group',
  'figure',
  'blockquote',
  'document',
  'cell',
  'gridcell',
]);
/** Containers kept in interactive-only output when they hold interactive content. */
const IO_CONTAINERS = new Set([
  'iframe',
  'dialog',
  'alertdialog',
  'form',
  'navigation',
  'main',
  'banner',
  'menu',
  'menubar',
  'tablist',
  'listbox',
  'tree',
  'grid',
  'table',
  'radiogroup',
  'toolbar',
]);

const MAX_INLINE_OPTIONS = 500;

export function quote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function statesText(
  st: NodeStates | undefined,
  covered: boolean | undefined,
  clickable?: boolean,
): string {
  const parts: string[] = [];
  if (clickable) parts.push('clickable');
  if (st) {
    if (st.checked === true) parts.push('checked');
    else if (st.checked === 'mixed') parts.push('checked=mixed');
    if (st.selected) parts.push('selected');
    if (st.expanded === true) parts.push('expanded');
    else if (st.expanded === false) parts.push('expanded=false');
    if (st.pressed === true) parts.push('pressed');
    else if (st.pressed === 'mixed') parts.push('pressed=mixed');
    if (st.disabled) parts.push('disabled');
    if (st.readonly) parts.push('readonly');
    if (st.required) parts.push('required');
    if (st.invalid) parts.push('invalid');
    if (st.focused) parts.push('focused');
    if (st.level !== undefined) parts.push(`level=${st.level}`);
  }
  if (covered) parts.push('covered');
  return parts.length ? ` [${parts.join(' ')}]` : '';
}

/** The line for one node, without indentation or children. `withRef` forces the ref (diffs). */
export function nodeLine(
  n: SnapshotNode,
  o: RenderOptions,
  withRef: boolean,
  omitName = false,
  withText = true,
): string {
  if (n.role === 'text') return withText ? (n.text ?? '') : '';
  // The browser's role, always; a promoted clickable says so as a marker, like a state.
  let s = n.role;
  if (n.name && !omitName) s += ` ${quote(n.name)}`;
  s += statesText(n.states, n.covered, n.clickable);
  if (n.element_ref && (withRef || n.interactive || n.role === 'iframe')) s += ` [ref=${n.element_ref}]`;
  if (n.value !== undefined && n.value !== '') s += ` value=${quote(n.value)}`;
  if (o.includeUrls && n.url) s += ` -> ${n.url}`;
  if (o.includeBoxes && n.bbox) s += ` [box=${n.bbox.join(',')}]`;
  if (n.frame_error) s += ` (content unavailable: ${n.frame_error})`;
  if (withText && n.text) s += `: ${n.text}`;
  return s;
}

function isTextOnly(n: SnapshotNode): boolean {
  return n.children.every((c) => c.role === 'text');
}

function flatText(n: SnapshotNode): string {
  const parts: string[] = [];
  if (n.text) parts.push(n.text);
  for (const c of n.children) parts.push(c.role === 'text' ? (c.text ?? '') : flatText(c));
  return parts.join(' ').trim();
}

function cellInline(c: SnapshotNode): string | null {
  if (c.role !== 'cell' && c.role !== 'gridcell' && c.role !== 'columnheader' && c.role !== 'rowheader')
    return null;
  if (c.interactive) return null;
  if (!c.children.every((k) => k.role === 'text' || (!k.interactive && isTextOnly(k) && k.role !== 'iframe')))
    return null;
  const t = flatText(c) || c.name;
  return t.replace(/\|/g, '\\|');
}

export function renderAgentText(root: SnapshotNode, o: RenderOptions): Rendered {
  const lines: Line[] = [];
  const out: Rendered = { lines, depthOmitted: 0, depthOmittedRefs: [] };
  const maxDepth = o.maxDepth ?? Number.POSITIVE_INFINITY;

  const omit = (n: SnapshotNode) => {
    out.depthOmitted++;
    if (n.element_ref && n.interactive) out.depthOmittedRefs.push(n.element_ref);
    for (const c of n.children) omit(c);
  };
  const push = (depth: number, text: string, n?: SnapshotNode) => {
    const refs: string[] = [];
    if (n?.element_ref && (n.interactive || n.role === 'iframe')) refs.push(n.element_ref);
    lines.push({ depth, text, refs });
  };

  const children = (n: SnapshotNode, depth: number) => {
    for (const c of n.children) visit(c, depth);
  };

  const visit = (n: SnapshotNode, depth: number): void => {
    if (depth > maxDepth) {
      omit(n);
      return;
    }
    if (o.interactiveOnly) {
      if (n.interactive || n.role === 'iframe') {
        push(depth, nodeLine(n, o, false), n);
        children(n, depth + 1);
        return;
      }
      if (IO_CONTAINERS.has(n.role) && hasInteractive(n)) {
        push(depth, nodeLine(n, o, false, false, false), n);
        children(n, depth + 1);
        return;
      }
      children(n, depth);
      return;
    }
    if (n.role === 'text') {
      push(depth, n.text ?? '');
      return;
    }
    const showsRef = n.interactive || n.role === 'iframe';
    if (
      !showsRef &&
      (PASS_THROUGH.has(n.role) || (n.role === 'list' && !n.name)) &&
      !n.states &&
      (n.role !== 'group' || !n.name) &&
      !n.shadow
    ) {
      if (n.text) push(depth, n.text);
      // A text-only cell keeps its text as its name (and no children): print it.
      else if (!n.children.length && n.name && (n.role === 'cell' || n.role === 'gridcell'))
        push(depth, n.name);
      children(n, depth);
      return;
    }
    if (n.role === 'listitem' && !showsRef) {
      if (n.text) {
        push(depth, `- ${n.text}`);
        children(n, depth + 1);
        return;
      }
      // The item marker goes on the first line of the item's content.
      const first = lines.length;
      children(n, depth + 1);
      const head = lines[first];
      if (head && head.depth === depth + 1) {
        head.depth = depth;
        head.text = `- ${head.text}`;
      } else lines.splice(first, 0, { depth, text: '-', refs: [] });
      return;
    }
    if (n.role === 'row' && !showsRef && n.children.length) {
      const cells = n.children.map(cellInline);
      if (cells.every((c) => c !== null)) {
        const header = n.children.every((c) => c.role === 'columnheader');
        push(depth, `row${header ? ' (header)' : ''}${statesText(n.states, false)}: ${cells.join(' | ')}`);
        return;
      }
    }
    if (n.role === 'combobox' && n.children.length && n.children.every((c) => c.role === 'option')) {
      // A closed select: its options inline, the chosen one is the value.
      const names = n.children.map((c) => c.name);
      const shown = names.slice(0, MAX_INLINE_OPTIONS).join(' | ');
      const more = names.length > MAX_INLINE_OPTIONS ? ` | …+${names.length - MAX_INLINE_OPTIONS}` : '';
      push(depth, `${nodeLine(n, o, false)} options: ${shown}${more}`, n);
      return;
    }
    const onlyChild = n.children.length === 1 ? n.children[0]! : null;
    const omitName =
      !!onlyChild && !n.text && onlyChild.role !== 'text' && onlyChild.name === n.name && !!n.name;
    push(depth, nodeLine(n, o, false, omitName), n);
    children(n, depth + 1);
  };

  if (root.role === 'document') children(root, 0);
  else visit(root, 0);
  return out;
}

function hasInteractive(n: SnapshotNode): boolean {
  return n.children.some((c) => c.interactive || c.role === 'iframe' || hasInteractive(c));
}

export function joinLines(lines: Line[]): string {
  let s = '';
  for (const l of lines) s += `${' '.repeat(l.depth)}${l.text}\n`;
  return s.endsWith('\n') ? s.slice(0, -1) : s;
}
