import { z } from 'zod';
import {
  countMatches,
  type ElementReadKind,
  type ReadTarget,
  readElement as readElementIn,
} from '../../../engine/element-reads.js';
import { TabwrightError } from '../../../engine/errors.js';
import type { Page } from '../../../engine/page.js';
import type { Data } from '../envelope.js';
import { indexTarget } from './act.js';
import {
  def,
  fail,
  indexSchema,
  type MethodContext,
  type MethodDef,
  pageOf,
  READ_TIMEOUT_MS,
} from './common.js';
import { frameIdFor, frameParam } from './target.js';

/**
 * Element reads (§8.4). An index reads the element its engine ref pins (stale = STALE_ELEMENT; the
 * index carries its frame, so `frame` is ignored with it); a selector reads the first match in the
 * main document or in `frame` (reads never act, so first-match is safe).
 */

type Reader = ElementReadKind;

const idxSel = {
  index: indexSchema.optional(),
  selector: z.string().min(1).optional(),
  frame: frameParam,
};

function readOne(page: Page, target: ReadTarget, reader: Reader, arg: unknown) {
  return readElementIn(page, target, reader, arg, { timeoutMs: READ_TIMEOUT_MS });
}

/** The reference's wording for a selector that is invalid or matches nothing; other errors pass through. */
function selectorFailure(ctx: MethodContext, selector: string, err: unknown): unknown {
  if (!(err instanceof TabwrightError)) return err;
  if (err.code === 'invalid_selector')
    return fail(ctx.method, 'ACTION_FAILED', `选择器无效：${String(err.details.cause ?? err.message)}`, {
      invalidArgument: true,
      field: 'selector',
    });
  if (err.code === 'element_not_found' && err.details.match_count === 0)
    return fail(
      ctx.method,
      'ELEMENT_NOT_FOUND',
      `选择器 ${selector} 没有匹配到任何元素（不是超时，也不是被遮挡）；可先用 get_element_count 核对`,
      { matched: 0 },
    );
  return err;
}

/** Reads one element; `target` says what was resolved. */
export async function readElement(
  ctx: MethodContext,
  p: { index?: number; selector?: string; frame?: string | number },
  reader: Reader,
  arg: unknown = null,
): Promise<{ value: unknown; target: string }> {
  const page = pageOf(ctx);
  if (p.index !== undefined) {
    const t = indexTarget(ctx, p.index);
    const r = await readOne(page, { element_ref: t.ref }, reader, arg);
    return { value: r.value, target: `index=${p.index}` };
  }
  if (p.selector === undefined) {
    throw fail(ctx.method, 'ACTION_FAILED', '缺少参数 index', { invalidArgument: true, field: 'index' });
  }
  const frame = await frameIdFor(ctx, p.frame);
  let r: Awaited<ReturnType<typeof readOne>>;
  try {
    r = await readOne(page, { selector: p.selector, frame }, reader, arg);
  } catch (err) {
    throw selectorFailure(ctx, p.selector, err);
  }
  return { value: r.value, target: `selector=${p.selector}` };
}

function reader(name: string, what: Reader, key: string, extra: Record<string, z.ZodType> = {}): MethodDef {
  return def({
    name,
    task: 'existing',
    schema: z.object({ ...idxSel, ...extra }),
    async run(ctx, p) {
      const r = await readElement(
        ctx,
        p as { index?: number; selector?: string; frame?: string | number },
        what,
        (p as Data).name ?? null,
      );
      const data: Data = { [key]: r.value, target: r.target };
      return data;
    },
  });
}

const getElementBox = def({
  name: 'get_element_box',
  task: 'existing',
  schema: z.object(idxSel),
  async run(ctx, p) {
    const r = await readElement(ctx, p, 'box');
    const box = r.value as { x: number; y: number; width: number; height: number };
    if (box.width <= 0 || box.height <= 0) {
      throw fail(ctx.method, 'ELEMENT_HIDDEN', '元素当前不可见（没有尺寸）', { target: r.target });
    }
    return { ...box, target: r.target };
  },
});

const getElementCount = def({
  name: 'get_element_count',
  task: 'existing',
  schema: z.object({ selector: z.string().min(1), frame: frameParam }),
  async run(ctx, p) {
    const frame = await frameIdFor(ctx, p.frame);
    let r: number;
    try {
      r = await countMatches(pageOf(ctx), p.selector, { timeoutMs: READ_TIMEOUT_MS, frame });
    } catch (err) {
      throw selectorFailure(ctx, p.selector, err);
    }
    return { count: r, selector: p.selector };
  },
});

const getElementListeners = def({
  name: 'get_element_listeners',
  task: 'existing',
  schema: z.object(idxSel),
  async run(ctx, p) {
    const r = await readElement(ctx, p, 'tag');
    return {
      found: true,
      tag: r.value,
      target: r.target,
      hasListeners: null,
      listeners: [],
      detection: 'heuristic',
      note: 'tabwright 不读取事件监听器列表：hasListeners 为 null 表示“不知道”，不是“没有”',
    };
  },
});

export const READS: MethodDef[] = [
  reader('get_element_text', 'text', 'text', { canvasOnly: z.boolean().optional() }),
  reader('get_element_html', 'html', 'html'),
  reader('get_element_value', 'value', 'value'),
  reader('get_element_attribute', 'attribute', 'value', { name: z.string().min(1) }),
  reader('is_visible', 'visible', 'visible'),
  reader('is_enabled', 'enabled', 'enabled'),
  reader('is_checked', 'checked', 'checked'),
  getElementBox,
  getElementCount,
  getElementListeners,
];
