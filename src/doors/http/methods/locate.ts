import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { ops, TabwrightError } from '../../../engine/api.js';
import { type Data, invalidArgument } from '../envelope.js';
import { act, click, clickFields, followNewTab, indexTarget, receiptData } from './act.js';
import {
  clickMode,
  type HttpMethod,
  indexSchema,
  type MethodContext,
  method,
  pageOf,
  READ_TIMEOUT_MS,
  timeoutMsSchema,
} from './common.js';
import { INPUT_REPLY, inputInto } from './index-actions.js';
import { CHOICE_REPLY, CLICK_REPLY, SWITCHED_REPLY } from './replies.js';
import { frameIdFor, frameParam, nthParam, selectorTarget } from './target.js';

/** Locating by selector, text or role (§8.5); every target resolves to exactly one element in the engine. */

/**
 * A selector target for an action, and what the receipt says about the choice (§8.5 `matched`,
 * `chosenIndex`, `visibleMatched`, `hiddenMatchNote`, `explicitNth`). Without nth the engine picks
 * (page.pick: visible first, then the one receiving the pointer; a tie is refused); with nth the
 * caller's match is located. Either way the action runs on that element's ref, so the receipt's
 * counts are the ones the choice was made from.
 */
async function chosenSelector(
  ctx: MethodContext,
  p: { selector: string; frame?: string | number; nth?: number },
): Promise<{ target: Target; choice: Data }> {
  if (p.nth !== undefined) {
    const target = await selectorTarget(ctx, p);
    const found = await ops.locate.call(pageOf(ctx), { target }, { timeoutMs: READ_TIMEOUT_MS });
    return {
      target: { element_ref: found.element_ref },
      choice: { matched: found.match_count, chosenIndex: p.nth, explicitNth: true },
    };
  }
  const frame = await frameIdFor(ctx, p.frame);
  const picked = await ops.pick.call(
    pageOf(ctx),
    { selector: p.selector, frame },
    { timeoutMs: READ_TIMEOUT_MS },
  );
  return { target: { element_ref: picked.element_ref }, choice: choiceData(picked) };
}

type Picked = Awaited<ReturnType<typeof ops.pick.call>>;

const PICK_REASONS: Record<string, string> = {
  only_visible: '只有这一个可见',
  none_visible: '全部不可见，用的是第一个',
  exact_text: '只有它的文字完全相同',
  clickable: '只有它可以点击（按钮、链接等）',
  receives_pointer: '只有它的中心点能接收点击（其余被遮挡或在视口外）',
};

/** The choice fields of a picked element (selector or text). */
function choiceData(picked: Picked): Data {
  const hidden = picked.matched - picked.visible_matched;
  return {
    matched: picked.matched,
    chosenIndex: picked.chosen_index,
    visibleMatched: picked.visible_matched,
    explicitNth: false,
    selectorNote:
      picked.matched > 1
        ? `匹配到 ${picked.matched} 个元素，用的是第 ${picked.chosen_index} 个（从 0 开始）：${PICK_REASONS[picked.reason] ?? picked.reason}`
        : undefined,
    hiddenMatchNote:
      hidden > 0
        ? picked.visible_matched === 0
          ? `匹配到的 ${picked.matched} 个元素都不可见：动作可能因此失败；请等元素出现（wait_for_element）或换选择器`
          : `另有 ${hidden} 个匹配不可见（例如隐藏的弹窗里的副本），没有使用`
        : undefined,
    tag: picked.tag,
    text: picked.text,
    outerHtml: picked.outer_html,
    animated: picked.animated || undefined,
  };
}

/**
 * The mode a receipt reports: an animated element is clicked with the real mouse where it is at
 * that moment (upstream's auto → mouse), whether or not it happened to hold still for the guard.
 */
function modeFor(requested: string | undefined, choice: Data): string | undefined {
  return choice.animated && (requested === undefined || requested === 'auto') ? 'mouse' : requested;
}

/** The element an action's selector means (page.pick: visible first …), as a ref, and the choice fields. */
export async function pickedSelector(
  ctx: MethodContext,
  selector: string,
): Promise<{ target: Target; choice: Data }> {
  const picked = await ops.pick.call(pageOf(ctx), { selector }, { timeoutMs: READ_TIMEOUT_MS });
  return { target: { element_ref: picked.element_ref }, choice: choiceData(picked) };
}

/** idx/sel parameters of an action: an index from the last snapshot, or a CSS selector (main document, picked). */
export async function idxOrSel(
  ctx: MethodContext,
  p: { index?: number; selector?: string },
): Promise<{ target: Target; desc: string; choice?: Data }> {
  if (p.index !== undefined)
    return { target: { element_ref: indexTarget(ctx, p.index).ref }, desc: `index=${p.index}` };
  if (p.selector !== undefined)
    return { ...(await pickedSelector(ctx, p.selector)), desc: `selector=${p.selector}` };
  throw invalidArgument(`${ctx.method} 失败：缺少参数 index`, { field: 'index' });
}

const clickBySelector = method({
  name: 'click_element_by_selector',
  summary: '点击 CSS 选择器匹配的唯一元素（多个匹配时用 nth）；打开新标签页时自动切换过去',
  ops: [ops.click, ops.pick, ops.locate, ops.activateTab],
  meta: {
    task: 'existing',
    evidence: true,
    receipt: true,
    reply: { ...CLICK_REPLY, ...CHOICE_REPLY, ...SWITCHED_REPLY },
  },
  params: z.object({
    selector: z.string().min(1),
    mode: clickMode,
    timeoutMs: timeoutMsSchema,
    frame: frameParam,
    nth: nthParam,
  }),
  async run(ctx, p) {
    const { target, choice } = await chosenSelector(ctx, p);
    const a = await click(ctx, target, clickFields(p.mode), p.timeoutMs);
    const switched = await followNewTab(ctx, a);
    const mode = modeFor(p.mode, choice);
    return { ...receiptData(a, { tag: choice.tag, text: choice.text }, mode), ...choice, ...switched };
  },
});

const inputBySelector = method({
  name: 'input_text_by_selector',
  summary: '替换 CSS 选择器匹配的输入框的内容（真实输入）',
  ops: [ops.fill, ops.type, ops.pick, ops.locate],
  meta: { task: 'existing', evidence: true, reply: { ...INPUT_REPLY, ...CHOICE_REPLY } },
  params: z.object({
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

const clickByText = method({
  name: 'click_element_by_text',
  summary:
    '点击显示这段文字的元素：先找可见的、文字完全相同的、可点击的（按钮、链接）；exact:true 要求全等；打开新标签页时自动切换过去',
  ops: [ops.click, ops.pick, ops.activateTab],
  meta: {
    task: 'existing',
    evidence: true,
    receipt: true,
    reply: {
      ...CLICK_REPLY,
      ...CHOICE_REPLY,
      tag: '点中元素的标签',
      text: '点中元素的文字',
      outerHtml: '点中元素的 HTML（前 300 个字符）',
      textMatch: 'exact（全等）或 contains（包含）',
      textCandidates: '文字匹配到的元素数',
      textClickable: '点中的元素是否可点击（按钮、链接、onclick…）',
      textMatchNote: '有多个匹配时为什么选了它',
      ...SWITCHED_REPLY,
    },
  },
  params: z.object({
    text: z.string().min(1),
    mode: clickMode,
    exact: z.boolean().optional(),
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    const picked = await ops.pick.call(
      pageOf(ctx),
      { text: p.text, exact: p.exact },
      { timeoutMs: READ_TIMEOUT_MS },
    );
    const a = await click(ctx, { element_ref: picked.element_ref }, clickFields(p.mode), p.timeoutMs);
    const switched = await followNewTab(ctx, a);
    const choice = choiceData(picked);
    const chosen = picked.candidates[picked.chosen_index];
    return {
      ...receiptData(a, { tag: picked.tag, text: picked.text }, modeFor(p.mode, choice)),
      ...choice,
      textMatch: picked.text_match,
      textLength: picked.text.length,
      textCandidates: picked.matched,
      textClickable: chosen?.clickable,
      textMatchNote: choice.selectorNote,
      selectorNote: undefined,
      ...switched,
    };
  },
});

const clickByRole = method({
  name: 'click_element_by_role',
  summary: '按角色和名称点击元素（如 role:"button", name:"提交"）',
  ops: [ops.click, ops.activateTab],
  meta: { task: 'existing', evidence: true, receipt: true, reply: { ...CLICK_REPLY, ...SWITCHED_REPLY } },
  params: z.object({
    role: z.string().min(1),
    name: z.string().optional(),
    exact: z.boolean().optional(),
    mode: clickMode,
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    const a = await click(
      ctx,
      { role: p.role, name: p.name, exact: p.exact },
      clickFields(p.mode),
      p.timeoutMs,
    );
    const switched = await followNewTab(ctx, a);
    return {
      ...receiptData(a, { role: a.receipt.target.role, name: a.receipt.target.name }, p.mode),
      ...switched,
    };
  },
});

const inputByLabel = method({
  name: 'input_text_by_label',
  summary: '替换标签（label 或 aria-label）为这段文字的输入框的内容',
  ops: [ops.fill, ops.type],
  meta: { task: 'existing', evidence: true, reply: INPUT_REPLY },
  params: z.object({
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

const clearText = method({
  name: 'clear_text',
  summary: '清空输入框（index 或 selector）',
  ops: [ops.fill, ops.pick],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { value: '清空后的值（应为空）', verified: '引擎是否核对过最终值' },
  },
  params: z.object({ ...idxSel, timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const { target } = await idxOrSel(ctx, p);
    const a = await act(ctx, 'other', p.timeoutMs, (page, w, o) =>
      ops.fill.call(page, { target, value: '', ...w }, o),
    );
    const v = a.receipt.changes.value?.after;
    return { value: typeof v === 'string' ? v : '', verified: a.receipt.verified ?? undefined };
  },
});

const hoverAndClick = method({
  name: 'hover_and_click',
  summary: '先悬停再立即点击同一个元素（悬停菜单），返回点击回执',
  ops: [ops.hover, ops.click, ops.pick],
  meta: {
    task: 'existing',
    evidence: true,
    receipt: true,
    reply: { ...CLICK_REPLY, text: '点中元素的名称' },
  },
  params: z.object({
    ...idxSel,
    hoverDelayMs: z.number().int().min(0).max(10_000).optional(),
    mode: clickMode,
  }),
  async run(ctx, p) {
    const { target, desc } = await idxOrSel(ctx, p);
    const hovered = await act(ctx, 'other', undefined, (page, w, o) =>
      ops.hover.call(page, { target, ...w }, o),
    );
    await sleep(p.hoverDelayMs ?? 300);
    // Click the element the hover resolved (same ref), not a fresh selector match.
    const ref = hovered.receipt.target.element_ref;
    const a = await click(ctx, ref ? { element_ref: ref } : target, clickFields(p.mode));
    const data: Data = receiptData(
      a,
      { target: desc, role: a.receipt.target.role, name: a.receipt.target.name },
      p.mode,
    );
    return { ...data, text: a.receipt.target.name };
  },
});

export const LOCATE: HttpMethod[] = [
  clickBySelector,
  inputBySelector,
  clickByText,
  clickByRole,
  inputByLabel,
  clearText,
  hoverAndClick,
];
