import { z } from 'zod';
import type { Data } from '../envelope.js';
import { budget, def, fail, type MethodDef, NAVIGATION_TIMEOUT_MS, sessionOf } from './common.js';
import { tabsOf, wireTabs } from './shared-reads.js';

/** Tabs (§8.6): pageIndex and tabs[].index are 0-based, in the engine's tab order. */

const pageIndex = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);

function missingPageIndex(method: string, p: Record<string, unknown>): never {
  const sentIndex = (p as { index?: unknown }).index !== undefined;
  throw fail(
    method,
    'ACTION_FAILED',
    sentIndex
      ? '缺少参数 pageIndex（你传的是 index：回执里那个字段叫 index，但这里的参数名是 pageIndex，改成 pageIndex 即可）'
      : '缺少参数 pageIndex',
    { invalidArgument: true, field: 'pageIndex' },
  );
}

function pageAt(method: string, session: ReturnType<typeof sessionOf>, i: number) {
  const pages = session.pages();
  const page = pages[i];
  if (!page) {
    throw fail(
      method,
      'ACTION_FAILED',
      `没有第 ${i} 个标签页（共 ${pages.length} 个，pageIndex 从 0 开始）`,
      {
        pageIndex: i,
        tabCount: pages.length,
      },
    );
  }
  return page;
}

const getTabs = def({
  name: 'get_tabs',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    return { tabs: wireTabs(await tabsOf(sessionOf(ctx))) };
  },
});

const newTab = def({
  name: 'new_tab',
  task: 'existing',
  schema: z.object({
    url: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(60_000).optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    // With the URL, the engine refuses a URL it will not open before the tab exists.
    const page = await session.newPage({
      timeoutMs: budget(p.timeoutMs, NAVIGATION_TIMEOUT_MS),
      activate: true,
      url: p.url,
    });
    await page.bringToFront({ timeoutMs: 3_000 }).catch(() => undefined);
    return { pageIndex: session.pages().findIndex((x) => x.id === page.id), url: page.url() };
  },
});

const switchTab = def({
  name: 'switch_tab',
  task: 'existing',
  schema: z.object({ pageIndex: pageIndex.optional(), index: z.unknown().optional() }),
  async run(ctx, p) {
    if (p.pageIndex === undefined) missingPageIndex(ctx.method, p);
    const session = sessionOf(ctx);
    const page = pageAt(ctx.method, session, p.pageIndex);
    await session.activate(page.id, { timeoutMs: 5_000 });
    return { pageIndex: p.pageIndex, url: page.url() };
  },
});

/** Substring first, then a glob where `*` and `**` both cross `/` (§8.6, §15.4). */
export function urlMatches(url: string, pattern: string): boolean {
  if (url.includes(pattern)) return true;
  const re = new RegExp(
    `^${pattern
      .split(/\*+/)
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}([?#].*)?$`,
  );
  return re.test(url);
}

const switchTabByUrl = def({
  name: 'switch_tab_by_url',
  task: 'existing',
  schema: z.object({ url: z.string().min(1) }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const tabs = await tabsOf(session);
    const hit = tabs.find((t) => urlMatches(t.url, p.url));
    if (!hit) {
      const list = tabs.map((t) => `${t.index}: ${t.url}`).join('；');
      throw fail(ctx.method, 'ACTION_FAILED', `没有 URL 匹配 ${p.url} 的标签页。现有标签页：${list}`, {
        tabs: wireTabs(tabs),
      });
    }
    await session.activate(hit.pageId, { timeoutMs: 5_000 });
    return { pageIndex: hit.index, url: hit.url, title: hit.title };
  },
});

const closeTab = def({
  name: 'close_tab',
  task: 'existing',
  schema: z.object({ pageIndex: pageIndex.optional(), index: z.unknown().optional() }),
  async run(ctx, p) {
    if (p.pageIndex === undefined) missingPageIndex(ctx.method, p);
    const session = sessionOf(ctx);
    const page = pageAt(ctx.method, session, p.pageIndex);
    const wasCurrent = page.id === session.activePageId;
    await session.closePage(page.id);
    const first = session.pages()[0];
    if (wasCurrent && first) await session.activate(first.id, { timeoutMs: 5_000 }).catch(() => undefined);
    return { closed: p.pageIndex, remaining: session.pages().length };
  },
});

const closeOtherTabs = def({
  name: 'close_other_tabs',
  task: 'existing',
  schema: z.object({ pageIndex: pageIndex.optional() }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const keep = p.pageIndex === undefined ? session.page() : pageAt(ctx.method, session, p.pageIndex);
    const others = session.pages().filter((x) => x.id !== keep.id);
    for (const o of others) await session.closePage(o.id).catch(() => undefined);
    await session.activate(keep.id, { timeoutMs: 5_000 }).catch(() => undefined);
    return { closed: others.length, remaining: session.pages().length, pageIndex: 0 };
  },
});

const bringToFront = def({
  name: 'bring_to_front',
  task: 'existing',
  schema: z.object({ pageIndex: pageIndex.optional() }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const page = p.pageIndex === undefined ? session.page() : pageAt(ctx.method, session, p.pageIndex);
    await page.bringToFront({ timeoutMs: 5_000 });
    const data: Data = { pageIndex: session.pages().findIndex((x) => x.id === page.id), url: page.url() };
    return data;
  },
});

export const TABS: MethodDef[] = [
  getTabs,
  newTab,
  switchTab,
  switchTabByUrl,
  closeTab,
  closeOtherTabs,
  bringToFront,
];
