import type { SnapshotNode } from '../../../snapshot/index.js';

/**
 * Markdown and table figures rendered from the engine's page model (pure
 * rendering: the model already holds visible text, names, roles, link URLs).
 */

const CELL_ROLES = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);

/** Visible text of a subtree, one line. */
export function flat(n: SnapshotNode): string {
  if (n.role === 'text') return (n.text ?? '').trim();
  const parts: string[] = [];
  if (n.children.length === 0 && n.name && n.tag !== 'input' && n.tag !== 'select' && n.tag !== 'textarea')
    parts.push(n.name);
  if (n.text) parts.push(n.text);
  if (n.value && (n.tag === 'input' || n.tag === 'select' || n.tag === 'textarea')) parts.push(n.value);
  for (const c of n.children) parts.push(flat(c));
  return parts
    .filter((s) => s !== '')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function rowsOf(t: SnapshotNode): SnapshotNode[][] {
  const rows: SnapshotNode[][] = [];
  const walk = (n: SnapshotNode) => {
    if (n.role === 'row' || n.tag === 'tr') {
      rows.push(n.children.filter((c) => CELL_ROLES.has(c.role) || c.tag === 'td' || c.tag === 'th'));
      return;
    }
    if (n !== t && (n.tag === 'table' || n.role === 'table')) return;
    for (const c of n.children) walk(c);
  };
  walk(t);
  return rows;
}

function isHeaderRow(r: SnapshotNode[]): boolean {
  return r.length > 0 && r.every((c) => c.role === 'columnheader' || c.tag === 'th');
}

/**
 * Figures of one table. `dataRows` counts rows that are not all header cells, so an empty result
 * table (`dataRows: 0, empty: true`) is never mistaken for a table whose values are zero.
 */
export function tableStats(t: SnapshotNode) {
  const rows = rowsOf(t);
  const headerRows = rows.filter(isHeaderRow).length;
  const dataRows = rows.length - headerRows;
  const text = flat(t);
  let images = 0;
  const count = (n: SnapshotNode) => {
    if (n.role === 'img' || n.tag === 'img') images++;
    for (const c of n.children) count(c);
  };
  count(t);
  return {
    rows: rows.length,
    cols: rows.reduce((m, r) => Math.max(m, r.length), 0),
    headerRows,
    dataRows,
    empty: dataRows === 0,
    emptyNote:
      dataRows === 0
        ? '表格没有数据行：这表示没有记录匹配，不代表金额为零（请确认主体、时间、筛选条件和查询是否成功）'
        : undefined,
    name: t.name || undefined,
    textLength: text.length,
    imageCount: images,
    preview: rows
      .slice(0, 3)
      .map((r) => r.map(flat).join(' | '))
      .join('\n')
      .slice(0, 300),
  };
}

function table(t: SnapshotNode): string {
  const rows = rowsOf(t).map((r) => r.map((c) => flat(c).replace(/\|/g, '\\|')));
  if (rows.length === 0) return '';
  const cols = Math.max(...rows.map((r) => r.length), 1);
  const pad = (r: string[]) => [...r, ...Array(cols - r.length).fill('')];
  const [head, ...body] = rows;
  const out = [`| ${pad(head!).join(' | ')} |`, `|${' --- |'.repeat(cols)}`];
  for (const r of body) out.push(`| ${pad(r).join(' | ')} |`);
  if (body.length === 0) out.push('');
  return out.join('\n');
}

export function renderMarkdown(root: SnapshotNode, opts: { links: boolean }) {
  const blocks: string[] = [];
  const links: { text: string; href: string }[] = [];
  let inline: string[] = [];
  const flush = () => {
    const t = inline.join(' ').replace(/\s+/g, ' ').trim();
    if (t) blocks.push(t);
    inline = [];
  };
  const visit = (n: SnapshotNode, listDepth: number) => {
    if (n.role === 'text') {
      inline.push(n.text ?? '');
      return;
    }
    if (n.tag === 'table' || n.role === 'table' || n.role === 'grid') {
      flush();
      const t = table(n);
      if (t) blocks.push(t);
      return;
    }
    if (n.role === 'heading') {
      flush();
      blocks.push(`${'#'.repeat(Math.min(6, n.states?.level ?? 2))} ${flat(n)}`);
      return;
    }
    if (n.role === 'link') {
      const text = flat(n) || n.name;
      if (opts.links && n.url) {
        links.push({ text, href: n.url });
        inline.push(`[${text}](${n.url})`);
      } else inline.push(text);
      return;
    }
    if (n.role === 'listitem') {
      flush();
      blocks.push(`${'  '.repeat(Math.max(0, listDepth - 1))}- ${flat(n)}`);
      return;
    }
    if (n.role === 'img') {
      if (n.name) inline.push(`![${n.name}]`);
      return;
    }
    const block = [
      'paragraph',
      'list',
      'form',
      'navigation',
      'main',
      'region',
      'article',
      'dialog',
      'banner',
    ].includes(n.role);
    if (block) flush();
    if (n.children.length === 0) {
      const own = flat(n);
      if (own) inline.push(own);
    } else {
      if (n.text) inline.push(n.text);
      for (const c of n.children) visit(c, n.role === 'list' ? listDepth + 1 : listDepth);
    }
    if (block) flush();
  };
  visit(root, 0);
  flush();
  return { text: blocks.join('\n\n'), links };
}
