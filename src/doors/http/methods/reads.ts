import { z } from 'zod';
import { ops, TabwrightError } from '../../../engine/api.js';
import type { ElementReadKind } from '../../../engine/element-reads.js';
import { type Data, invalidArgument } from '../envelope.js';
import { indexTarget } from './act.js';
import {
  fail,
  type HttpMethod,
  indexSchema,
  type MethodContext,
  method,
  pageOf,
  READ_TIMEOUT_MS,
  type ReplyFields,
} from './common.js';
import { frameIdFor, frameParam } from './target.js';

/**
 * Element reads (§8.4). An index reads the element its engine ref pins (stale = STALE_ELEMENT; the
 * index carries its frame, so `frame` is ignored with it); a selector reads the first match in the
 * main document or in `frame` (reads never act, so first-match is safe).
 */

const idxSel = {
  index: indexSchema.optional(),
  selector: z.string().min(1).optional(),
  frame: frameParam,
};

const TARGET_REPLY: ReplyFields = { target: '读的是哪个元素：index=N 或 selector=…' };

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
  kind: ElementReadKind,
  arg: unknown = null,
): Promise<{ value: unknown; target: string }> {
  const page = pageOf(ctx);
  const o = { timeoutMs: READ_TIMEOUT_MS };
  if (p.index !== undefined) {
    const t = indexTarget(ctx, p.index);
    const r = await ops.readOneElement.call(page, { target: { element_ref: t.ref }, kind, arg }, o);
    return { value: r.value, target: `index=${p.index}` };
  }
  if (p.selector === undefined) {
    throw invalidArgument(`${ctx.method} 失败：缺少参数 index`, { field: 'index' });
  }
  const frame = await frameIdFor(ctx, p.frame);
  try {
    const r = await ops.readOneElement.call(page, { target: { selector: p.selector, frame }, kind, arg }, o);
    return { value: r.value, target: `selector=${p.selector}` };
  } catch (err) {
    throw selectorFailure(ctx, p.selector, err);
  }
}

function reader(
  name: string,
  summary: string,
  kind: ElementReadKind,
  key: string,
  keyMeans: string,
  extra: z.ZodRawShape = {},
): HttpMethod {
  return method({
    name,
    summary,
    ops: [ops.readOneElement],
    meta: { task: 'existing', reply: { [key]: keyMeans, ...TARGET_REPLY } },
    params: z.object({ ...idxSel, ...extra }),
    async run(ctx, p) {
      // The attribute name (get_element_attribute); the other reads take no argument.
      const arg = 'name' in p && typeof p.name === 'string' ? p.name : null;
      // Upstream checks the target before the attribute name: a call with neither names index.
      if (kind === 'attribute' && p.index === undefined && p.selector === undefined)
        throw invalidArgument(`${name} 失败：缺少参数 index`, { field: 'index' });
      if (kind === 'attribute' && !arg)
        throw invalidArgument(`${name} 失败：缺少参数 name`, { field: 'name' });
      const r = await readElement(ctx, p, kind, arg);
      const data: Data = { [key]: r.value, target: r.target };
      return data;
    },
  });
}

const getElementBox = method({
  name: 'get_element_box',
  summary: '读取元素的位置和尺寸（CSS 像素）；元素不可见时失败',
  ops: [ops.readOneElement],
  meta: {
    task: 'existing',
    reply: { x: '左上角 x', y: '左上角 y', width: '宽', height: '高', ...TARGET_REPLY },
  },
  params: z.object(idxSel),
  async run(ctx, p) {
    const r = await readElement(ctx, p, 'box');
    const box = r.value as { x: number; y: number; width: number; height: number };
    if (box.width <= 0 || box.height <= 0) {
      throw fail(ctx.method, 'ELEMENT_HIDDEN', '元素当前不可见（没有尺寸）', { target: r.target });
    }
    return { ...box, target: r.target };
  },
});

const getElementCount = method({
  name: 'get_element_count',
  summary: 'CSS 选择器匹配的元素个数（主文档或 frame）',
  ops: [ops.count],
  meta: { task: 'existing', reply: { count: '匹配个数', selector: '查询的选择器' } },
  params: z.object({ selector: z.string().min(1), frame: frameParam }),
  async run(ctx, p) {
    const frame = await frameIdFor(ctx, p.frame);
    let r: number;
    try {
      r = await ops.count.call(pageOf(ctx), { selector: p.selector, frame }, { timeoutMs: READ_TIMEOUT_MS });
    } catch (err) {
      throw selectorFailure(ctx, p.selector, err);
    }
    return { count: r, selector: p.selector };
  },
});

const getElementListeners = method({
  name: 'get_element_listeners',
  summary: '元素的标签名；事件监听器列表不读取（hasListeners 为 null 表示不知道）',
  ops: [ops.readOneElement],
  meta: {
    task: 'existing',
    reply: {
      found: '找到了元素',
      tag: '标签名',
      hasListeners: 'null：不知道（不是“没有”）',
      listeners: '空列表（不读取）',
      detection: 'heuristic',
      note: '说明',
      ...TARGET_REPLY,
    },
  },
  params: z.object(idxSel),
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

export const READS: HttpMethod[] = [
  reader('get_element_text', '读取元素的可见文字（innerText）', 'text', 'text', '元素的可见文字', {
    canvasOnly: z.boolean().optional(),
  }),
  reader('get_element_html', '读取元素的 HTML（密码类字段的值不会出现）', 'html', 'html', '元素的 innerHTML'),
  reader('get_element_value', '读取输入框的当前值（密码类字段被遮盖）', 'value', 'value', '当前值'),
  reader('get_element_attribute', '读取元素的一个属性', 'attribute', 'value', '属性值（没有时省略）', {
    name: z.string().optional(),
  }),
  reader('is_visible', '元素是否可见', 'visible', 'visible', '是否可见'),
  reader('is_enabled', '元素是否可用（没有禁用）', 'enabled', 'enabled', '是否可用'),
  reader('is_checked', '复选框或单选框是否已勾选', 'checked', 'checked', '是否已勾选'),
  getElementBox,
  getElementCount,
  getElementListeners,
];
