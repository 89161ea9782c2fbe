import { z } from 'zod';
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

const READERS = {
  text: '(el) => (el.innerText ?? el.textContent ?? "")',
  html: '(el) => el.innerHTML',
  value: `(el) => ('value' in el ? ((el.type || '').toLowerCase() === 'password' && el.value !== '' ? '[redacted]' : String(el.value)) : null)`,
  attribute: '(el, name) => el.getAttribute(name)',
  box: '(el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }',
  visible:
    '(el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none" && Number(s.opacity) !== 0; }',
  enabled:
    '(el) => !(el.disabled === true || el.closest("fieldset:disabled") !== null || el.getAttribute("aria-disabled") === "true")',
  checked:
    '(el) => ("checked" in el && (el.type === "checkbox" || el.type === "radio") ? el.checked === true : el.getAttribute("aria-checked") === "true")',
  tag: '(el) => el.localName',
} as const;

type Reader = keyof typeof READERS;

const idxSel = {
  index: indexSchema.optional(),
  selector: z.string().min(1).optional(),
  frame: frameParam,
};

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
    const value = await page.evaluateRef(t.ref, READERS[reader], arg, { timeoutMs: READ_TIMEOUT_MS });
    return { value, target: `index=${p.index}` };
  }
  if (p.selector === undefined) {
    throw fail(ctx.method, 'ACTION_FAILED', '缺少参数 index', { invalidArgument: true, field: 'index' });
  }
  const src = `(() => {
    let list;
    try { list = document.querySelectorAll(${JSON.stringify(p.selector)}); } catch (e) { return { bad: String(e && e.message || e) }; }
    if (list.length === 0) return { none: true };
    return { count: list.length, value: (${READERS[reader]})(list[0], ${JSON.stringify(arg)}) };
  })()`;
  const frame = await frameIdFor(ctx, p.frame);
  const r = (await page.evaluateScript(src, { timeoutMs: READ_TIMEOUT_MS, frame })).value as {
    bad?: string;
    none?: boolean;
    count?: number;
    value?: unknown;
  };
  if (r.bad)
    throw fail(ctx.method, 'ACTION_FAILED', `选择器无效：${r.bad}`, {
      invalidArgument: true,
      field: 'selector',
    });
  if (r.none) {
    throw fail(
      ctx.method,
      'ELEMENT_NOT_FOUND',
      `选择器 ${p.selector} 没有匹配到任何元素（不是超时，也不是被遮挡）；可先用 get_element_count 核对`,
      {
        matched: 0,
      },
    );
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
    const r = (
      await pageOf(ctx).evaluateScript(
        `(() => { try { return document.querySelectorAll(${JSON.stringify(p.selector)}).length; } catch (e) { return -1; } })()`,
        { timeoutMs: READ_TIMEOUT_MS, frame },
      )
    ).value as number;
    if (r < 0)
      throw fail(ctx.method, 'ACTION_FAILED', `选择器无效：${p.selector}`, {
        invalidArgument: true,
        field: 'selector',
      });
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
