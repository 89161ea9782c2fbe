import { z } from 'zod';
import { type OperationInfo, ops } from '../../../engine/api.js';
import { invalidArgument } from '../envelope.js';
import { actionSummary } from '../render/receipts.js';
import { act, click, receiptData } from './act.js';
import { type HttpMethod, type MethodContext, method, pageOf, timeoutMsSchema } from './common.js';
import { pickedSelector } from './locate.js';
import { ACTION_REPLY, CHOICE_REPLY, CLICK_REPLY } from './replies.js';

const OPTS = { timeoutMs: 5_000 };

/** Mouse (§8.8): trusted input at CSS-pixel points of the viewport. */

const button = z.enum(['left', 'right', 'middle']).optional();
const clickCount = z.number().int().min(1).max(3).optional();

const mouseMove = method({
  name: 'mouse_move',
  summary: '把鼠标移到视口坐标 (x, y)（CSS 像素）',
  ops: [ops.hover],
  meta: { task: 'existing', evidence: true, reply: { x: 'x', y: 'y', ...ACTION_REPLY } },
  params: z.object({ x: z.number(), y: z.number() }),
  async run(ctx, p) {
    const a = await act(ctx, 'other', undefined, (page, w, o) =>
      ops.hover.call(page, { target: { x: p.x, y: p.y }, ...w }, o),
    );
    return { x: p.x, y: p.y, ...actionSummary(a.receipt) };
  },
});

const mouseClick = method({
  name: 'mouse_click',
  summary: '在视口坐标 (x, y) 真实点击（button、clickCount），返回点击回执',
  ops: [ops.click],
  meta: { task: 'existing', evidence: true, receipt: true, reply: { x: 'x', y: 'y', ...CLICK_REPLY } },
  params: z.object({ x: z.number(), y: z.number(), button, clickCount }),
  async run(ctx, p) {
    const a = await click(ctx, { x: p.x, y: p.y }, { button: p.button, click_count: p.clickCount ?? 1 });
    return { x: p.x, y: p.y, ...receiptData(a, undefined, 'mouse') };
  },
});

const mouseClickBySelector = method({
  name: 'mouse_click_by_selector',
  summary: '在选择器匹配的元素中心真实点击，返回点击回执',
  ops: [ops.click, ops.pick],
  meta: { task: 'existing', evidence: true, receipt: true, reply: { ...CLICK_REPLY, ...CHOICE_REPLY } },
  params: z.object({ selector: z.string().min(1), button, clickCount, timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const { target, choice } = await pickedSelector(ctx, p.selector);
    const a = await click(ctx, target, { button: p.button, click_count: p.clickCount ?? 1 }, p.timeoutMs);
    return { ...receiptData(a, { tag: choice.tag, text: choice.text }, 'mouse'), ...choice };
  },
});

const mouseWheel = method({
  name: 'mouse_wheel',
  summary: '滚动鼠标滚轮（deltaY 正数向下，deltaX 横向）',
  ops: [ops.scroll],
  meta: { task: 'existing', evidence: true, reply: { deltaY: 'deltaY', ...ACTION_REPLY } },
  params: z.object({ deltaY: z.number(), deltaX: z.number().optional() }),
  async run(ctx, p) {
    const a = await act(ctx, 'other', 10_000, (page, w, o) =>
      ops.scroll.call(page, { target: undefined, dy: p.deltaY, dx: p.deltaX, ...w }, o),
    );
    return { deltaY: p.deltaY, ...actionSummary(a.receipt) };
  },
});

const heldParams = z.object({
  button,
  keys: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
});
const HELD_REPLY = { button: '回显的 button', keys: '回显的键' };

function keyOf(ctx: MethodContext, p: { keys?: string; key?: string }): string {
  const k = p.keys ?? p.key;
  if (!k) throw invalidArgument(`${ctx.method} 失败：缺少参数 keys`, { field: 'keys' });
  return k;
}

/** Held buttons and keys (no element, no receipt): `press` calls the hold / release operation. */
function held(
  name: string,
  op: OperationInfo,
  summary: string,
  press: (ctx: MethodContext, p: z.output<typeof heldParams>) => Promise<void>,
): HttpMethod {
  return method({
    name,
    summary,
    ops: [op],
    meta: { task: 'existing', evidence: true, reply: HELD_REPLY },
    params: heldParams,
    async run(ctx, p) {
      await press(ctx, p);
      return { button: p.button, keys: p.keys ?? p.key };
    },
  });
}

export const MOUSE: HttpMethod[] = [
  mouseMove,
  mouseClick,
  mouseClickBySelector,
  mouseWheel,
  held('mouse_down', ops.holdButton, '在当前位置按下鼠标键不放（之后一定要 mouse_up）', (ctx, p) =>
    ops.holdButton.call(pageOf(ctx), { button: p.button ?? 'left' }, OPTS),
  ),
  held('mouse_up', ops.releaseButton, '松开按住的鼠标键', (ctx, p) =>
    ops.releaseButton.call(pageOf(ctx), { button: p.button ?? 'left' }, OPTS),
  ),
  held('key_down', ops.holdKey, '按下一个键不放（keys）', (ctx, p) =>
    ops.holdKey.call(pageOf(ctx), { key: keyOf(ctx, p) }, OPTS),
  ),
  held('key_up', ops.releaseKey, '松开按住的键', (ctx, p) =>
    ops.releaseKey.call(pageOf(ctx), { key: keyOf(ctx, p) }, OPTS),
  ),
];
