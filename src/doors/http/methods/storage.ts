import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import { fail, type HttpMethod, method, pageOf, READ_TIMEOUT_MS, sessionOf, urlOf } from './common.js';

/** Cookies and local storage (§8.10), over the engine's session cookie jar and page storage. */

const getCookies = method({
  name: 'get_cookies',
  summary: '这个任务的 cookie（传 url 时只返回会发给它的）',
  ops: [ops.cookies],
  meta: {
    task: 'existing',
    reply: {
      cookies: 'cookie：name, value, domain, path, expires, httpOnly, secure, sameSite',
      count: '个数',
    },
  },
  params: z.object({ url: z.string().min(1).optional() }),
  async run(ctx, p) {
    const cookies = await ops.cookies.call(sessionOf(ctx), p.url ? { urls: [p.url] } : {});
    return {
      cookies: cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        expires: c.expires,
        httpOnly: c.httpOnly,
        secure: c.secure,
        sameSite: c.sameSite,
      })),
      count: cookies.length,
    };
  },
});

const setCookie = method({
  name: 'set_cookie',
  summary: '设置一个 cookie（url 推荐；不传时用当前页面的 URL，或 domain + path）',
  ops: [ops.setCookies],
  meta: { task: 'existing', evidence: true, reply: { name: 'cookie 名', url: '设置到的 URL' } },
  params: z.object({
    name: z.string().min(1),
    value: z.string(),
    url: z.string().min(1).optional(),
    domain: z.string().optional(),
    path: z.string().optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const url = p.url ?? (p.domain ? undefined : await urlOf(session.page()));
    if (url !== undefined && !/^https?:/.test(url)) {
      throw fail(ctx.method, 'ACTION_FAILED', `当前页面 ${url} 不能设置 cookie：请传 url（http/https）`, {
        invalidArgument: true,
        field: 'url',
      });
    }
    await ops.setCookies.call(session, {
      cookies: [
        url
          ? { name: p.name, value: p.value, url }
          : { name: p.name, value: p.value, domain: p.domain, path: p.path ?? '/' },
      ],
    });
    return { name: p.name, url };
  },
});

const clearCookies = method({
  name: 'clear_cookies',
  summary: '删除这个任务的所有 cookie',
  ops: [ops.clearCookies],
  meta: { task: 'existing', reply: { cleared: 'true' } },
  params: z.object({}),
  async run(ctx) {
    await ops.clearCookies.call(sessionOf(ctx), {});
    return { cleared: true };
  },
});

const getLocalStorage = method({
  name: 'get_local_storage',
  summary: '读取当前页面的 localStorage：一个 key 的值，不传 key 时整个存储（JSON 字符串）',
  ops: [ops.storageRead],
  meta: { task: 'existing', reply: { key: '回显的 key', value: '值；不传 key 时是整个存储的 JSON 字符串' } },
  params: z.object({ key: z.string().optional() }),
  async run(ctx, p) {
    const v = await ops.storageRead.call(
      pageOf(ctx),
      { area: 'local', key: p.key },
      { timeoutMs: READ_TIMEOUT_MS },
    );
    if (p.key !== undefined) return { key: p.key, value: v };
    return { value: JSON.stringify(v ?? {}) };
  },
});

const setLocalStorage = method({
  name: 'set_local_storage',
  summary: '设置当前页面 localStorage 的一个 key',
  ops: [ops.storageWrite],
  meta: { task: 'existing', evidence: true, reply: { key: '设置的 key' } },
  params: z.object({ key: z.string().min(1), value: z.string() }),
  async run(ctx, p) {
    await ops.storageWrite.call(
      pageOf(ctx),
      { area: 'local', key: p.key, value: p.value },
      { timeoutMs: READ_TIMEOUT_MS },
    );
    return { key: p.key };
  },
});

const clearLocalStorage = method({
  name: 'clear_local_storage',
  summary: '清空当前页面的 localStorage',
  ops: [ops.storageDelete],
  meta: { task: 'existing', reply: { cleared: 'true' } },
  params: z.object({}),
  async run(ctx) {
    await ops.storageDelete.call(pageOf(ctx), { area: 'local' }, { timeoutMs: READ_TIMEOUT_MS });
    return { cleared: true };
  },
});

export const STORAGE: HttpMethod[] = [
  getCookies,
  setCookie,
  clearCookies,
  getLocalStorage,
  setLocalStorage,
  clearLocalStorage,
];
