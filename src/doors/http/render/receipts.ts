import type { Receipt } from '../../../engine/actions/types.js';
import type { Data } from '../envelope.js';
import { hintWords, receiptHint, receiptWarnings } from './receipt-notes.js';

/**
 * Click receipts (reference §10.1) rendered from the engine's action receipt.
 * The door adds only what it read itself before/after the call (URL and tab
 * count of the task); everything else comes from the engine.
 */

export interface Around {
  url: string;
  tabs: number;
}

/** Receipt fields compact mode drops unless `diagnostics: true` (§11). */
export const RECEIPT_DIAGNOSTICS = [
  'urlBefore',
  'urlAfter',
  'tabCountBefore',
  'tabCountAfter',
  'textLengthBefore',
  'textLengthAfter',
  'outerHtml',
  'observedMs',
  'domMutations',
  'probeTrustworthy',
  'probedFrameUrl',
  'requestsDuringWindow',
  'engineReceipt',
];

const NO_CHANGE_HINT =
  '动作已执行，但在观察窗口内没有看到页面变化：这不代表点击失败，也不能据此重复提交；请读取结果文本、等待目标状态或检查相关响应';

/** Wire mode of an engine receipt: trusted input is a native click, synthetic is JS dispatch. */
export function wireMode(r: Receipt, requested?: string): string {
  if (r.mode === 'synthetic') return 'js';
  if (r.mode === 'none') return 'none';
  return requested === 'mouse' ? 'mouse' : 'native';
}

export function clickReceipt(
  r: Receipt,
  before: Around,
  after: Around,
  hit?: Data,
  requestedMode?: string,
): Data {
  const complete = r.change_status !== 'unknown';
  const tl = r.changes.text_length;
  const data: Data = {
    changed: r.changed,
    changeStatus: r.change_status,
    observationComplete: complete,
    observationWindowMs: r.observation.cap_ms,
    observedMs: r.observation.window_ms,
    urlBefore: r.changes.url?.before ?? before.url,
    urlAfter: r.changes.url?.after ?? after.url,
    tabCountBefore: r.changes.tab_count?.before ?? before.tabs,
    tabCountAfter: r.changes.tab_count?.after ?? after.tabs,
    textLengthBefore: tl?.before,
    textLengthAfter: tl?.after,
    actionStatus: r.status === 'executed' ? 'completed' : 'unknown',
    effective: complete ? !(r.mode === 'synthetic' && !r.changed) : null,
    mode: wireMode(r, requestedMode),
    // Never an empty hit: only what the target resolved to.
    hit: hit && Object.values(hit).some((v) => v !== undefined && v !== '') ? hit : undefined,
    probeTrustworthy: !r.changes.navigated,
    domMutations: r.changes.dom_mutations,
    requestsDuringWindow: r.requests.count,
  };
  if (r.status !== 'executed') {
    data.retrySafe = false;
    data.actionError = receiptWarnings(r)?.join('；') || receiptHint(r) || '结果未知';
  }
  if (!r.changed) data.hint = complete ? NO_CHANGE_HINT : hintWords({ code: 'unreadable_after' });
  if (r.changes.new_pages.length > 0) data.newTabs = r.changes.new_pages.map((p) => p.url);
  if (r.dialog) data.dialog = r.dialog;
  if (r.file_chooser)
    data.fileChooser = {
      selector: r.file_chooser.input.selector,
      multiple: r.file_chooser.multiple,
      accept: r.file_chooser.accept,
    };
  if (r.downloads.length > 0)
    data.downloads = r.downloads.map((d) => ({ downloadId: d.download_id, filename: d.suggested_filename }));
  data.warnings = receiptWarnings(r);
  if (r.verified !== null) data.verified = r.verified;
  return data;
}

/** The short receipt of non-click actions (input, check, select, …): outcome without the before/after block. */
export function actionSummary(r: Receipt): Data {
  return {
    changed: r.changed,
    changeStatus: r.change_status,
    verified: r.verified ?? undefined,
    actionStatus: r.status === 'executed' ? 'completed' : 'unknown',
    hint: r.changed ? undefined : receiptHint(r),
    dialog: r.dialog ?? undefined,
    warnings: receiptWarnings(r),
  };
}
