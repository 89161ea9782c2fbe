import { setTimeout as sleep } from 'node:timers/promises';
import type { Receipt, Target } from '../../../engine/actions/types.js';
import { type OperationOptions, ops, TabwrightError } from '../../../engine/api.js';
import type { Page } from '../../../engine/page.js';
import type { Data } from '../envelope.js';
import { type Around, clickReceipt } from '../render/receipts.js';
import {
  ACTION_TIMEOUT_MS,
  budget,
  type MethodContext,
  plainFailure,
  READ_TIMEOUT_MS,
  sessionOf,
  urlOf,
} from './common.js';

/** The reference's observation window (§10.1 observationWindowMs). */
export const OBSERVE_MS = 500;

/** What an index points at: an engine ref from the task's last get_browser_state. */
export interface IndexTarget {
  ref: string;
  info: { tag: string; text: string; role: string; name: string; frame?: string; selector?: string };
}

/**
 * Index → engine ref (reference §9.9). No snapshot, a snapshot of another tab
 * or an index out of range is STALE_ELEMENT; a ref whose element is gone is
 * refused by the engine (stale_ref → STALE_ELEMENT). Never a different element.
 */
export function indexTarget(ctx: MethodContext, index: number): IndexTarget {
  const snap = ctx.task?.snapshot;
  if (!snap) {
    throw plainFailure(
      `${ctx.method} 失败：索引越界: ${index},当前没有页面快照,请先调用 get_browser_state 获取元素索引`,
      'STALE_ELEMENT',
      { index, noSnapshot: true },
    );
  }
  const page = sessionOf(ctx).page();
  if (snap.pageId !== page.id) {
    throw plainFailure(
      `${ctx.method} 失败：[STALE_ELEMENT] 索引 ${index} 来自另一个标签页的快照：切换标签页后请重新调用 get_browser_state`,
      'STALE_ELEMENT',
      { index },
    );
  }
  if (!Number.isInteger(index) || index < 0 || index >= snap.refs.length) {
    throw plainFailure(`${ctx.method} 索引越界: ${index}`, 'STALE_ELEMENT', {
      index,
      maxIndex: snap.refs.length - 1,
    });
  }
  return { ref: snap.refs[index]!, info: snap.info[index]! };
}

async function around(ctx: MethodContext): Promise<Around> {
  const session = sessionOf(ctx);
  let url = '';
  try {
    url = await urlOf(session.page());
  } catch {
    // no active page: leave empty
  }
  return { url, tabs: session.pages().length };
}

export interface Acted {
  receipt: Receipt;
  before: Around;
  after: Around;
  /** The element kept moving: it was clicked with the real mouse where it was (see `click`). */
  movingFallback?: { waitedMs: number; point: { x: number; y: number } };
}

/** The observation every action of this door asks for (the operations' observe fields). */
export interface ObserveWindow {
  observe_ms: number;
  observe_min_ms: number;
}

/**
 * One engine action on the operated tab (`call` runs the action's operation with the window and the
 * budget), with the task's URL / tab count around it. Clicks observe the reference's full 500 ms
 * window (§10.1), so late effects such as a popup opened from a timer are seen; other actions end
 * their window as soon as the page is quiet.
 */
export async function act(
  ctx: MethodContext,
  kind: 'click' | 'other',
  timeoutMs: number | undefined,
  call: (page: Page, window: ObserveWindow, opts: OperationOptions) => Promise<Receipt>,
): Promise<Acted> {
  const page = sessionOf(ctx).page();
  const before = await around(ctx);
  const click = kind === 'click';
  const receipt = await call(
    page,
    { observe_ms: OBSERVE_MS, observe_min_ms: click ? OBSERVE_MS : 0 },
    { timeoutMs: budget(timeoutMs, ACTION_TIMEOUT_MS) + (click ? OBSERVE_MS : 0) },
  );
  return { receipt, before, after: await around(ctx) };
}

/** A click receipt (§10.1), with `hit` describing the element the index/selector resolved to. */
export function receiptData(a: Acted, hit?: Data, requestedMode?: string): Data {
  const data = clickReceipt(a.receipt, a.before, a.after, hit, requestedMode);
  if (!a.movingFallback) return data;
  const { waitedMs, point } = a.movingFallback;
  return {
    ...data,
    mode: 'mouse',
    fallback: 'moving',
    movingNote: `元素一直在动（动画），等了 ${waitedMs} ms 也没有停下，已用真实鼠标点击它当时的中心点 (${Math.round(point.x)}, ${Math.round(point.y)})`,
  };
}

/** Switches the task to a tab the action opened (selector / text / role clicks, reference §8.5). */
export async function followNewTab(ctx: MethodContext, a: Acted): Promise<Data> {
  const opened = a.receipt.changes.new_pages;
  if (opened.length === 0) return {};
  const session = sessionOf(ctx);
  const last = opened[opened.length - 1]!;
  if (!session.hasPage(last.page_id)) return {};
  await ops.activateTab.call(session, { page_id: last.page_id }, { timeoutMs: 5_000 }).catch(() => undefined);
  const index = session.pages().findIndex((p) => p.id === last.page_id);
  return { switchedToNewTab: true, currentIndex: index >= 0 ? index : undefined };
}

/** `mode` of click methods → the click operation's fields: js = synthetic DOM events; auto / native / mouse = trusted input. */
export function clickFields(
  mode: string | undefined,
  clickCount = 1,
): { click_count: number; synthetic?: true } {
  return mode === 'js' ? { click_count: clickCount, synthetic: true } : { click_count: clickCount };
}

function isMoving(err: unknown): boolean {
  return (
    err instanceof TabwrightError &&
    err.code === 'element_not_actionable' &&
    err.details.reason === 'unstable'
  );
}

/**
 * A click on one target with the door's window: the click operation. An element that is moving
 * (a CSS animation, a layout shift) is waited for within half the budget; one that never stops
 * (an infinite animation) is then clicked with the real mouse where it is at that moment, as
 * upstream's `mode:"auto"` does (the receipt says `mode:"mouse"`, `fallback:"moving"`). Synthetic
 * (`mode:"js"`) clicks need no position and never take this path.
 */
export async function click(
  ctx: MethodContext,
  target: Target,
  fields: { click_count?: number; synthetic?: true; button?: 'left' | 'right' | 'middle' },
  timeoutMs?: number,
): Promise<Acted> {
  const run = (t: Target) =>
    act(ctx, 'click', timeoutMs, (page, w, o) => ops.click.call(page, { target: t, ...fields, ...w }, o));
  try {
    return await run(target);
  } catch (err) {
    if (!isMoving(err) || fields.synthetic || !('element_ref' in target)) throw err;
  }
  const started = Date.now();
  const waitUntil = started + budget(timeoutMs, ACTION_TIMEOUT_MS) / 2;
  while (Date.now() < waitUntil) {
    await sleep(100);
    try {
      return await run(target);
    } catch (err) {
      if (!isMoving(err)) throw err;
    }
  }
  const page = sessionOf(ctx).page();
  const read = await ops.readOneElement.call(page, { target, kind: 'box' }, { timeoutMs: READ_TIMEOUT_MS });
  const box = read.value as { x: number; y: number; width: number; height: number };
  const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const a = await run(point);
  return { ...a, movingFallback: { waitedMs: Date.now() - started, point } };
}
