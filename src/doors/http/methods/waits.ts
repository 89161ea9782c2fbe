import { z } from 'zod';
import { ops, TabwrightError } from '../../../engine/api.js';
import type { WaitConditions } from '../../../engine/waits.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { ENGINE_MAX_TIMEOUT_MS, type HttpMethod, type MethodContext, method, pageOf } from './common.js';
import { WAITED_REPLY } from './replies.js';
import { frameIdFor, frameParam } from './target.js';

/**
 * Waits (§8.7): `timeoutSeconds` default 30, up to upstream's long-running limit (§6.2: 15 min).
 * The engine caps one wait at 60 s, so a longer wait is a series of engine waits until the
 * caller's time is up.
 */

/** Upstream's hard limit for the LONG_RUNNING set (browser.command.hardTimeoutMs). */
export const LONG_RUNNING_MAX_SECONDS = 900;
const seconds = z.number().positive().max(LONG_RUNNING_MAX_SECONDS).optional();

function timeoutOf(s: number | undefined): number {
  return Math.round((s ?? 30) * 1000);
}

/** The engine's wait ran out (not_ready, reason wait_timeout). */
export function isEngineWaitTimeout(err: unknown): err is TabwrightError {
  return err instanceof TabwrightError && err.code === 'not_ready' && err.details.reason === 'wait_timeout';
}

/** A wait ran out: the engine's wait, or a navigation wait whose outcome is still open. */
function isWaitTimeout(err: unknown): err is TabwrightError {
  return (
    isEngineWaitTimeout(err) ||
    (err instanceof TabwrightError && err.code === 'not_ready' && typeof err.details.outcome === 'string')
  );
}

/**
 * A wait gets another engine wait only with at least this much time left. The engine's wait stops
 * up to 400 ms before its deadline (to report what it saw before the page queue's own deadline),
 * so what is left after a wait of up to 60 s is that margin: a wait in it could not observe
 * anything, and its report (an evaluate cut at 1 ms) would replace the real last observation.
 */
const SERIES_MIN_MS = 1000;

/**
 * One long wait as a series of engine waits (each at most ENGINE_MAX_TIMEOUT_MS) until `until`:
 * `attempt(timeoutMs)` runs again while `timedOut(err)` says the engine's wait ran out and at least
 * SERIES_MIN_MS are left; any other error, or the last timeout, is thrown.
 */
export async function waitInSeries<T>(
  until: number,
  attempt: (timeoutMs: number) => Promise<T>,
  timedOut: (err: unknown) => boolean = isWaitTimeout,
): Promise<T> {
  for (;;) {
    try {
      return await attempt(Math.max(1, Math.min(until - Date.now(), ENGINE_MAX_TIMEOUT_MS)));
    } catch (err) {
      if (!timedOut(err) || until - Date.now() < SERIES_MIN_MS) throw err;
    }
  }
}

/** One door wait: a timeout is this door's ACTION_TIMEOUT with the conditions last observed. */
export async function waitFor(
  ctx: MethodContext,
  conditions: WaitConditions,
  timeoutSeconds: number | undefined,
  extra: Data = {},
  frame?: string,
  /** Counters read at the timeout (wait_for_idle's requests in flight). */
  inflight?: () => Promise<number>,
): Promise<{ waitedMs: number; url: string }> {
  const started = Date.now();
  const until = started + timeoutOf(timeoutSeconds);
  try {
    const r = await waitInSeries(until, (timeoutMs) =>
      ops.wait.call(pageOf(ctx), { conditions, frame }, { timeoutMs }),
    );
    return { waitedMs: Date.now() - started, url: r.url };
  } catch (err) {
    if (isWaitTimeout(err)) {
      throw new CommandFailure(`${ctx.method} 超时：等待时间内条件一直没有满足`, {
        errorCode: 'ACTION_TIMEOUT',
        retryable: true,
        retryAfterMs: 1500,
        waitedMs: Date.now() - started,
        conditions: err.details.conditions,
        ...extra,
        ...(inflight ? { inflight: await inflight().catch(() => undefined) } : {}),
      });
    }
    throw err;
  }
}

const waitForElement = method({
  name: 'wait_for_element',
  summary: '等到选择器匹配的元素出现并可见（默认最多 30 秒；可带 frame）',
  ops: [ops.wait],
  meta: { task: 'existing', evidence: true, reply: WAITED_REPLY },
  params: z.object({
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

const waitForText = method({
  name: 'wait_for_text',
  summary: '等到页面出现这段文字',
  ops: [ops.wait],
  meta: { task: 'existing', evidence: true, reply: WAITED_REPLY },
  params: z.object({ text: z.string().min(1), timeoutSeconds: seconds }),
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

const waitForUrl = method({
  name: 'wait_for_url',
  summary: '等到 URL 匹配（glob，* 和 ** 都跨 /；不带 * 时按包含）',
  ops: [ops.wait],
  meta: { task: 'existing', evidence: true, reply: { url: '匹配时的 URL', ...WAITED_REPLY } },
  params: z.object({ url: z.string().min(1), timeoutSeconds: seconds }),
  async run(ctx, p) {
    const cond = p.url.includes('*') ? urlRegex(p.url) : urlRegex(`**${p.url}**`);
    const r = await waitFor(ctx, { url_matches: cond }, p.timeoutSeconds);
    return { url: r.url, waitedMs: r.waitedMs };
  },
});

const waitForLoad = method({
  name: 'wait_for_load',
  summary: '等到页面加载到 state（load / domcontentloaded / networkidle）',
  ops: [ops.wait],
  meta: { task: 'existing', evidence: true, reply: { state: '等待的状态', ...WAITED_REPLY } },
  params: z.object({
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

const waitForFunction = method({
  name: 'wait_for_function',
  summary: '等到 JavaScript 表达式为真',
  ops: [ops.wait],
  meta: { task: 'existing', evidence: true, reply: WAITED_REPLY },
  params: z.object({ expression: z.string().min(1), timeoutSeconds: seconds }),
  async run(ctx, p) {
    const r = await waitFor(ctx, { js_predicate: p.expression }, p.timeoutSeconds);
    return { waitedMs: r.waitedMs };
  },
});

const waitForIdle = method({
  name: 'wait_for_idle',
  summary: '等到页面空闲：quietMs 内没有 DOM 变化也没有进行中的请求（可再加选择器或文字条件）',
  ops: [ops.wait, ops.pageInflight],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { idle: 'true', inflight: '进行中的请求数', ...WAITED_REPLY },
  },
  params: z.object({
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
    const r = await waitFor(ctx, cond, p.timeoutSeconds, { idle: false }, undefined, () =>
      ops.pageInflight.call(page, {}),
    );
    return { idle: true, waitedMs: r.waitedMs, inflight: await ops.pageInflight.call(page, {}) };
  },
});

const waitForStable = method({
  name: 'wait_for_stable',
  summary: '等到内容稳定：quietMs 内没有 DOM 变化，返回稳定后的文字（selector 默认 body）',
  ops: [ops.wait, ops.readPageText],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { stable: 'true', length: '文字长度', text: '稳定后的文字（最多 20000 字）', ...WAITED_REPLY },
  },
  params: z.object({
    selector: z.string().min(1).optional(),
    quietMs: z.number().int().min(50).max(30_000).optional(),
    timeoutSeconds: seconds,
  }),
  async run(ctx, p) {
    const quiet = p.quietMs ?? 800;
    const cond: WaitConditions = { dom_stable: quiet };
    if (p.selector) cond.selector_present = p.selector;
    const r = await waitFor(ctx, cond, p.timeoutSeconds, { stable: false });
    const text = await ops.readPageText
      .call(pageOf(ctx), { selector: p.selector ?? 'body' }, { timeoutMs: 5_000 })
      .then(
        (c) => c.content,
        () => '',
      );
    return { stable: true, waitedMs: r.waitedMs, length: text.length, text: text.slice(0, 20_000) };
  },
});

const waitForCount = method({
  name: 'wait_for_count',
  summary: '等到选择器的匹配个数满足 min / max / equals（max:0 = 等遮罩都消失）',
  ops: [ops.wait, ops.count],
  meta: {
    task: 'existing',
    reply: { matched: 'true', count: '满足时的匹配个数', ...WAITED_REPLY },
  },
  params: z.object({
    selector: z.string().min(1),
    min: z.number().int().min(0).optional(),
    max: z.number().int().min(0).optional(),
    equals: z.number().int().min(0).optional(),
    timeoutSeconds: seconds,
  }),
  async run(ctx, p) {
    if (p.min === undefined && p.max === undefined && p.equals === undefined) {
      throw invalidArgument(`${ctx.method} 失败：缺少参数 min（min / max / equals 至少给一个）`, {
        field: 'min',
      });
    }
    const r = await waitFor(
      ctx,
      { selector_count: { selector: p.selector, min: p.min, max: p.max, equals: p.equals } },
      p.timeoutSeconds,
      { matched: false },
    );
    const count = await ops.count.call(pageOf(ctx), { selector: p.selector }, { timeoutMs: 5_000 });
    return { matched: true, count, waitedMs: r.waitedMs };
  },
});

export const WAITS: HttpMethod[] = [
  waitForElement,
  waitForText,
  waitForUrl,
  waitForLoad,
  waitForFunction,
  waitForIdle,
  waitForStable,
  waitForCount,
];
