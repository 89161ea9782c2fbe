import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { TabwrightError } from '../../../engine/errors.js';
import { type Data, invalidArgument } from '../envelope.js';
import { act, clickSpec, followNewTab, indexTarget, receiptData } from './act.js';
import {
  clickMode,
  def,
  indexSchema,
  type MethodContext,
  type MethodDef,
  pageOf,
  READ_TIMEOUT_MS,
  timeoutMsSchema,
} from './common.js';
import { inputInto } from './index-actions.js';
import { frameParam, nthParam, selectorTarget } from './target.js';

/** Locating by selector, text or role (§8.5); every target resolves to exactly one element in the engine. */

/**
 * A selector target for an action, and what the receipt says about the choice (§8.5 `matched`,
 * `chosenIndex`, `explicitNth`). Without nth the engine requires exactly one match; with nth the
 * element is located first (one engine read: the count and the ref), then acted on by that ref,
 * so the receipt's count is the one the choice was made from.
 */
async function chosenSelector(
  ctx: MethodContext,
  p: { selector: string; frame?: string | number; nth?: number },
): Promise<{ target: Target; choice: Data }> {
  const target = await selectorTarget(ctx, p);
  if (p.nth === undefined) return { target, choice: { matched: 1, chosenIndex: 0, explicitNth: false } };
  const found = await pageOf(ctx).locate(target, { timeoutMs: READ_TIMEOUT_MS });
  return {
    target: { element_ref: found.element_ref },
    choice: { matched: found.match_count, chosenIndex: p.nth, explicitNth: true },
  };
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
    nth: nthParam,
  }),
  async run(ctx, p) {
    const { target, choice } = await chosenSelector(ctx, p);
    const a = await act(ctx, target, clickSpec(p.mode), p.timeoutMs);
    const switched = await followNewTab(ctx, a);
    return { ...receiptData(a, undefined, p.mode), ...choice, ...switched };
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
    nth: nthParam,
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    const { target, choice } = await chosenSelector(ctx, p);
    return { ...(await inputInto(ctx, target, p.text, p.mode, p.timeoutMs)), ...choice };
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
