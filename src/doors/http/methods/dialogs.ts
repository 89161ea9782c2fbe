import { z } from 'zod';
import type { Data } from '../envelope.js';
import { def, type MethodContext, type MethodDef, pageOf, sessionOf } from './common.js';
import { consumeDialog, dialogData, lastDialog } from './shared-reads.js';

/** Native dialogs (§8.12) and console logs; DOM modals are in modals.ts. */

const getDialog = (name: string): MethodDef =>
  def({
    name,
    task: 'existing',
    schema: z.object({ consume: z.boolean().optional() }),
    async run(ctx, p) {
      const d = lastDialog(ctx);
      if (d && p.consume) consumeDialog(ctx);
      return { dialog: dialogData(d) };
    },
  });

const clearDialog = (name: string): MethodDef =>
  def({
    name,
    task: 'existing',
    schema: z.object({}),
    async run(ctx) {
      return { cleared: consumeDialog(ctx) };
    },
  });

const setDialogBehavior = def({
  name: 'set_dialog_behavior',
  task: 'existing',
  schema: z.object({ dismiss: z.boolean().optional() }),
  async run(ctx, p) {
    const action = p.dismiss ? 'dismiss' : 'accept';
    sessionOf(ctx).setDialogPolicy(action);
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

/** `logs` (console messages) and `errors` (uncaught page errors and console errors) of the operated tab, ≤200 each. */
export function consoleData(ctx: MethodContext): Data {
  const page = pageOf(ctx);
  const entries = page.console.list({ since_seq: consoleMark(ctx).get(page.id) ?? 0 });
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

const getConsoleLogs = def({
  name: 'get_console_logs',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    return consoleData(ctx);
  },
});

const clearConsoleLogs = def({
  name: 'clear_console_logs',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    const page = pageOf(ctx);
    consoleMark(ctx).set(page.id, page.console.lastSeq);
    return { cleared: true };
  },
});

export const DIALOGS: MethodDef[] = [
  getDialog('get_dialog'),
  getDialog('get_js_dialog'),
  clearDialog('clear_dialog'),
  clearDialog('clear_js_dialog'),
  setDialogBehavior,
  getConsoleLogs,
  clearConsoleLogs,
];
