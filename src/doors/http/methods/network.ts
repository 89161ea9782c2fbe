import { z } from 'zod';
import type { RequestEntry } from '../../../engine/network-log.js';
import type { BlockedRequest } from '../../../engine/network-policy.js';
import type { Data } from '../envelope.js';
import { invalidArgument } from '../envelope.js';
import { def, ENGINE_MAX_TIMEOUT_MS, fail, type MethodContext, type MethodDef, sessionOf } from './common.js';

/**
 * Network capture (reference §15) over the session's request log
 * (Session.requests) and its routes (Session.routes). Entries are correlated
 * by request identity in the engine, so repeated requests to one URL stay
 * apart; `requestId` is the engine's id ("r12"), a string as the reference asks.
 */

const MAX_LIST = 200;
const DEFAULT_MAX_CHARS = 20_000;

/** The wire shape of one request entry (§15.2), without bodies. */
export function requestData(e: RequestEntry): Data {
  return {
    requestId: e.request_id,
    requestedAt: e.requested_at,
    method: e.method,
    url: e.url,
    resourceType: e.resource_type,
    postData: e.post_data ?? undefined,
    postDataLength: e.post_data !== null ? e.post_data_length : undefined,
    postDataTruncated: e.post_data !== null ? e.post_data_truncated : undefined,
    status: e.status ?? undefined,
    respondedAt: e.responded_at ?? undefined,
    failure: e.failure ?? undefined,
    finishedAt: e.finished_at ?? undefined,
    correlationMissed: false,
    correlatedBy: 'identity',
  };
}

function notRecording(ctx: MethodContext): Data | undefined {
  if (sessionOf(ctx).requests.recording) return undefined;
  return {
    recording: false,
    note: '这个任务没有开启网络记录（networkRecording:false），没有任何请求被记录',
  };
}

const getRequests = def({
  name: 'get_requests',
  task: 'existing',
  schema: z.object({
    filter: z.string().optional(),
    resourceType: z.string().min(1).optional(),
    limit: z.number().int().min(1).optional(),
    since: z.number().optional(),
  }),
  async run(ctx, p) {
    const log = sessionOf(ctx).requests;
    const off = notRecording(ctx);
    if (off) return { ...off, requests: [], count: 0, total: 0 };
    const all = log.list({
      filter: p.filter || undefined,
      resource_type: p.resourceType?.toLowerCase(),
      since: p.since,
    });
    const limit = Math.min(p.limit ?? MAX_LIST, MAX_LIST);
    const shown = all.slice(-limit);
    return {
      requests: shown.map(requestData),
      count: shown.length,
      total: all.length,
      recordedSince: log.recordedSince,
      inflight: log.inflight(),
      note:
        all.length === 0
          ? '列表为空不代表没有请求：记录从任务开始时才有，且只记本任务；检查 recordedSince，或放宽 filter/resourceType/since'
          : undefined,
    };
  },
});

/** Body fields of one entry (§15.3), cut at maxChars. */
function bodyData(ctx: MethodContext, e: RequestEntry, maxChars: number): Data {
  const b = sessionOf(ctx).requests.body(e.request_id, maxChars);
  const cacheable = b.resource_type === 'xhr' || b.resource_type === 'fetch';
  const pending = cacheable && b.state === 'responded';
  return {
    requestId: b.request_id,
    request: requestData(b),
    url: b.url,
    status: b.status ?? undefined,
    body: b.body ?? undefined,
    bodyLength: b.body_available ? Math.min(b.body_length ?? 0, 100_000) : undefined,
    truncated: b.returned_truncated || b.body_truncated,
    bodyAvailable: b.body !== null,
    bodyFromCache: b.body !== null,
    bodyCachedChars: b.body_available ? Math.min(b.body_length ?? 0, 100_000) : undefined,
    bodyTruncated: b.body_truncated,
    bodyCapturePending: pending || undefined,
    bodyHint:
      b.body !== null
        ? undefined
        : pending
          ? '响应体还在复制中：稍后再读，或用 wait_for_response 等它完成'
          : cacheable
            ? '响应体已不在缓存里（只保留最近 100 个 xhr/fetch 响应）'
            : '只缓存 xhr/fetch 的响应体；文档、脚本、图片的响应体不保留',
    respondedAt: b.responded_at ?? undefined,
    ageMs: b.responded_at !== null ? Date.now() - b.responded_at : undefined,
    correlationMissed: false,
    correlatedBy: 'identity',
  };
}

const getResponseBody = def({
  name: 'get_response_body',
  task: 'existing',
  schema: z.object({
    requestId: z.union([z.string().min(1), z.number().int()]).optional(),
    filter: z.string().optional(),
    index: z.number().int().optional(),
    maxChars: z.number().int().min(0).optional(),
  }),
  async run(ctx, p) {
    const log = sessionOf(ctx).requests;
    const off = notRecording(ctx);
    if (off) throw fail(ctx.method, 'ACTION_FAILED', off.note as string, { recording: false });
    const maxChars = p.maxChars ?? DEFAULT_MAX_CHARS;
    if (p.requestId !== undefined) {
      const id = String(p.requestId);
      const hit = log.list().find((e) => e.request_id === id);
      if (!hit)
        throw fail(ctx.method, 'ACTION_FAILED', `没有这个 requestId：${id}（先用 get_requests 列出请求）`, {
          requestId: id,
        });
      return bodyData(ctx, hit, maxChars);
    }
    // Only responses (status or failure) count; absent filter = the most recent one.
    const matches = log.list({ filter: p.filter || undefined }).filter((e) => e.state !== 'pending');
    if (matches.length === 0) {
      throw fail(
        ctx.method,
        'ACTION_FAILED',
        p.filter
          ? `没有 URL 包含 ${p.filter} 的响应（先用 get_requests 看看记录了什么）`
          : '还没有记录到任何响应',
        { matchCount: 0 },
      );
    }
    const i = p.index ?? matches.length - 1;
    const at = i < 0 ? matches.length + i : i;
    if (at < 0 || at >= matches.length) {
      throw invalidArgument(`${ctx.method} 失败：参数 index 无效：只有 ${matches.length} 个匹配的响应`, {
        field: 'index',
        matchCount: matches.length,
      });
    }
    return { ...bodyData(ctx, matches[at]!, maxChars), matchCount: matches.length, index: at };
  },
});

const waitForResponse = def({
  name: 'wait_for_response',
  task: 'existing',
  schema: z.object({
    urlPattern: z.string().min(1),
    timeoutSeconds: z.number().positive().optional(),
    maxChars: z.number().int().min(0).optional(),
    lookBackSeconds: z.number().min(0).optional(),
  }),
  async run(ctx, p) {
    const log = sessionOf(ctx).requests;
    const off = notRecording(ctx);
    if (off) throw fail(ctx.method, 'ACTION_FAILED', off.note as string, { recording: false });
    const timeoutMs = Math.max(
      1,
      Math.min(Math.round((p.timeoutSeconds ?? 30) * 1000), ENGINE_MAX_TIMEOUT_MS),
    );
    const e = await log.waitForResponse(p.urlPattern, {
      timeoutMs,
      look_back_ms: Math.round((p.lookBackSeconds ?? 10) * 1000),
    });
    const b = bodyData(ctx, e, p.maxChars ?? DEFAULT_MAX_CHARS);
    return {
      ...b,
      fromLookBack: e.from_look_back,
      method: e.method,
      resourceType: e.resource_type,
      requestedAt: e.requested_at,
      failure: e.failure ?? undefined,
    };
  },
});

const route = def({
  name: 'route',
  task: 'existing',
  schema: z.object({
    urlPattern: z.string().min(1),
    action: z.enum(['abort', 'mock']).optional(),
    body: z.string().optional(),
    status: z.number().int().min(100).max(599).optional(),
    contentType: z.string().min(1).optional(),
  }),
  async run(ctx, p) {
    const action = p.action ?? 'abort';
    const r = await sessionOf(ctx).routes.add({
      pattern: p.urlPattern,
      action,
      body: p.body,
      status: p.status,
      content_type: p.contentType,
    });
    return {
      urlPattern: r.pattern,
      action: r.action,
      status: r.action === 'mock' ? r.status : undefined,
      contentType: r.action === 'mock' ? r.content_type : undefined,
      routes: sessionOf(ctx).routes.list().length,
      note: 'urlPattern 是 Playwright 原生 glob：* 不跨越 /，要匹配整站请写 **/example.com/**',
    };
  },
});

const unroute = def({
  name: 'unroute',
  task: 'existing',
  schema: z.object({ urlPattern: z.string().min(1).optional() }),
  async run(ctx, p) {
    const removed = await sessionOf(ctx).routes.remove(p.urlPattern);
    return { removed, urlPattern: p.urlPattern ?? undefined, routes: sessionOf(ctx).routes.list().length };
  },
});

/** The wire shape of one request the origin policy stopped (engine BlockedRequest, camelCase). */
function blockedData(b: BlockedRequest): Data {
  return {
    seq: b.seq,
    at: b.at,
    url: b.url,
    origin: b.origin,
    method: b.method,
    resourceType: b.resource_type,
    kind: b.kind,
    frame: b.frame ?? undefined,
    pageId: b.page_id ?? undefined,
  };
}

const getBlockedRequests = def({
  name: 'get_blocked_requests',
  task: 'existing',
  schema: z.object({
    sinceSeq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).optional(),
  }),
  async run(ctx, p) {
    const s = sessionOf(ctx);
    const all = s.blockedRequests(p.sinceSeq === undefined ? {} : { since_seq: p.sinceSeq });
    const shown = all.slice(-Math.min(p.limit ?? MAX_LIST, MAX_LIST));
    return {
      restricted: s.policy.restricted,
      blocked: shown.map(blockedData),
      count: shown.length,
      total: all.length,
      lastSeq: s.network.lastSeq,
      note: !s.policy.restricted
        ? '这个任务没有来源限制（origin policy），不会拦截任何请求'
        : all.length === 0
          ? '没有被拦截的请求；下次用 lastSeq 作为 sinceSeq 只看新增的'
          : undefined,
    };
  },
});

export const NETWORK: MethodDef[] = [
  getRequests,
  getResponseBody,
  waitForResponse,
  route,
  unroute,
  getBlockedRequests,
];
