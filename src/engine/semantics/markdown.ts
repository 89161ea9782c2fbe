import type { SnapshotNode } from '../../snapshot/model.js';
import { flatText, isTable, rowsOf } from './tables.js';

/**
 * Markdown of a page model subtree: headings, paragraphs, lists, links (with their URLs when the
 * model has them), images by their names, and tables as GFM tables.
 */

const BLOCK_ROLES = new Set([
  'paragraph',
  'list',
  'form',
  'navigation',
  'main',
  'region',
  'article',
  'dialog',
  'banner',
]);

export interface MarkdownLink {
  text: string;
  href: string;
}

function gfmTable(t: SnapshotNode): string {
  const rows = rowsOf(t).map((r) => r.map((c) => flatText(c).replace(/\|/g, '\\|')));
  if (rows.length === 0) return '';
  const cols = Math.max(...rows.map((r) => r.length), 1);
  const pad = (r: string[]) => [...r, ...Array(cols - r.length).fill('')];
  const [head, ...body] = rows;
  const out = [`| ${pad(head!).join(' | ')} |`, `|${' --- |'.repeat(cols)}`];
  for (const r of body) out.push(`| ${pad(r).join(' | ')} |`);
  if (body.length === 0) out.push('');
  return out.join('\n');
}

export function renderMarkdown(
  root: SnapshotNode,
  opts: { links: boolean },
): { text: string; links: MarkdownLink[] } {
  const blocks: string[] = [];
  const links: MarkdownLink[] = [];
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
    if (isTable(n)) {
      flush();
      const t = gfmTable(n);
      if (t) blocks.push(t);
      return;
    }
    if (n.role === 'heading') {
      flush();
      blocks.push(`${'#'.repeat(Math.min(6, n.states?.level ?? 2))} ${flatText(n)}`);
      return;
    }
    if (n.role === 'link') {
      const text = flatText(n) || n.name;
      if (opts.links && n.url) {
        links.push({ text, href: n.url });
        inline.push(`[${text}](${n.url})`);
      } else inline.push(text);
      return;
    }
    if (n.role === 'listitem') {
      flush();
      blocks.push(`${'  '.repeat(Math.max(0, listDepth - 1))}- ${flatText(n)}`);
      return;
    }
    if (n.role === 'img') {
      if (n.name) inline.push(`![${n.name}]`);
      return;
    }
    const block = BLOCK_ROLES.has(n.role);
    if (block) flush();
    if (n.children.length === 0) {
      const own = flatText(n);
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
