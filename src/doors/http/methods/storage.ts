import { z } from 'zod';
import { def, fail, type MethodDef, pageOf, READ_TIMEOUT_MS, sessionOf } from './common.js';

/** Cookies and local storage (§8.10), over the engine's session cookie jar and page storage. */

const getCookies = def({
  name: 'get_cookies',
  task: 'existing',
  schema: z.object({ url: z.string().min(1).optional() }),
  async run(ctx, p) {
    const cookies = await sessionOf(ctx).cookies(p.url ? { urls: [p.url] } : {});
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

const setCookie = def({
  name: 'set_cookie',
  task: 'existing',
  schema: z.object({
    name: z.string().min(1),
    value: z.string(),
    url: z.string().min(1).optional(),
    domain: z.string().optional(),
    path: z.string().optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const url = p.url ?? (p.domain ? undefined : session.page().url());
    if (url !== undefined && !/^https?:/.test(url)) {
      throw fail(ctx.method, 'ACTION_FAILED', `当前页面 ${url} 不能设置 cookie：请传 url（http/https）`, {
        invalidArgument: true,
        field: 'url',
      });
    }
    await session.setCookies([
      url
        ? { name: p.name, value: p.value, url }
        : { name: p.name, value: p.value, domain: p.domain, path: p.path ?? '/' },
    ]);
    return { name: p.name, url };
  },
});

const clearCookies = def({
  name: 'clear_cookies',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    await sessionOf(ctx).clearCookies();
    return { cleared: true };
  },
});

const getLocalStorage = def({
  name: 'get_local_storage',
  task: 'existing',
  schema: z.object({ key: z.string().optional() }),
  async run(ctx, p) {
    const v = await pageOf(ctx).storageGet('local', p.key, { timeoutMs: READ_TIMEOUT_MS });
    if (p.key !== undefined) return { key: p.key, value: v };
    return { value: JSON.stringify(v ?? {}) };
  },
});

const setLocalStorage = def({
  name: 'set_local_storage',
  task: 'existing',
  schema: z.object({ key: z.string().min(1), value: z.string() }),
  async run(ctx, p) {
    await pageOf(ctx).storageSet('local', p.key, p.value, { timeoutMs: READ_TIMEOUT_MS });
    return { key: p.key };
  },
});

const clearLocalStorage = def({
  name: 'clear_local_storage',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    await pageOf(ctx).storageRemove('local', undefined, { timeoutMs: READ_TIMEOUT_MS });
    return { cleared: true };
  },
});

export const STORAGE: MethodDef[] = [
  getCookies,
  setCookie,
  clearCookies,
  getLocalStorage,
  setLocalStorage,
  clearLocalStorage,
];
