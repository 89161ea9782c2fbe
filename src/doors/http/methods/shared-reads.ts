import { ops } from '../../../engine/api.js';
import type { DialogRecord } from '../../../engine/dialogs.js';
import type { Session } from '../../../engine/session.js';
import type { Data } from '../envelope.js';
import { type MethodContext, pageOrNone } from './common.js';

export interface TabEntry {
  index: number;
  url: string;
  title: string;
  current: boolean;
  pageId: string;
}

/** The task's tabs, 0-based, `current` = the operated tab (titles read fresh, bounded by the engine). */
export async function tabsOf(session: Session): Promise<TabEntry[]> {
  const infos = await ops.listTabs.call(session, {});
  return infos.map((p, index) => ({
    index,
    url: p.url,
    title: p.title,
    current: p.page_id === session.activePageId,
    pageId: p.page_id,
  }));
}

/** Wire form of the tab list (no engine page ids). */
export function wireTabs(tabs: TabEntry[]): Data[] {
  return tabs.map(({ index, url, title, current }) => ({ index, url, title, current }));
}

/** Door-side dialog marks per task: the seq of the last dialog consumed, per page. */
function consumed(ctx: MethodContext): Map<string, number> {
  const extra = ctx.task!.extra;
  let m = extra.dialogConsumed as Map<string, number> | undefined;
  if (!m) {
    m = new Map();
    extra.dialogConsumed = m;
  }
  return m;
}

/** The last dialog the operated tab saw, unless consumed (reference §8.12 get_dialog). */
export async function lastDialog(ctx: MethodContext): Promise<DialogRecord | null> {
  const page = pageOrNone(ctx);
  if (!page) return null;
  const all = await ops.dialogs.call(page, { since_seq: consumed(ctx).get(page.id) ?? 0 });
  return all.length > 0 ? all[all.length - 1]! : null;
}

export async function consumeDialog(ctx: MethodContext): Promise<boolean> {
  const d = await lastDialog(ctx);
  if (!d) return false;
  consumed(ctx).set(d.page_id, d.seq);
  return true;
}

export function dialogData(d: DialogRecord | null): Data | null {
  if (!d) return null;
  return {
    type: d.type,
    message: d.message,
    defaultValue: d.default_value,
    seq: d.seq,
    timestamp: Date.parse(d.opened_at),
    state: d.state,
  };
}

export async function dialogOf(ctx: MethodContext): Promise<Data | null> {
  return dialogData(await lastDialog(ctx));
}
