import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { TabwrightError } from '../../../engine/errors.js';
import { type Data, invalidArgument } from '../envelope.js';
import { act, clickSpec, followNewTab, indexTarget, receiptData } from './act.js';
import {
  clickMode,
  def,
  fail,
  indexSchema,
  type MethodContext,
  type MethodDef,
  timeoutMsSchema,
} from './common.js';
import { inputInto } from './index-actions.js';

/** Locating by selector, text or role (§8.5); every target resolves to exactly one element in the engine. */

const frameParam = z.union([z.string(), z.number()]).optional();

function mainFrameOnly(ctx: MethodContext, frame: string | number | undefined): void {
  if (frame !== undefined && frame !== 0 && frame !== '0') {
    throw fail(
      ctx.method,
      'ACTION_FAILED',
      '按 frame 定位尚未支持：请用 get_browser_state 的 index（索引自带所在框架）',
      {
        notImplemented: ['frame'],
      },
    );
  }
}

function noNth(ctx: MethodContext, nth: number | undefined): void {
  if (nth !== undefined && nth !== 0) {
    throw fail(
      ctx.method,
      'ACTION_FAILED',
      'nth 尚未支持：tabwright 的选择器必须唯一匹配一个元素（不会猜），请把选择器写得更具体，或用 get_browser_state 的 index',
      { notImplemented: ['nth'] },
    );
  }
}

/** idx/sel parameters: an index from the last snapshot, or a CSS selector (main document). */
export function idxOrSel(
  ctx: MethodContext,
  p: { index?: number; selector?: string },
): { target: Target; desc: string } {
  if (p.index !== undefined)
    return { target: { element_ref: indexTarget(ctx, p.index).ref }, desc: `index=${p.index}` };
  if (p.selector !== undefined) return { target: { selector: p.selector }, desc: `selector=${p.selector}` };
  throw invalidArgument(`${ctx.method} 失败：缺少参数 index`, { field: 'index' });
}

const clickBySelector = def({
  name: 'click_element_by_selector',
  task: 'existing',
  receipt: true,
  schema: z.object({
    selector: z.string().min(1),
    mode: clickMode,
    timeoutMs: timeoutMsSchema,
    frame: frameParam,
    nth: z.number().int().min(0).optional(),
  }),
  async run(ctx, p) {
    mainFrameOnly(ctx, p.frame);
    noNth(ctx, p.nth);
    const a = await act(ctx, { selector: p.selector }, clickSpec(p.mode), p.timeoutMs);
    const switched = await followNewTab(ctx, a);
    return {
      ...receiptData(a, undefined, p.mode),
      matched: 1,
      chosenIndex: 0,
      visibleMatched: 1,
      ...switched,
    };
  },
});

const inputBySelector = def({
  name: 'input_text_by_selector',
  task: 'existing',
  schema: z.object({
    selector: z.string().min(1),
    text: z.string(),
    mode: z.enum(['auto', 'native', 'type', 'js', 'fill']).optional(),
    frame: frameParam,
    nth: z.number().int().min(0).optional(),
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    mainFrameOnly(ctx, p.frame);
    noNth(ctx, p.nth);
    return inputInto(ctx, { selector: p.selector }, p.text, p.mode, p.timeoutMs);
  },
});

const clickByText = def({
  name: 'click_element_by_text',
  task: 'existing',
  receipt: true,
  schema: z.object({
    text: z.string().min(1),
    mode: clickMode,
    exact: z.boolean().optional(),
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    const a = await act(ctx, { text: p.text, exact: p.exact }, clickSpec(p.mode), p.timeoutMs);
    const switched = await followNewTab(ctx, a);
    const t = a.receipt.target;
    return {
      ...receiptData(a, { role: t.role, name: t.name }, p.mode),
      text: t.name,
      textMatch: p.exact ? 'exact' : 'contains',
      ...switched,
    };
  },
});

const clickByRole = def({
  name: 'click_element_by_role',
  task: 'existing',
  receipt: true,
  schema: z.object({
    role: z.string().min(1),
    name: z.string().optional(),
    exact: z.boolean().optional(),
    mode: clickMode,
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    const a = await act(ctx, { role: p.role, name: p.name, exact: p.exact }, clickSpec(p.mode), p.timeoutMs);
    const switched = await followNewTab(ctx, a);
    return {
      ...receiptData(a, { role: a.receipt.target.role, name: a.receipt.target.name }, p.mode),
      ...switched,
    };
  },
});

const inputByLabel = def({
  name: 'input_text_by_label',
  task: 'existing',
  schema: z.object({
    label: z.string().min(1),
    text: z.string(),
    mode: z.enum(['auto', 'native', 'type', 'js', 'fill']).optional(),
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    let last: unknown;
    for (const role of ['textbox', 'searchbox', 'combobox', 'spinbutton']) {
      try {
        return await inputInto(ctx, { role, name: p.label }, p.text, p.mode, p.timeoutMs);
      } catch (err) {
        if (
          !(
            err instanceof TabwrightError &&
            err.code === 'element_not_found' &&
            err.details.reason !== 'ambiguous'
          )
        )
          throw err;
        last = err;
      }
    }
    throw last;
  },
});

const idxSel = { index: indexSchema.optional(), selector: z.string().min(1).optional() };

const clearText = def({
  name: 'clear_text',
  task: 'existing',
  schema: z.object({ ...idxSel, timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const { target } = idxOrSel(ctx, p);
    const a = await act(ctx, target, { action: 'fill', value: '' }, p.timeoutMs);
    const v = a.receipt.changes.value?.after;
    return { value: typeof v === 'string' ? v : '', verified: a.receipt.verified ?? undefined };
  },
});

const hoverAndClick = def({
  name: 'hover_and_click',
  task: 'existing',
  receipt: true,
  schema: z.object({
    ...idxSel,
    hoverDelayMs: z.number().int().min(0).max(10_000).optional(),
    mode: clickMode,
  }),
  async run(ctx, p) {
    const { target, desc } = idxOrSel(ctx, p);
    const hovered = await act(ctx, target, { action: 'hover' });
    await sleep(p.hoverDelayMs ?? 300);
    // Click the element the hover resolved (same ref), not a fresh selector match.
    const ref = hovered.receipt.target.element_ref;
    const a = await act(ctx, ref ? { element_ref: ref } : target, clickSpec(p.mode));
    const data: Data = receiptData(
      a,
      { target: desc, role: a.receipt.target.role, name: a.receipt.target.name },
      p.mode,
    );
    return { ...data, text: a.receipt.target.name };
  },
});

export const LOCATE: MethodDef[] = [
  clickBySelector,
  inputBySelector,
  clickByText,
  clickByRole,
  inputByLabel,
  clearText,
  hoverAndClick,
];
