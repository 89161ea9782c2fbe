import { z } from 'zod';
import { readText } from '../../../engine/content.js';
import { countMatches } from '../../../engine/element-reads.js';
import { TabwrightError } from '../../../engine/errors.js';
import type { WaitConditions } from '../../../engine/waits.js';
import { CommandFailure, type Data } from '../envelope.js';
import { def, fail, type MethodContext, type MethodDef, pageOf } from './common.js';
import { frameIdFor, frameParam } from './target.js';

/** Waits (§8.7): `timeoutSeconds` default 30; the engine caps one wait at 60 s. */

const ENGINE_MAX_MS = 60_000;
const seconds = z.number().positive().max(600).optional();

function timeoutOf(s: number | undefined): number {
  return Math.min(Math.round((s ?? 30) * 1000), ENGINE_MAX_MS);
}

async function waitFor(
  ctx: MethodContext,
  conditions: WaitConditions,
  timeoutSeconds: number | undefined,
  extra: Data = {},
  frame?: string,
): Promise<{ waitedMs: number; url: string }> {
  const started = Date.now();
  try {
    const r = await pageOf(ctx).wait(conditions, { frame }, { timeoutMs: timeoutOf(timeoutSeconds) });
    return { waitedMs: r.waited_ms, url: r.url };
  } catch (err) {
    if (
      err instanceof TabwrightError &&
      err.code === 'not_ready' &&
      (err.details.reason === 'wait_timeout' || typeof err.details.outcome === 'string')
    ) {
      throw new CommandFailure(`${ctx.method} 超时：等待时间内条件一直没有满足`, {
        errorCode: 'ACTION_TIMEOUT',
        retryable: true,
        retryAfterMs: 1500,
        waitedMs: Date.now() - started,
        conditions: err.details.conditions,
        ...extra,
      });
    }
    throw err;
  }
}

const waitForElement = def({
  name: 'wait_for_element',
  task: 'existing',
  schema: z.object({
    selector: z.string().min(1),
    timeoutSeconds: seconds,
    frame: frameParam,
    state: z.string().optional(),
  }),
  async run(ctx, p) {
    const r = await waitFor(
      ctx,
      { selector_present: { selector: p.selector, visible: true } },
      p.timeoutSeconds,
      {},
      await frameIdFor(ctx, p.frame),
    );
    return { waitedMs: r.waitedMs };
  },
});

const waitForText = def({
  name: 'wait_for_text',
  task: 'existing',
  schema: z.object({ text: z.string().min(1), timeoutSeconds: seconds }),
  async run(ctx, p) {
    const r = await waitFor(ctx, { text_present: p.text }, p.timeoutSeconds);
    return { waitedMs: r.waitedMs };
  },
});

/** The reference's URL glob (`*` and `**` cross `/`; a trailing ?query/#fragment may follow) as a regex condition. */
function urlRegex(pattern: string): string {
  const body = pattern
    .split(/\*+/)
    .map((s) => s.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return `/^${body}([?#].*)?$/`;
}

const waitForUrl = def({
  name: 'wait_for_url',
  task: 'existing',
  schema: z.object({ url: z.string().min(1), timeoutSeconds: seconds }),
  async run(ctx, p) {
    const cond = p.url.includes('*') ? urlRegex(p.url) : urlRegex(`**${p.url}**`);
    const r = await waitFor(ctx, { url_matches: cond }, p.timeoutSeconds);
    return { url: r.url, waitedMs: r.waitedMs };
  },
});

const waitForLoad = def({
  name: 'wait_for_load',
  task: 'existing',
  schema: z.object({
    state: z.enum(['load', 'domcontentloaded', 'networkidle']).optional(),
    timeoutSeconds: seconds,
  }),
  async run(ctx, p) {
    const state = p.state ?? 'load';
    const cond: WaitConditions =
      state === 'networkidle'
        ? { navigation_complete: 'load', network_idle: true }
        : { navigation_complete: state };
    const r = await waitFor(ctx, cond, p.timeoutSeconds);
    return { state, waitedMs: r.waitedMs };
  },
});

const waitForFunction = def({
  name: 'wait_for_function',
  task: 'existing',
  schema: z.object({ expression: z.string().min(1), timeoutSeconds: seconds }),
  async run(ctx, p) {
    const r = await waitFor(ctx, { js_predicate: p.expression }, p.timeoutSeconds);
    return { waitedMs: r.waitedMs };
  },
});

const waitForIdle = def({
  name: 'wait_for_idle',
  task: 'existing',
  schema: z.object({
    quietMs: z.number().int().min(50).max(30_000).optional(),
    timeoutSeconds: seconds,
    selector: z.string().min(1).optional(),
    text: z.string().min(1).optional(),
  }),
  async run(ctx, p) {
    const quiet = p.quietMs ?? 500;
    const cond: WaitConditions = { network_idle: { idle_ms: quiet }, dom_stable: quiet };
    if (p.selector) cond.selector_present = p.selector;
    if (p.text) cond.text_present = p.text;
    const page = pageOf(ctx);
    const r = await waitFor(ctx, cond, p.timeoutSeconds, {
      idle: false,
      inflight: page.network.inflightCount(),
    });
    return { idle: true, waitedMs: r.waitedMs, inflight: page.network.inflightCount() };
  },
});

const waitForStable = def({
  name: 'wait_for_stable',
  task: 'existing',
  schema: z.object({
    selector: z.string().min(1).optional(),
    quietMs: z.number().int().min(50).max(30_000).optional(),
    timeoutSeconds: seconds,
  }),
  async run(ctx, p) {
    const quiet = p.quietMs ?? 800;
    const cond: WaitConditions = { dom_stable: quiet };
    if (p.selector) cond.selector_present = p.selector;
    const r = await waitFor(ctx, cond, p.timeoutSeconds, { stable: false });
    const text = await readText(pageOf(ctx), p.selector ?? 'body', { timeoutMs: 5_000 }).then(
      (c) => c.content,
      () => '',
    );
    return { stable: true, waitedMs: r.waitedMs, length: text.length, text: text.slice(0, 20_000) };
  },
});

const waitForCount = def({
  name: 'wait_for_count',
  task: 'existing',
  schema: z.object({
    selector: z.string().min(1),
    min: z.number().int().min(0).optional(),
    max: z.number().int().min(0).optional(),
    equals: z.number().int().min(0).optional(),
    timeoutSeconds: seconds,
  }),
  async run(ctx, p) {
    if (p.min === undefined && p.max === undefined && p.equals === undefined) {
      throw fail(ctx.method, 'ACTION_FAILED', '缺少参数 min（min / max / equals 至少给一个）', {
        invalidArgument: true,
        field: 'min',
      });
    }
    const r = await waitFor(
      ctx,
      { selector_count: { selector: p.selector, min: p.min, max: p.max, equals: p.equals } },
      p.timeoutSeconds,
      { matched: false },
    );
    const count = await countMatches(pageOf(ctx), p.selector, { timeoutMs: 5_000 });
    return { matched: true, count, waitedMs: r.waitedMs };
  },
});

export const WAITS: MethodDef[] = [
  waitForElement,
  waitForText,
  waitForUrl,
  waitForLoad,
  waitForFunction,
  waitForIdle,
  waitForStable,
  waitForCount,
];
