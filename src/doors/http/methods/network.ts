import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import type { RequestEntry } from '../../../engine/network-log.js';
import type { BlockedRequest } from '../../../engine/network-policy.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { fail, type HttpMethod, type MethodContext, method, type ReplyFields, sessionOf } from './common.js';
import { isEngineWaitTimeout, LONG_RUNNING_MAX_SECONDS, waitInSeries } from './waits.js';

/**
 * Network capture (reference §15) over the session's request log and routes (the session.requests,
 * session.request_body, session.route… operations). Entries are correlated
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

async function notRecording(ctx: MethodContext): Promise<Data | undefined> {
  if ((await ops.networkStatus.call(sessionOf(ctx), {})).recording) return undefined;
  return {
    recording: false,
    note: '这个任务没有开启网络记录（networkRecording:false），没有任何请求被记录',
  };
}

const REQUEST_FIELDS =
  'requestId, requestedAt, method, url, resourceType, postData, postDataLength, postDataTruncated, status, respondedAt, failure, finishedAt, correlationMissed, correlatedBy';

const getRequests = method({
  name: 'get_requests',
  summary: '这个任务记录的请求（最多 200 个，最新的在后）：按 URL、资源类型、时间过滤',
  ops: [ops.requests, ops.networkStatus],
  meta: {
    task: 'existing',
    reply: {
      requests: `请求：${REQUEST_FIELDS}`,
      count: '返回的请求数',
      total: '匹配的请求总数',
      recordedSince: '从什么时候开始记录（毫秒时间戳）',
      inflight: '还没结束的请求数',
      recording: 'false：没有开启网络记录',
      note: '说明',
    },
  },
  params: z.object({
    filter: z.string().optional(),
    resourceType: z.string().min(1).optional(),
    limit: z.number().int().min(1).optional(),
    since: z.number().optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const off = await notRecording(ctx);
    if (off) return { ...off, requests: [], count: 0, total: 0 };
    const all = await ops.requests.call(session, {
      filter: p.filter || undefined,
      resource_type: p.resourceType?.toLowerCase(),
      since: p.since,
    });
    const limit = Math.min(p.limit ?? MAX_LIST, MAX_LIST);
    const shown = all.slice(-limit);
    const status = await ops.networkStatus.call(session, {});
    return {
      requests: shown.map(requestData),
      count: shown.length,
      total: all.length,
      recordedSince: status.recorded_since,
      inflight: status.inflight,
      note:
        all.length === 0
          ? '列表为空不代表没有请求：记录从任务开始时才有，且只记本任务；检查 recordedSince，或放宽 filter/resourceType/since'
          : undefined,
    };
  },
});

/** Body fields of one entry (§15.3), cut at maxChars. */
async function bodyData(ctx: MethodContext, e: RequestEntry, maxChars: number): Promise<Data> {
  const b = await ops.requestBody.call(sessionOf(ctx), { request_id: e.request_id, max_chars: maxChars });
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

const BODY_REPLY: ReplyFields = {
  requestId: '请求 id',
  request: `请求：${REQUEST_FIELDS}`,
  url: 'URL',
  status: 'HTTP 状态码',
  body: '响应体（按 maxChars 截断）',
  bodyLength: '缓存的响应体长度',
  truncated: '返回的响应体截断了',
  bodyAvailable: '有没有响应体',
  bodyFromCache: '响应体来自缓存',
  bodyCachedChars: '缓存了多少字符',
  bodyTruncated: '缓存时就截断了',
  bodyCapturePending: '响应体还在复制中',
  bodyHint: '没有响应体时的说明',
  respondedAt: '响应时间（毫秒时间戳）',
  ageMs: '响应后过了多少毫秒',
  correlationMissed: 'false',
  correlatedBy: 'identity',
};

const getResponseBody = method({
  name: 'get_response_body',
  summary: '一个请求的响应体（requestId，或 URL 包含 filter 的最近一个响应；只缓存 xhr/fetch）',
  ops: [ops.requests, ops.requestBody, ops.networkStatus],
  meta: {
    task: 'existing',
    reply: { ...BODY_REPLY, matchCount: '按 filter 匹配到的响应数', index: '使用的是第几个匹配' },
  },
  params: z.object({
    requestId: z.union([z.string().min(1), z.number().int()]).optional(),
    filter: z.string().optional(),
    index: z.number().int().optional(),
    maxChars: z.number().int().min(0).optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const off = await notRecording(ctx);
    if (off) throw fail(ctx.method, 'ACTION_FAILED', off.note as string, { recording: false });
    const maxChars = p.maxChars ?? DEFAULT_MAX_CHARS;
    if (p.requestId !== undefined) {
      const id = String(p.requestId);
      const hit = (await ops.requests.call(session, {})).find((e) => e.request_id === id);
      if (!hit)
        throw fail(ctx.method, 'ACTION_FAILED', `没有这个 requestId：${id}（先用 get_requests 列出请求）`, {
          requestId: id,
        });
      return bodyData(ctx, hit, maxChars);
    }
    // Only responses (status or failure) count; absent filter = the most recent one.
    const matches = (await ops.requests.call(session, { filter: p.filter || undefined })).filter(
      (e) => e.state !== 'pending',
    );
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
    return { ...(await bodyData(ctx, matches[at]!, maxChars)), matchCount: matches.length, index: at };
  },
});

const waitForResponse = method({
  name: 'wait_for_response',
  summary: '等待 URL 匹配 urlPattern 的响应（先回看 lookBackSeconds 秒内的），返回它和响应体',
  ops: [ops.waitForResponse, ops.requestBody, ops.networkStatus],
  meta: {
    task: 'existing',
    reply: {
      ...BODY_REPLY,
      fromLookBack: '响应来自回看（在调用之前就到了）',
      method: '请求方法',
      resourceType: '资源类型',
      requestedAt: '请求时间',
      failure: '请求失败的原因',
    },
  },
  params: z.object({
    urlPattern: z.string().min(1),
    timeoutSeconds: z.number().positive().max(LONG_RUNNING_MAX_SECONDS).optional(),
    maxChars: z.number().int().min(0).optional(),
    lookBackSeconds: z.number().min(0).optional(),
  }),
  async run(ctx, p) {
    const off = await notRecording(ctx);
    if (off) throw fail(ctx.method, 'ACTION_FAILED', off.note as string, { recording: false });
    // Up to upstream's long-running limit (15 min), as a series of engine waits of at most 60 s;
    // later ones look back to the call's start, so nothing that arrived in between is missed.
    const started = Date.now();
    const until = started + Math.round(Math.min(p.timeoutSeconds ?? 30, LONG_RUNNING_MAX_SECONDS) * 1000);
    let lookBack = Math.round((p.lookBackSeconds ?? 10) * 1000);
    const timedOut = isEngineWaitTimeout;
    let e: Awaited<ReturnType<typeof ops.waitForResponse.call>>;
    let round = 0;
    try {
      e = await waitInSeries(
        until,
        (timeoutMs) => {
          if (round++ > 0) lookBack = Date.now() - started;
          return ops.waitForResponse.call(
            sessionOf(ctx),
            { pattern: p.urlPattern, look_back_ms: lookBack },
            { timeoutMs },
          );
        },
        timedOut,
      );
    } catch (err) {
      if (!timedOut(err)) throw err;
      // The wait family's timeout (§5.2): ACTION_TIMEOUT with the literal text.
      throw new CommandFailure(`${ctx.method} 超时：等待时间内条件一直没有满足`, {
        errorCode: 'ACTION_TIMEOUT',
        retryable: true,
        retryAfterMs: 1500,
        waitedMs: Date.now() - started,
        urlPattern: p.urlPattern,
        hint: '在这段时间里没有 URL 匹配 urlPattern 的响应：用 get_requests 核对实际的请求地址，或加大 timeoutSeconds',
      });
    }
    const b = await bodyData(ctx, e, p.maxChars ?? DEFAULT_MAX_CHARS);
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

const route = method({
  name: 'route',
  summary: '拦截 URL 匹配 urlPattern（Playwright glob）的请求：abort 中止，或 mock 返回给定的响应',
  ops: [ops.addRoute, ops.routes],
  meta: {
    task: 'existing',
    reply: {
      urlPattern: '规则的 glob',
      action: 'abort 或 mock',
      status: 'mock 的状态码',
      contentType: 'mock 的类型',
      routes: '现有规则数',
      note: 'glob 的写法',
    },
  },
  params: z.object({
    urlPattern: z.string().min(1),
    action: z.enum(['abort', 'mock']).optional(),
    body: z.string().optional(),
    status: z.number().int().min(100).max(599).optional(),
    contentType: z.string().min(1).optional(),
  }),
  async run(ctx, p) {
    const action = p.action ?? 'abort';
    const session = sessionOf(ctx);
    const r = await ops.addRoute.call(session, {
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
      routes: (await ops.routes.call(session, {})).length,
      note: 'urlPattern 是 Playwright 原生 glob：* 不跨越 /，要匹配整站请写 **/example.com/**',
    };
  },
});

const unroute = method({
  name: 'unroute',
  summary: '删除一个 urlPattern 的拦截规则，不传则删除全部',
  ops: [ops.removeRoutes, ops.routes],
  meta: {
    task: 'existing',
    reply: { removed: '删除的规则数', urlPattern: '回显的 urlPattern', routes: '剩下的规则数' },
  },
  params: z.object({ urlPattern: z.string().min(1).optional() }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const removed = await ops.removeRoutes.call(session, { pattern: p.urlPattern });
    return {
      removed,
      urlPattern: p.urlPattern ?? undefined,
      routes: (await ops.routes.call(session, {})).length,
    };
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

const getBlockedRequests = method({
  name: 'get_blocked_requests',
  summary: '被来源白名单拦下的请求（sinceSeq 之后的；下次用 lastSeq）',
  ops: [ops.blocked, ops.networkStatus],
  meta: {
    task: 'existing',
    reply: {
      restricted: '任务有没有来源白名单',
      blocked: '被拦的请求：seq, at, url, origin, method, resourceType, kind, frame, pageId',
      count: '返回的条数',
      total: '匹配的总数',
      lastSeq: '最新的 seq（下次作为 sinceSeq）',
      note: '说明',
    },
  },
  params: z.object({
    sinceSeq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).optional(),
  }),
  async run(ctx, p) {
    const s = sessionOf(ctx);
    const all = await ops.blocked.call(s, p.sinceSeq === undefined ? {} : { since_seq: p.sinceSeq });
    const shown = all.slice(-Math.min(p.limit ?? MAX_LIST, MAX_LIST));
    return {
      restricted: s.policy.restricted,
      blocked: shown.map(blockedData),
      count: shown.length,
      total: all.length,
      lastSeq: (await ops.networkStatus.call(s, {})).blocked_last_seq,
      note: !s.policy.restricted
        ? '这个任务没有来源限制（origin policy），不会拦截任何请求'
        : all.length === 0
          ? '没有被拦截的请求；下次用 lastSeq 作为 sinceSeq 只看新增的'
          : undefined,
    };
  },
});

export const NETWORK: HttpMethod[] = [
  getRequests,
  getResponseBody,
  waitForResponse,
  route,
  unroute,
  getBlockedRequests,
];
