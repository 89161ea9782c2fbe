import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { ops } from '../../../engine/api.js';
import { type Data, invalidArgument } from '../envelope.js';
import { actionSummary } from '../render/receipts.js';
import { act, click, clickFields, indexTarget, receiptData } from './act.js';
import {
  budget,
  clickMode,
  fail,
  type HttpMethod,
  indexSchema,
  type MethodContext,
  method,
  pageOf,
  READ_TIMEOUT_MS,
  timeoutMsSchema,
} from './common.js';
import { ACTION_REPLY, CLICK_REPLY } from './replies.js';
import { waitFor } from './waits.js';

function hitOf(index: number, t: ReturnType<typeof indexTarget>): Data {
  return { index, tag: t.info.tag, text: t.info.text || t.info.name || undefined };
}

function clickByIndex(name: string, clicks: number, summary: string): HttpMethod {
  return method({
    name,
    summary,
    ops: [ops.click],
    meta: { task: 'existing', evidence: true, receipt: true, reply: CLICK_REPLY },
    params: z.object({ index: indexSchema, mode: clickMode, timeoutMs: timeoutMsSchema }),
    async run(ctx, p) {
      const t = indexTarget(ctx, p.index);
      const a = await click(ctx, { element_ref: t.ref }, clickFields(p.mode, clicks), p.timeoutMs);
      return receiptData(a, hitOf(p.index, t), p.mode);
    },
  });
}

function moveToIndex(name: string, action: 'hover' | 'focus', summary: string): HttpMethod {
  const op = action === 'hover' ? ops.hover : ops.focus;
  return method({
    name,
    summary,
    ops: [op],
    meta: { task: 'existing', evidence: true, reply: ACTION_REPLY },
    params: z.object({ index: indexSchema, timeoutMs: timeoutMsSchema }),
    async run(ctx, p) {
      const target = { element_ref: indexTarget(ctx, p.index).ref };
      const a = await act(ctx, 'other', p.timeoutMs, (page, w, o) => op.call(page, { target, ...w }, o));
      return actionSummary(a.receipt);
    },
  });
}

function checkByIndex(name: string, checked: boolean, summary: string): HttpMethod {
  const op = checked ? ops.check : ops.uncheck;
  return method({
    name,
    summary,
    ops: [op],
    meta: {
      task: 'existing',
      evidence: true,
      reply: { ...ACTION_REPLY, checked: checked ? 'true：已勾选' : 'false：已取消勾选' },
    },
    params: z.object({ index: indexSchema, mode: clickMode, timeoutMs: timeoutMsSchema }),
    async run(ctx, p) {
      const target = { element_ref: indexTarget(ctx, p.index).ref };
      const a = await act(ctx, 'other', p.timeoutMs, (page, w, o) => op.call(page, { target, ...w }, o));
      return { ...actionSummary(a.receipt), checked };
    },
  });
}

const INPUT_MODES = z.enum(['auto', 'native', 'type', 'js', 'fill']).optional();

export const INPUT_REPLY = {
  mode: '实际使用的方式：native（替换内容）或 type（逐键输入）',
  committed: '值是通过真实输入写入的（框架的数据模型能收到）',
  ...ACTION_REPLY,
};

/** input_text / input_text_by_*: replace the content (fill), or key by key with mode "type". */
export async function inputInto(
  ctx: MethodContext,
  target: Target,
  text: string,
  mode: string | undefined,
  timeoutMs: number | undefined,
): Promise<Data> {
  if (mode === 'js') {
    throw fail(
      ctx.method,
      'ACTION_FAILED',
      'mode=js（用脚本直接改 value）不受支持：tabwright 只用真实输入，这样框架的数据模型一定能收到；请去掉 mode 或用 native / type',
      { unsupportedMode: 'js' },
    );
  }
  const a =
    mode === 'type'
      ? await act(ctx, 'other', timeoutMs, (page, w, o) =>
          ops.type.call(page, { target, text, replace: true, key_by_key: true, ...w }, o),
        )
      : await act(ctx, 'other', timeoutMs, (page, w, o) =>
          ops.fill.call(page, { target, value: text, ...w }, o),
        );
  return {
    mode: mode === 'type' ? 'type' : 'native',
    committed: true,
    ...actionSummary(a.receipt),
  };
}

const inputText = method({
  name: 'input_text',
  summary: '替换索引指向的输入框的内容（真实输入；mode:"type" 逐键输入）',
  ops: [ops.fill, ops.type],
  meta: { task: 'existing', evidence: true, reply: INPUT_REPLY },
  params: z.object({
    index: indexSchema,
    text: z.string().min(1),
    mode: INPUT_MODES,
    timeoutMs: timeoutMsSchema,
  }),
  async run(ctx, p) {
    const t = indexTarget(ctx, p.index);
    return inputInto(ctx, { element_ref: t.ref }, p.text, p.mode, p.timeoutMs);
  },
});

const typeText = method({
  name: 'type_text',
  summary: '在索引指向的元素里逐键输入文字（不清空原内容）',
  ops: [ops.type],
  meta: { task: 'existing', evidence: true, reply: { mode: 'type', ...ACTION_REPLY } },
  params: z.object({ index: indexSchema, text: z.string().min(1), timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const target = { element_ref: indexTarget(ctx, p.index).ref };
    const a = await act(ctx, 'other', p.timeoutMs, (page, w, o) =>
      ops.type.call(page, { target, text: p.text, key_by_key: true, ...w }, o),
    );
    return { mode: 'type', ...actionSummary(a.receipt) };
  },
});

const dragByIndex = method({
  name: 'drag_element_by_index',
  summary: '把 index 指向的元素拖到 targetIndex 指向的元素上',
  ops: [ops.drag],
  meta: { task: 'existing', evidence: true, reply: ACTION_REPLY },
  params: z.object({ index: indexSchema, targetIndex: indexSchema, timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const from = indexTarget(ctx, p.index);
    const to = indexTarget(ctx, p.targetIndex);
    const a = await act(ctx, 'other', p.timeoutMs, (page, w, o) =>
      ops.drag.call(page, { target: { element_ref: from.ref }, to: { element_ref: to.ref }, ...w }, o),
    );
    return actionSummary(a.receipt);
  },
});

/** A key name or chord (`Enter`, `F5`, `Control+A`): pressed; anything else is typed character by character. */
const KEY_NAME =
  /^((Control|Ctrl|Shift|Alt|Meta|ControlOrMeta|Command|Cmd)\+)*(Enter|Tab|Escape|Esc|Backspace|Delete|Insert|Home|End|PageUp|PageDown|Arrow(Up|Down|Left|Right)|Space|F\d{1,2}|[A-Za-z0-9])$/;

/**
 * Free text is typed key by key into the focused element, as one engine action under one deadline
 * (the engine stops between keys when it passes). Bounded all the same: at most this many
 * characters; longer text belongs in input_text / type_text.
 */
export const MAX_SEND_KEYS_CHARS = 500;

const keysParam = z
  .string()
  .min(1)
  .max(
    MAX_SEND_KEYS_CHARS,
    `最多 ${MAX_SEND_KEYS_CHARS} 个字符（文本会逐键发送）；更长的文本请用 input_text 或 type_text（按索引）输入`,
  );

/** Upstream's `focused` / `focusNote`: where the keys went (the page itself when nothing has focus). */
async function focusData(ctx: MethodContext, typing: boolean): Promise<Data> {
  const f = await ops.focused.call(pageOf(ctx), {}, { timeoutMs: 2_000 }).catch(() => undefined);
  if (f === undefined) return {};
  if (f === null)
    return {
      focused: false,
      focusNote: typing
        ? '没有元素获得焦点：文字发给了页面本身，多半没有输入到任何地方；先用 focus_element_by_index 或 click_element_by_index 选中输入框'
        : '没有元素获得焦点：按键发给了页面本身（快捷键可以这样用；要输入到某个框里请先聚焦它）',
    };
  const what = `<${f.tag}${f.type ? ` type=${f.type}` : ''}>${f.name ? ` ${f.name}` : ''}`;
  return {
    focused: true,
    focusedElement: { tag: f.tag, type: f.type, name: f.name, editable: f.editable },
    focusNote:
      typing && !f.editable ? `焦点在 ${what} 上，它不接受文字输入：文字可能没有输入进去` : undefined,
  };
}

async function sendKeys(ctx: MethodContext, keys: string): Promise<Data> {
  const page = pageOf(ctx);
  const o = { timeoutMs: budget(undefined, READ_TIMEOUT_MS) };
  const typing = !(KEY_NAME.test(keys) && (keys.length > 1 || keys.includes('+')));
  const focus = await focusData(ctx, typing);
  if (KEY_NAME.test(keys) && (keys.length > 1 || keys.includes('+'))) {
    const chord = keys
      .replace(/^Ctrl\+/, 'Control+')
      .replace(/\bEsc$/, 'Escape')
      .replace(/\bSpace$/, ' ');
    const r = await ops.press.call(page, { target: undefined, key: chord }, o);
    return { mode: 'press', keys, ...focus, ...actionSummary(r) };
  }
  const r = await ops.type.call(page, { target: undefined, text: keys, key_by_key: true }, o);
  return { mode: 'type', text: keys, ...focus, ...actionSummary(r) };
}

const SEND_KEYS_REPLY = {
  mode: 'press = 按键或组合键；type = 逐字输入的文字',
  keys: '按下的键（mode 为 press 时）',
  text: '输入的文字（mode 为 type 时）',
  focused: '按键前是否有元素获得焦点（false：发给了页面本身）',
  focusedElement: '获得焦点的元素：tag, type, name, editable',
  focusNote: '焦点可能不对时的说明',
  ...ACTION_REPLY,
};

const sendKeysMethod = method({
  name: 'send_keys',
  summary: '向有焦点的元素按键（Enter、Control+A 等）或逐字输入文字',
  ops: [ops.press, ops.type],
  meta: { task: 'existing', evidence: true, reply: SEND_KEYS_REPLY },
  params: z.object({ keys: keysParam }),
  run: (ctx, p) => sendKeys(ctx, p.keys),
});

const pressKey = method({
  name: 'press_key',
  summary: 'send_keys 的别名（参数 key 或 keys）',
  ops: [ops.press, ops.type],
  meta: { task: 'existing', evidence: true, reply: SEND_KEYS_REPLY },
  params: z.object({ key: keysParam.optional(), keys: keysParam.optional() }),
  async run(ctx, p) {
    const k = p.key ?? p.keys;
    if (!k) throw invalidArgument(`${ctx.method} 失败：缺少参数 key`, { field: 'key' });
    return sendKeys(ctx, k);
  },
});

const getDropdownOptions = method({
  name: 'get_dropdown_options',
  summary: '读取索引指向的下拉框（select）的选项文字',
  ops: [ops.readOneElement],
  meta: { task: 'existing', reply: { options: '选项的文字（label）', count: '选项个数' } },
  params: z.object({ index: indexSchema }),
  async run(ctx, p) {
    const t = indexTarget(ctx, p.index);
    const read = await ops.readOneElement.call(
      pageOf(ctx),
      { target: { element_ref: t.ref }, kind: 'options' },
      { timeoutMs: READ_TIMEOUT_MS },
    );
    const options = read.value as string[] | null;
    if (options === null) {
      throw fail(ctx.method, 'ACTION_FAILED', `索引 ${p.index} 不是下拉框（select）`, { index: p.index });
    }
    return { options, count: options.length };
  },
});

const selectDropdownOption = method({
  name: 'select_dropdown_option',
  summary: '在索引指向的下拉框里按文字（label）选中一项',
  ops: [ops.select],
  meta: { task: 'existing', evidence: true, reply: { selected: '选中的选项文字', ...ACTION_REPLY } },
  params: z.object({ index: indexSchema, text: z.string().min(1), timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const target = { element_ref: indexTarget(ctx, p.index).ref };
    const a = await act(ctx, 'other', p.timeoutMs, (page, w, o) =>
      ops.select.call(page, { target, labels: [p.text], ...w }, o),
    );
    return { selected: p.text, ...actionSummary(a.receipt) };
  },
});

const scroll = method({
  name: 'scroll',
  summary: '按页滚动页面（或索引指向的元素）：down:true 向下，否则向上',
  ops: [ops.scroll],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { direction: 'down 或 up', numPages: '滚动的页数', ...ACTION_REPLY },
  },
  params: z.object({
    down: z.boolean().optional(),
    numPages: z.number().positive().max(100),
    index: indexSchema.optional(),
  }),
  async run(ctx, p) {
    const pages = (p.down ? 1 : -1) * p.numPages;
    const target = p.index !== undefined ? { element_ref: indexTarget(ctx, p.index).ref } : undefined;
    const a = await act(ctx, 'other', 10_000, (page, w, o) =>
      ops.scroll.call(page, { target, pages, ...w }, o),
    );
    return { direction: p.down ? 'down' : 'up', numPages: p.numPages, ...actionSummary(a.receipt) };
  },
});

const scrollToText = method({
  name: 'scroll_to_text',
  summary: '等到页面出现这段文字（默认最多 30 秒），再把它滚动到可见位置',
  ops: [ops.wait, ops.scroll],
  meta: { task: 'existing', evidence: true, reply: ACTION_REPLY },
  params: z.object({ text: z.string().min(1), timeoutSeconds: z.number().positive().max(60).optional() }),
  async run(ctx, p) {
    await waitFor(ctx, { text_present: p.text }, p.timeoutSeconds);
    const a = await act(ctx, 'other', 10_000, (page, w, o) =>
      ops.scroll.call(page, { target: { text: p.text }, into_view: true, ...w }, o),
    );
    return actionSummary(a.receipt);
  },
});

export const INDEX_ACTIONS: HttpMethod[] = [
  clickByIndex('click_element_by_index', 1, '点击索引指向的元素（索引来自 get_browser_state），返回点击回执'),
  clickByIndex('double_click_element_by_index', 2, '双击索引指向的元素，返回点击回执'),
  moveToIndex('hover_element_by_index', 'hover', '把鼠标移到索引指向的元素上'),
  moveToIndex('focus_element_by_index', 'focus', '让索引指向的元素获得焦点'),
  checkByIndex('check_element_by_index', true, '勾选索引指向的复选框或单选框'),
  checkByIndex('uncheck_element_by_index', false, '取消勾选索引指向的复选框'),
  inputText,
  typeText,
  dragByIndex,
  sendKeysMethod,
  pressKey,
  getDropdownOptions,
  selectDropdownOption,
  scroll,
  scrollToText,
];
