import type { SnapshotNode } from '../../snapshot/model.js';

/**
 * Tables of the page model (HTML tables and ARIA table / grid roles): where they are, their rows and
 * cells, and their figures. Pure functions over a snapshot model: the model already holds visible
 * text, names, roles, states and link URLs.
 */

const CELL_ROLES = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
const FIELD_TAGS = new Set(['input', 'select', 'textarea']);

export function isTable(n: SnapshotNode): boolean {
  return n.tag === 'table' || n.role === 'table' || n.role === 'grid';
}

/** Visible text of a subtree on one line (a field shows its value). */
export function flatText(n: SnapshotNode): string {
  if (n.role === 'text') return (n.text ?? '').trim();
  const parts: string[] = [];
  if (n.children.length === 0 && n.name && !FIELD_TAGS.has(n.tag)) parts.push(n.name);
  if (n.text) parts.push(n.text);
  if (n.value && FIELD_TAGS.has(n.tag)) parts.push(n.value);
  for (const c of n.children) parts.push(flatText(c));
  return parts
    .filter((s) => s !== '')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The tables under `root`, in document order (a nested table is listed after its parent). */
export function tablesOf(root: SnapshotNode): SnapshotNode[] {
  const out: SnapshotNode[] = [];
  const walk = (n: SnapshotNode) => {
    if (isTable(n)) out.push(n);
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

/** The rows of one table (not of tables nested in it), each as its cells. */
export function rowsOf(t: SnapshotNode): SnapshotNode[][] {
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

export function isHeaderRow(r: SnapshotNode[]): boolean {
  return r.length > 0 && r.every((c) => c.role === 'columnheader' || c.tag === 'th');
}

export interface TableFigures {
  rows: number;
  cols: number;
  header_rows: number;
  /** Rows that are not all header cells: 0 means "no records", never "values are zero". */
  data_rows: number;
  empty: boolean;
  /** The table's accessible name (caption, aria-label), when it has one. */
  name?: string;
  text_length: number;
  /** Images inside: a table whose content is pictures needs OCR, not text reads. */
  image_count: number;
  /** The first three rows, cells joined with " | " (at most 300 characters). */
  preview: string;
}

export function tableFigures(t: SnapshotNode): TableFigures {
  const rows = rowsOf(t);
  const headerRows = rows.filter(isHeaderRow).length;
  const dataRows = rows.length - headerRows;
  let images = 0;
  const count = (n: SnapshotNode) => {
    if (n.role === 'img' || n.tag === 'img') images++;
    for (const c of n.children) count(c);
  };
  count(t);
  return {
    rows: rows.length,
    cols: rows.reduce((m, r) => Math.max(m, r.length), 0),
    header_rows: headerRows,
    data_rows: dataRows,
    empty: dataRows === 0,
    name: t.name || undefined,
    text_length: flatText(t).length,
    image_count: images,
    preview: rows
      .slice(0, 3)
      .map((r) => r.map(flatText).join(' | '))
      .join('\n')
      .slice(0, 300),
  };
}
