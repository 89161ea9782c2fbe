import { z } from 'zod';
import { actionSummary } from '../render/receipts.js';
import { act, receiptData } from './act.js';
import { def, fail, type MethodDef, timeoutMsSchema } from './common.js';

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

/** Held buttons and keys need press/release primitives the engine's trusted input does not expose yet. */
function unsupported(name: string): MethodDef {
  return def({
    name,
    task: 'existing',
    schema: z.object({ button, keys: z.string().optional() }),
    async run(ctx) {
      throw fail(
        ctx.method,
        'ACTION_FAILED',
        `${ctx.method} 尚未支持：引擎的真实输入目前只有完整的点击 / 拖拽 / 按键（mouse_click、drag_element_by_index、send_keys），没有单独按下或松开`,
        { notImplemented: true },
      );
    },
  });
}

export const MOUSE: MethodDef[] = [
  mouseMove,
  mouseClick,
  mouseClickBySelector,
  mouseWheel,
  unsupported('mouse_down'),
  unsupported('mouse_up'),
  unsupported('key_down'),
  unsupported('key_up'),
];
