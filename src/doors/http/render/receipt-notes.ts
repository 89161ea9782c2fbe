import type { HintCode, Note, WarningCode } from '../../../engine/actions/receipt-notes.js';
import type { Receipt } from '../../../engine/actions/types.js';

/**
 * The engine receipt's hint and warnings in this door's words (Chinese), rendered from their codes:
 * the engine's English sentences never reach this door's replies.
 */

type Params = Record<string, string | number>;

const ENDS: Record<string, string> = { bottom: '最底部', top: '最顶部', right: '最右边', left: '最左边' };

const HINTS: Record<HintCode, (p: Params) => string> = {
  already_checked: () => '复选框本来就是选中状态，没有发送任何输入',
  already_unchecked: () => '复选框本来就是未选中状态，没有发送任何输入',
  scroll_page_fits: () => '滚动位置没有变化：页面内容没有超出窗口，没有可以滚动的内容',
  scroll_element_fits: () =>
    '滚动位置没有变化：这个元素的内容没有超出它自己的范围，它不能滚动（在它上面滚动会滚动外层的滚动区域，如果有的话）',
  scroll_at_end: (p) =>
    `滚动位置没有变化：已经在${String(p.ends)
      .split(',')
      .map((e) => ENDS[e] ?? e)
      .join('和')}了`,
  scroll_did_not_move: () =>
    '滚动位置没有变化，但还有可以滚动的空间（可能是 overflow: hidden，或页面自己处理滚轮）：可改用 scroll_to_text，或用 press_key 发送 PageDown',
  not_observed: (p) =>
    `动作已执行，但在 ${p.window_ms} 毫秒的观察窗口内没有看到页面变化：这不代表操作失败，也不能据此重复操作；请等待目标状态或调用 get_browser_state 确认`,
  unreadable_after: () => '动作后无法读取页面，请先用 get_browser_state 确认状态',
};

const WARNINGS: Record<WarningCode, (p: Params) => string> = {
  input_failed: (p) =>
    `输入已发出，但浏览器调用失败（${p.error}）：可能生效了，也可能没有；重复之前请先用 get_browser_state 检查页面`,
  partly_unreadable: () => '动作前后没能完整读取页面：changeStatus 只依据读到的部分',
  dialog_blocks_checks: () =>
    '没有校验结果，也没有快照差异：页面上有一个仍然开着的原生对话框，页面在它被处理之前不会继续',
  no_snapshot_diff: (p) => `没有快照差异：${p.error}`,
  dialog_held: (p) => `页面弹出了 ${p.type} 对话框并且仍然开着：页面脚本会一直等到它被接受或取消`,
};

export const hintWords = (n: Note<HintCode>): string => HINTS[n.code](n.params ?? {});
export const warningWords = (n: Note<WarningCode>): string => WARNINGS[n.code](n.params ?? {});

/** The receipt's hint in this door's words, or undefined when it has none. */
export function receiptHint(r: Receipt): string | undefined {
  return r.notes.hint ? hintWords(r.notes.hint) : undefined;
}

/** The receipt's warnings in this door's words, or undefined when there are none. */
export function receiptWarnings(r: Receipt): string[] | undefined {
  return r.notes.warnings.length > 0 ? r.notes.warnings.map(warningWords) : undefined;
}
