import { opOptions, pageOf, sessionOf } from './helpers.js';
import {
  ConsoleListParams,
  CookieListParams,
  NetworkListParams,
  PageEvalParams,
  StorageGetParams,
} from './schemas.js';
import { type MethodDef, method } from './table.js';

export const INTROSPECTION_METHODS: MethodDef[] = [
  method({
    name: 'page.eval',
    group: 'optional',
    stability: 'stable',
    description:
      'Run JavaScript in the page: an expression, a function expression (called with args) or a statement body using return. Promises are awaited; returns {value, type}. A page exception is invalid_request with details.reason "script_error".',
    input: PageEvalParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const r = await page.evaluateScript(p.script, { ...opOptions(p, call), args: p.args ?? [] });
      return { page_id: page.id, ...r };
    },
  }),
  method({
    name: 'console.list',
    group: 'optional',
    stability: 'stable',
    description:
      'Console messages and uncaught page errors of the page (the last 500), after since_seq, optionally of one level.',
    input: ConsoleListParams,
    handler: (p, call) => {
      const page = pageOf(call, p);
      const q: { since_seq?: number; limit?: number; level?: string } = {};
      if (p.since_seq !== undefined) q.since_seq = p.since_seq;
      if (p.limit !== undefined) q.limit = p.limit;
      if (p.level !== undefined) q.level = p.level;
      return { page_id: page.id, entries: page.console.list(q), last_seq: page.console.lastSeq };
    },
  }),
  method({
    name: 'storage.get',
    group: 'optional',
    stability: 'stable',
    description:
      "localStorage (area local, default) or sessionStorage of the page's current document: every key, or one key's value (null when absent).",
    input: StorageGetParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const area = p.area ?? 'local';
      const v = await page.storageGet(area, p.key, opOptions(p, call));
      return p.key !== undefined
        ? { page_id: page.id, area, key: p.key, value: v }
        : { page_id: page.id, area, items: v };
    },
  }),
  method({
    name: 'cookie.list',
    group: 'optional',
    stability: 'stable',
    description: "Cookies of the session's browser context, optionally only those sent to urls.",
    input: CookieListParams,
    handler: async (p, call) => {
      const s = sessionOf(call, p.session_id);
      return { cookies: await s.cookies(p.urls ? { urls: p.urls } : {}) };
    },
  }),
  method({
    name: 'network.list',
    group: 'optional',
    stability: 'stable',
    description:
      "Requests of the session's pages (the last 1000): method, URL, type, status, timing, failure; after since_seq, filtered by URL, type or page.",
    input: NetworkListParams,
    handler: (p, call) => {
      const s = sessionOf(call, p.session_id);
      const { session_id: _s, ...filter } = p;
      return { requests: s.requests.list(filter), last_seq: s.requests.lastSeq };
    },
  }),
];
