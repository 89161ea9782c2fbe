import { z } from 'zod';
import { emulateSession } from '../emulation.js';
import { defineOp } from './define.js';

/** The session's network: its request log, what the origin policy blocked, routes, emulation, credentials. */

const RequestQuery = z
  .object({
    filter: z.string().optional().describe('URL substring, then glob (* and ** cross "/"), or /regex/.'),
    resource_type: z.string().optional(),
    page_id: z.string().optional(),
    since: z.number().optional().describe('Only requests made at or after this epoch ms.'),
    since_seq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).optional(),
  })
  .strict();

export const requests = defineOp({
  name: 'session.requests',
  scope: 'session',
  effect: 'read',
  summary:
    'Requests of the session (the last 1000), correlated by identity, with status, timing and body availability.',
  input: RequestQuery,
  run: (session, i) => session.requests.list(i),
});

export const requestBody = defineOp({
  name: 'session.request_body',
  scope: 'session',
  effect: 'read',
  summary: 'One request with its response body (xhr/fetch, the last 100 bodies), cut at max_chars.',
  input: z.object({ request_id: z.string().min(1), max_chars: z.number().int().min(0).optional() }).strict(),
  run: (session, i) => session.requests.body(i.request_id, i.max_chars),
});

export const waitForResponse = defineOp({
  name: 'session.wait_for_response',
  scope: 'session',
  effect: 'wait',
  summary:
    'Wait for a response whose URL matches (looking back look_back_ms first); its entry when finished.',
  input: z
    .object({
      pattern: z.string().min(1),
      look_back_ms: z.number().int().min(0).optional(),
      page_id: z.string().optional(),
    })
    .strict(),
  run: (session, i, opts) =>
    session.requests.waitForResponse(i.pattern, {
      ...opts,
      look_back_ms: i.look_back_ms,
      page_id: i.page_id,
    }),
});

export const blocked = defineOp({
  name: 'session.blocked_requests',
  scope: 'session',
  effect: 'read',
  summary: "Requests the session's origin policy refused (the last 200), after a seq and for one page.",
  input: z.object({ since_seq: z.number().int().min(0).optional(), page_id: z.string().optional() }).strict(),
  run: (session, i) => session.blockedRequests(i),
});

export const addRoute = defineOp({
  name: 'session.route',
  scope: 'session',
  effect: 'configure',
  summary:
    'Abort or answer (mock) requests matching a glob; a mock never answers a request the origin policy refuses.',
  input: z
    .object({
      pattern: z.string().min(1),
      action: z.enum(['abort', 'mock']).optional(),
      status: z.number().int().min(100).max(599).optional(),
      content_type: z.string().optional(),
      body: z.string().optional(),
    })
    .strict(),
  run: (session, i) => session.routes.add(i),
});

export const removeRoutes = defineOp({
  name: 'session.unroute',
  scope: 'session',
  effect: 'configure',
  summary: 'Remove the routes of one pattern, or all; returns how many were removed.',
  input: z.object({ pattern: z.string().min(1).optional() }).strict(),
  run: (session, i) => session.routes.remove(i.pattern),
});

export const routes = defineOp({
  name: 'session.routes',
  scope: 'session',
  effect: 'read',
  summary: "The session's routes.",
  input: z.object({}).strict(),
  run: (session) => session.routes.list(),
});

export const emulate = defineOp({
  name: 'session.emulate',
  scope: 'session',
  effect: 'configure',
  summary: 'Context-wide emulation: geolocation (with its permission; null clears), offline, extra headers.',
  input: z
    .object({
      geolocation: z
        .object({ latitude: z.number(), longitude: z.number(), accuracy: z.number().optional() })
        .strict()
        .nullable()
        .optional(),
      offline: z.boolean().optional(),
      extra_headers: z.record(z.string(), z.string()).optional(),
    })
    .strict(),
  run: (session, i) =>
    emulateSession(session, {
      geolocation: i.geolocation,
      offline: i.offline,
      extraHeaders: i.extra_headers,
    }),
});

export const httpCredentials = defineOp({
  name: 'session.http_credentials',
  scope: 'session',
  effect: 'configure',
  summary:
    'HTTP authentication for every tab, answered only on a 401 challenge and only for the scoped origins; null clears.',
  input: z
    .object({
      credentials: z
        .object({ username: z.string(), password: z.string(), origins: z.array(z.string()).optional() })
        .strict()
        .nullable(),
    })
    .strict(),
  run: (session, i) => session.setHttpCredentials(i.credentials),
});

const CookieIn = z
  .object({
    name: z.string(),
    value: z.string(),
    url: z.string().optional(),
    domain: z.string().optional(),
    path: z.string().optional(),
    expires: z.number().optional(),
    httpOnly: z.boolean().optional(),
    secure: z.boolean().optional(),
    sameSite: z.enum(['Strict', 'Lax', 'None']).optional(),
  })
  .strict();

export const cookies = defineOp({
  name: 'session.cookies',
  scope: 'session',
  effect: 'read',
  summary: "Cookies of the session's context, optionally only those sent to urls.",
  input: z.object({ urls: z.array(z.string()).optional() }).strict(),
  run: (session, i) => session.cookies(i),
});

export const setCookies = defineOp({
  name: 'session.set_cookies',
  scope: 'session',
  effect: 'configure',
  summary: 'Add cookies; each needs name, value, and url or domain + path.',
  input: z.object({ cookies: z.array(CookieIn) }).strict(),
  run: (session, i) => session.setCookies(i.cookies),
});

export const clearCookies = defineOp({
  name: 'session.clear_cookies',
  scope: 'session',
  effect: 'configure',
  summary: "Remove every cookie of the session's context.",
  input: z.object({}).strict(),
  run: (session) => session.clearCookies(),
});

export const downloads = defineOp({
  name: 'session.downloads',
  scope: 'session',
  effect: 'read',
  summary: "The session's downloads, oldest first, after a seq.",
  input: z.object({ since_seq: z.number().int().min(0).optional() }).strict(),
  run: (session, i) => session.listDownloads(i.since_seq),
});

export const waitForDownload = defineOp({
  name: 'session.wait_for_download',
  scope: 'session',
  effect: 'wait',
  summary: 'Wait for a download (by id, else the newest in progress or the next to start) to finish or fail.',
  input: z.object({ download_id: z.string().optional() }).strict(),
  run: (session, i, opts) => session.waitForDownload(i, opts),
});

export const networkStatus = defineOp({
  name: 'session.network_status',
  scope: 'session',
  effect: 'read',
  summary:
    "The session's request log (recording or not, since when, requests in flight) and the origin policy's last blocked seq.",
  input: z.object({}).strict(),
  run: (session) => ({
    recording: session.requests.recording,
    recorded_since: session.requests.recordedSince,
    inflight: session.requests.inflight(),
    blocked_last_seq: session.network.lastSeq,
  }),
});

export const pageInflight = defineOp({
  name: 'page.inflight',
  scope: 'page',
  effect: 'read',
  summary: 'How many requests of the page are in flight now (started, not finished or failed).',
  input: z.object({}).strict(),
  run: (page) => page.network.inflightCount(),
});
