import type { Receipt } from '../../engine/actions/types.js';
import { type TabwrightError, toTabwrightError } from '../../engine/api.js';
import type { NavigationOutcome, PageInfo } from '../../engine/page.js';
import { mcpWords } from './words.js';

/**
 * Engine results and errors → the compact text MCP clients show the model.
 * One line per fact, nothing the model did not need: tokens are the budget.
 */

/** Characters of a snapshot diff carried in an action reply before it is cut. */
export const DIFF_MAX_CHARS = 6000;

const VERB: Record<string, string> = {
  click: 'clicked',
  hover: 'hovered',
  focus: 'focused',
  type: 'typed into',
  fill: 'filled',
  press: 'pressed',
  select: 'selected in',
  check: 'checked',
  uncheck: 'unchecked',
  scroll: 'scrolled',
  drag: 'dragged',
  set_files: 'set files on',
};

export function q(s: string, max = 120): string {
  const t = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(t);
}

function targetText(r: Receipt): string {
  const t = r.target;
  if (t.element_ref) return t.element_ref;
  if (t.point) return `(${t.point.x},${t.point.y})`;
  if (t.role) return `${t.role}${t.name ? ` ${q(t.name, 40)}` : ''}`;
  return 'page';
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  const lines = text.slice(cut > 0 ? cut : max).split('\n').length;
  return `${text.slice(0, cut > 0 ? cut : max)}\n… ${lines} more lines; call snapshot for the rest`;
}

/** A receipt as a few lines, then the snapshot diff. */
export function renderReceipt(r: Receipt, extra?: string): string {
  const out: string[] = [];
  const c = r.changes;
  const what: string[] = [];
  if (c.navigated) what.push('navigated');
  if (c.text_changed) what.push('text');
  if (c.structure_changed) what.push('structure');
  if (c.form_changed) what.push('form');
  let head = `${r.status === 'executed' ? '' : 'OUTCOME UNKNOWN: '}${VERB[r.action] ?? r.action} ${targetText(r)}`;
  if (extra) head += ` ${extra}`;
  head +=
    r.change_status === 'unknown'
      ? '; change unknown'
      : r.changed
        ? `; changed${what.length ? ` (${what.join(', ')})` : ''}`
        : '; no visible change';
  if (r.verified !== null) head += `; verified ${r.verified}`;
  if (r.requests.count) head += `; ${r.requests.count} request${r.requests.count === 1 ? '' : 's'}`;
  if (r.requests.failed) head += ` (${r.requests.failed} failed)`;
  out.push(head);
  if (c.url) out.push(`url: ${c.url.after}`);
  if (c.title) out.push(`title: ${q(c.title.after)}`);
  if (c.value && c.value.before !== c.value.after && r.action !== 'type')
    out.push(`value: ${JSON.stringify(c.value.before)} → ${JSON.stringify(c.value.after)}`);
  for (const p of c.new_pages) out.push(`new tab ${p.page_id}: ${p.url}`);
  if (r.dialog) out.push(`dialog ${r.dialog.type}: ${q(r.dialog.message)}`);
  if (r.file_chooser)
    out.push(
      `file chooser opened for ${r.file_chooser.input.selector ?? 'a file input'} (nothing chosen; send the files with upload)`,
    );
  for (const d of r.downloads) out.push(`download ${d.download_id}: ${d.suggested_filename}`);
  if (r.verification && !r.verification.satisfied) out.push('verify: not satisfied');
  if (r.hint) out.push(`hint: ${mcpWords(r.hint)}`);
  for (const w of r.warnings) out.push(`warning: ${mcpWords(w)}`);
  if (r.diff && r.diff !== '(no changes)') out.push(clip(r.diff, DIFF_MAX_CHARS));
  return out.join('\n');
}

export function renderNavigation(n: NavigationOutcome): string {
  let s = `${n.page_id}: ${n.url}`;
  if (n.status !== null && n.status !== 200) s += ` (HTTP ${n.status})`;
  if (n.title) s += ` ${q(n.title)}`;
  if (n.download) s += `\ndownload ${n.download.download_id}: ${n.download.suggested_filename}`;
  return s;
}

export function renderPages(pages: PageInfo[]): string {
  if (!pages.length) return 'no open tabs';
  return pages.map((p) => `${p.active ? '*' : ' '} ${p.page_id} ${q(p.title, 60)} ${p.url}`).join('\n');
}

function short(v: unknown): string {
  const s = JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** An engine error as the tool error text: code, reason, what to do next, and the telling details. */
export function renderError(err: unknown): string {
  const e: TabwrightError = toTabwrightError(err);
  const d = e.details;
  const reason = typeof d.reason === 'string' ? `/${d.reason}` : '';
  const lines = [`Error ${e.code}${reason}${e.retryable ? ' (retryable)' : ''}: ${mcpWords(e.message)}`];
  for (const k of ['covered_by', 'candidates', 'match_count', 'outcome', 'field', 'failed', 'conditions']) {
    if (d[k] !== undefined) lines.push(`${k}: ${short(d[k])}`);
  }
  return lines.join('\n');
}
