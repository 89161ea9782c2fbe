import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { readElement } from '../../../engine/element-reads.js';
import type { Data } from '../envelope.js';
import { actionSummary } from '../render/receipts.js';
import { act, clickSpec, indexTarget, receiptData } from './act.js';
import {
  budget,
  clickMode,
  def,
  fail,
  indexSchema,
  type MethodContext,
  type MethodDef,
  pageOf,
  READ_TIMEOUT_MS,
  timeoutMsSchema,
} from './common.js';

function hitOf(index: number, t: ReturnType<typeof indexTarget>): Data {
  return { index, tag: t.info.tag, text: t.info.text || t.info.name || undefined };
}

function clickByIndex(name: string, clicks: number): MethodDef {
  return def({
    name,
    task: 'existing',
    receipt: true,
    schema: z.object({ index: indexSchema, mode: clickMode, timeoutMs: timeoutMsSchema }),
    async run(ctx, p) {
      const t = indexTarget(ctx, p.index);
      const a = await act(ctx, { element_ref: t.ref }, clickSpec(p.mode, clicks), p.timeoutMs);
      return receiptData(a, hitOf(p.index, t), p.mode);
    },
  });
}

function simpleByIndex(name: string, action: 'hover' | 'focus'): MethodDef {
  return def({
    name,
    task: 'existing',
    schema: z.object({ index: indexSchema, timeoutMs: timeoutMsSchema }),
    async run(ctx, p) {
      const t = indexTarget(ctx, p.index);
      const a = await act(ctx, { element_ref: t.ref }, { action }, p.timeoutMs);
      return actionSummary(a.receipt);
    },
  });
}

function checkByIndex(name: string, action: 'check' | 'uncheck'): MethodDef {
  return def({
    name,
    task: 'existing',
    schema: z.object({ index: indexSchema, mode: clickMode, timeoutMs: timeoutMsSchema }),
    async run(ctx, p) {
      const t = indexTarget(ctx, p.index);
      const a = await act(ctx, { element_ref: t.ref }, { action }, p.timeoutMs);
      return { ...actionSummary(a.receipt), checked: action === 'check' };
    },
  });
}

const INPUT_MODES = z.enum(['auto', 'native', 'type', 'js', 'fill']).optional();

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
      ? await act(ctx, target, { action: 'type', text, replace: true, key_by_key: true }, timeoutMs)
      : await act(ctx, target, { action: 'fill', value: text }, timeoutMs);
  return {
    mode: mode === 'type' ? 'type' : 'native',
    committed: true,
    ...actionSummary(a.receipt),
  };
}

const inputText = def({
  name: 'input_text',
  task: 'existing',
  schema: z.object({
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

const typeText = def({
  name: 'type_text',
  task: 'existing',
  schema: z.object({ index: indexSchema, text: z.string().min(1), timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const t = indexTarget(ctx, p.index);
    const a = await act(
      ctx,
      { element_ref: t.ref },
      { action: 'type', text: p.text, key_by_key: true },
      p.timeoutMs,
    );
    return { mode: 'type', ...actionSummary(a.receipt) };
  },
});

const dragByIndex = def({
  name: 'drag_element_by_index',
  task: 'existing',
  schema: z.object({ index: indexSchema, targetIndex: indexSchema, timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const from = indexTarget(ctx, p.index);
    const to = indexTarget(ctx, p.targetIndex);
    const a = await act(
      ctx,
      { element_ref: from.ref },
      { action: 'drag', to: { element_ref: to.ref } },
      p.timeoutMs,
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

async function sendKeys(ctx: MethodContext, keys: string): Promise<Data> {
  const page = pageOf(ctx);
  const timeoutMs = budget(undefined, READ_TIMEOUT_MS);
  if (KEY_NAME.test(keys) && (keys.length > 1 || keys.includes('+'))) {
    const chord = keys
      .replace(/^Ctrl\+/, 'Control+')
      .replace(/\bEsc$/, 'Escape')
      .replace(/\bSpace$/, ' ');
    const r = await page.act(undefined, { action: 'press', key: chord }, { timeoutMs });
    return { mode: 'press', keys, ...actionSummary(r) };
  }
  const r = await page.act(undefined, { action: 'type', text: keys, key_by_key: true }, { timeoutMs });
  return { mode: 'type', text: keys, ...actionSummary(r) };
}

const sendKeysDef = def({
  name: 'send_keys',
  task: 'existing',
  schema: z.object({ keys: keysParam }),
  run: (ctx, p) => sendKeys(ctx, p.keys),
});

const pressKey = def({
  name: 'press_key',
  task: 'existing',
  schema: z.object({ key: keysParam.optional(), keys: keysParam.optional() }),
  async run(ctx, p) {
    const k = p.key ?? p.keys;
    if (!k) throw fail(ctx.method, 'ACTION_FAILED', '缺少参数 key', { invalidArgument: true, field: 'key' });
    return sendKeys(ctx, k);
  },
});

const getDropdownOptions = def({
  name: 'get_dropdown_options',
  task: 'existing',
  schema: z.object({ index: indexSchema }),
  async run(ctx, p) {
    const t = indexTarget(ctx, p.index);
    const options = (
      await readElement(pageOf(ctx), { element_ref: t.ref }, 'options', null, {
        timeoutMs: READ_TIMEOUT_MS,
      })
    ).value as string[] | null;
    if (options === null) {
      throw fail(ctx.method, 'ACTION_FAILED', `索引 ${p.index} 不是下拉框（select）`, { index: p.index });
    }
    return { options, count: options.length };
  },
});

const selectDropdownOption = def({
  name: 'select_dropdown_option',
  task: 'existing',
  schema: z.object({ index: indexSchema, text: z.string().min(1), timeoutMs: timeoutMsSchema }),
  async run(ctx, p) {
    const t = indexTarget(ctx, p.index);
    const a = await act(ctx, { element_ref: t.ref }, { action: 'select', labels: [p.text] }, p.timeoutMs);
    return { selected: p.text, ...actionSummary(a.receipt) };
  },
});

const scroll = def({
  name: 'scroll',
  task: 'existing',
  schema: z.object({
    down: z.boolean().optional(),
    numPages: z.number().positive().max(100),
    index: indexSchema.optional(),
  }),
  async run(ctx, p) {
    const pages = (p.down ? 1 : -1) * p.numPages;
    const target = p.index !== undefined ? { element_ref: indexTarget(ctx, p.index).ref } : undefined;
    const a = await act(ctx, target, { action: 'scroll', pages }, 10_000);
    return { direction: p.down ? 'down' : 'up', numPages: p.numPages, ...actionSummary(a.receipt) };
  },
});

const scrollToText = def({
  name: 'scroll_to_text',
  task: 'existing',
  schema: z.object({ text: z.string().min(1), timeoutSeconds: z.number().positive().max(60).optional() }),
  async run(ctx, p) {
    const page = pageOf(ctx);
    await page.wait(
      { text_present: p.text },
      {},
      { timeoutMs: budget((p.timeoutSeconds ?? 30) * 1000, 30_000) },
    );
    const a = await act(ctx, { text: p.text }, { action: 'scroll', into_view: true }, 10_000);
    return actionSummary(a.receipt);
  },
});

export const INDEX_ACTIONS: MethodDef[] = [
  clickByIndex('click_element_by_index', 1),
  clickByIndex('double_click_element_by_index', 2),
  simpleByIndex('hover_element_by_index', 'hover'),
  simpleByIndex('focus_element_by_index', 'focus'),
  checkByIndex('check_element_by_index', 'check'),
  checkByIndex('uncheck_element_by_index', 'uncheck'),
  inputText,
  typeText,
  dragByIndex,
  sendKeysDef,
  pressKey,
  getDropdownOptions,
  selectDropdownOption,
  scroll,
  scrollToText,
];
