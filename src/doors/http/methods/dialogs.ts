import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import type { Data } from '../envelope.js';
import { type HttpMethod, type MethodContext, method, pageOf, sessionOf } from './common.js';
import { consumeDialog, dialogData, lastDialog } from './shared-reads.js';

/** Native dialogs (§8.12) and console logs; DOM modals are in modals.ts. */

const getDialog = (name: string, summary: string): HttpMethod =>
  method({
    name,
    summary,
    ops: [ops.dialogs],
    meta: {
      task: 'existing',
      reply: { dialog: '对话框：type, message, defaultValue, seq, timestamp, state；没有时为 null' },
    },
    params: z.object({ consume: z.boolean().optional() }),
    async run(ctx, p) {
      const d = await lastDialog(ctx);
      if (d && p.consume) await consumeDialog(ctx);
      return { dialog: dialogData(d) };
    },
  });

const clearDialog = (name: string, summary: string): HttpMethod =>
  method({
    name,
    summary,
    ops: [ops.dialogs],
    meta: { task: 'existing', reply: { cleared: '有没有清掉一个对话框' } },
    params: z.object({}),
    async run(ctx) {
      return { cleared: await consumeDialog(ctx) };
    },
  });

const setDialogBehavior = method({
  name: 'set_dialog_behavior',
  summary: '原生对话框的处理方式：默认自动接受，dismiss:true 改为自动取消',
  ops: [ops.dialogPolicy],
  meta: { task: 'existing', reply: { behavior: 'accept 或 dismiss', dismiss: '回显的 dismiss' } },
  params: z.object({ dismiss: z.boolean().optional() }),
  async run(ctx, p) {
    const action = p.dismiss ? 'dismiss' : 'accept';
    await ops.dialogPolicy.call(sessionOf(ctx), { policy: action });
    return { behavior: action, dismiss: p.dismiss ?? false };
  },
});

/** Console marks per page: entries at or before the mark were cleared by clear_console_logs. */
function consoleMark(ctx: MethodContext): Map<string, number> {
  const extra = ctx.task!.extra;
  let m = extra.consoleMark as Map<string, number> | undefined;
  if (!m) {
    m = new Map();
    extra.consoleMark = m;
  }
  return m;
}

const LIMIT = 200;

const CONSOLE_REPLY = {
  logs: '控制台消息：type, text, url, line, timestamp, seq（最多 200 条）',
  errors: '页面错误和 console.error（最多 200 条）',
  logsTruncated: 'logs 截断了',
  errorsTruncated: 'errors 截断了',
};

/** `logs` (console messages) and `errors` (uncaught page errors and console errors) of the operated tab, ≤200 each. */
export async function consoleData(ctx: MethodContext): Promise<Data> {
  const page = pageOf(ctx);
  const entries = await ops.consoleMessages.call(page, { since_seq: consoleMark(ctx).get(page.id) ?? 0 });
  const wire = (e: (typeof entries)[number]) => ({
    type: e.level,
    text: e.text,
    url: e.url || undefined,
    line: e.line ?? undefined,
    timestamp: Date.parse(e.at),
    seq: e.seq,
  });
  const logs = entries.filter((e) => e.type === 'console').map(wire);
  const errors = entries.filter((e) => e.type === 'pageerror' || e.level === 'error').map(wire);
  return {
    logs: logs.slice(-LIMIT),
    errors: errors.slice(-LIMIT),
    logsTruncated: logs.length > LIMIT ? true : undefined,
    errorsTruncated: errors.length > LIMIT ? true : undefined,
  };
}

const getConsoleLogs = method({
  name: 'get_console_logs',
  summary: '当前标签页的控制台日志和页面错误（clear_console_logs 之后的）',
  ops: [ops.consoleMessages],
  meta: { task: 'existing', reply: CONSOLE_REPLY },
  params: z.object({}),
  run: (ctx) => consoleData(ctx),
});

const clearConsoleLogs = method({
  name: 'clear_console_logs',
  summary: '之后的 get_console_logs 只返回新的日志',
  ops: [ops.consoleMessages],
  meta: { task: 'existing', reply: { cleared: 'true' } },
  params: z.object({}),
  async run(ctx) {
    const page = pageOf(ctx);
    const marks = consoleMark(ctx);
    // The newest entry's seq: everything so far counts as read (seqs only grow).
    const newest = await ops.consoleMessages.call(page, { since_seq: marks.get(page.id) ?? 0, limit: 1 });
    if (newest.length > 0) marks.set(page.id, newest[0]!.seq);
    return { cleared: true };
  },
});

export const DIALOGS: HttpMethod[] = [
  getDialog('get_dialog', '最近一次原生对话框（alert / confirm / prompt）；consume:true 读后清掉'),
  getDialog('get_js_dialog', 'get_dialog 的别名'),
  clearDialog('clear_dialog', '清掉最近的原生对话框记录'),
  clearDialog('clear_js_dialog', 'clear_dialog 的别名'),
  setDialogBehavior,
  getConsoleLogs,
  clearConsoleLogs,
];
