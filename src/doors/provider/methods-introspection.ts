import { ops } from '../../engine/api.js';
import { opOptions, pageOf, sessionOf } from './helpers.js';
import {
  ConsoleListParams,
  CookieListParams,
  NetworkListParams,
  PageEvalParams,
  StorageGetParams,
} from './schemas.js';
import { method, type ProviderMethod } from './table.js';

export const INTROSPECTION_METHODS: ProviderMethod[] = [
  method({
    name: 'page.eval',
    summary:
      'Run JavaScript in the page: an expression, a function expression (called with args) or a statement body using return. Promises are awaited; returns {value, type}. A page exception is invalid_request with details.reason "script_error".',
    ops: [ops.evaluate],
    meta: { group: 'optional', stability: 'stable', features: ['js_eval'] },
    params: PageEvalParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const r = await ops.evaluate.call(page, { source: p.script, args: p.args ?? [] }, opOptions(p, call));
      return { page_id: page.id, ...r };
    },
  }),
  method({
    name: 'console.list',
    summary:
      'Console messages and uncaught page errors of the page (the last 500), after since_seq, optionally of one level.',
    ops: [ops.consoleMessages],
    meta: { group: 'optional', stability: 'stable', features: ['console_observe'] },
    params: ConsoleListParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const entries = await ops.consoleMessages.call(page, {
        since_seq: p.since_seq,
        limit: p.limit,
        level: p.level,
      });
      return { page_id: page.id, entries, last_seq: page.console.lastSeq };
    },
  }),
  method({
    name: 'storage.get',
    summary:
      "localStorage (area local, default) or sessionStorage of the page's current document: every key, or one key's value (null when absent).",
    ops: [ops.storageRead],
    meta: { group: 'optional', stability: 'stable' },
    params: StorageGetParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const area = p.area ?? 'local';
      const v = await ops.storageRead.call(page, { area, key: p.key }, opOptions(p, call));
      return p.key !== undefined
        ? { page_id: page.id, area, key: p.key, value: v }
        : { page_id: page.id, area, items: v };
    },
  }),
  method({
    name: 'cookie.list',
    summary: "Cookies of the session's browser context, optionally only those sent to urls.",
    ops: [ops.cookies],
    meta: { group: 'optional', stability: 'stable' },
    params: CookieListParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      return { cookies: await ops.cookies.call(s, p.urls ? { urls: p.urls } : {}) };
    },
  }),
  method({
    name: 'network.list',
    summary:
      "Requests of the session's pages (the last 1000): method, URL, type, status, timing, failure; after since_seq, filtered by URL, type or page.",
    ops: [ops.requests],
    meta: { group: 'optional', stability: 'stable', features: ['network_observe'] },
    params: NetworkListParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const { session_id: _s, ...filter } = p;
      return { requests: await ops.requests.call(s, filter), last_seq: s.requests.lastSeq };
    },
  }),
];
