import { z } from 'zod';
import { keyDown, keyUp, mouseDown, mouseUp } from '../../../engine/held-input.js';
import { invalidArgument } from '../envelope.js';
import { actionSummary } from '../render/receipts.js';
import { act, receiptData } from './act.js';
import { def, type MethodContext, type MethodDef, pageOf, timeoutMsSchema } from './common.js';

const OPTS = { timeoutMs: 5_000 };

/** Mouse (§8.8): trusted input at CSS-pixel points of the viewport. */

const button = z.enum(['left', 'right', 'middle']).optional();
const clickCount = z.number().int().min(1).max(3).optional();

const mouseMove = def({
  name: 'mouse_move',
  task: 'existing',
  schema: z.object({ x: z.number(), y: z.number() }),
  async run(ctx, p) {
    const a = await act(ctx, { x: p.x, y: p.y }, { action: 'hover' });
    return { x: p.x, y: p.y, ...actionSummary(a.receipt) };
  },
});

const mouseClick = def({
  name: 'mouse_click',
  task: 'existing',
  receipt: true,
  schema: z.object({ x: z.number(), y: z.number(), button, clickCount }),
  async run(ctx, p) {
    const a = await act(
      ctx,
      { x: p.x, y: p.y },
      { action: 'click', button: p.button, click_count: p.clickCount ?? 1 },
    );
    return { x: p.x, y: p.y, ...receiptData(a, undefined, 'mouse') };
  },
});

const mouseClickBySelector = def({
  name: 'mouse_click_by_selector',
  task: 'existing',
  receipt: true,
  schema: z.object({ selector: z.string().min(1), button, clickCount, timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const a = await act(
      ctx,
      { selector: p.selector },
      { action: 'click', button: p.button, click_count: p.clickCount ?? 1 },
      p.timeoutMs,
    );
    return receiptData(a, undefined, 'mouse');
  },
});

const mouseWheel = def({
  name: 'mouse_wheel',
  task: 'existing',
  schema: z.object({ deltaY: z.number(), deltaX: z.number().optional() }),
  async run(ctx, p) {
    const a = await act(ctx, undefined, { action: 'scroll', dy: p.deltaY, dx: p.deltaX }, 10_000);
    return { deltaY: p.deltaY, ...actionSummary(a.receipt) };
  },
});

const held = (
  name: string,
  run: (
    ctx: MethodContext,
    p: { button?: 'left' | 'right' | 'middle'; keys?: string; key?: string },
  ) => Promise<void>,
) =>
  def({
    name,
    task: 'existing',
    schema: z.object({ button, keys: z.string().min(1).optional(), key: z.string().min(1).optional() }),
    async run(ctx, p) {
      await run(ctx, p);
      return { button: p.button, keys: p.keys ?? p.key };
    },
  });

function keyOf(ctx: MethodContext, p: { keys?: string; key?: string }): string {
  const k = p.keys ?? p.key;
  if (!k) throw invalidArgument(`${ctx.method} 失败：缺少参数 keys`, { field: 'keys' });
  return k;
}

export const MOUSE: MethodDef[] = [
  mouseMove,
  mouseClick,
  mouseClickBySelector,
  mouseWheel,
  held('mouse_down', (ctx, p) => mouseDown(pageOf(ctx), p.button ?? 'left', OPTS)),
  held('mouse_up', (ctx, p) => mouseUp(pageOf(ctx), p.button ?? 'left', OPTS)),
  held('key_down', (ctx, p) => keyDown(pageOf(ctx), keyOf(ctx, p), OPTS)),
  held('key_up', (ctx, p) => keyUp(pageOf(ctx), keyOf(ctx, p), OPTS)),
];
