import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import type { Data } from '../envelope.js';
import { budget, fail, type HttpMethod, method, NAVIGATION_TIMEOUT_MS, sessionOf, urlOf } from './common.js';
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

const getTabs = method({
  name: 'get_tabs',
  summary: '这个任务的标签页（pageIndex 从 0 开始，current 为当前操作的）',
  ops: [ops.listTabs],
  meta: { task: 'existing', reply: { tabs: '标签页：index, url, title, current' } },
  params: z.object({}),
  async run(ctx) {
    return { tabs: wireTabs(await tabsOf(sessionOf(ctx))) };
  },
});

const newTab = method({
  name: 'new_tab',
  summary: '打开新标签页（可带 url），切换过去并置前',
  ops: [ops.newTab, ops.bringToFront],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { pageIndex: '新标签页的 pageIndex', url: '新标签页的 URL' },
  },
  params: z.object({
    url: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(60_000).optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    // With the URL, the engine refuses a URL it will not open before the tab exists.
    const page = await ops.newTab.call(
      session,
      { url: p.url, activate: true },
      { timeoutMs: budget(p.timeoutMs, NAVIGATION_TIMEOUT_MS) },
    );
    await ops.bringToFront.call(page, {}, { timeoutMs: 3_000 }).catch(() => undefined);
    return { pageIndex: session.pages().findIndex((x) => x.id === page.id), url: await urlOf(page) };
  },
});

const switchTab = method({
  name: 'switch_tab',
  summary: '切换到第 pageIndex 个标签页（从 0 开始）并置前',
  ops: [ops.activateTab],
  meta: { task: 'existing', evidence: true, reply: { pageIndex: '切换到的 pageIndex', url: '它的 URL' } },
  params: z.object({ pageIndex: pageIndex.optional(), index: z.unknown().optional() }),
  async run(ctx, p) {
    if (p.pageIndex === undefined) missingPageIndex(ctx.method, p);
    const session = sessionOf(ctx);
    const page = pageAt(ctx.method, session, p.pageIndex);
    await ops.activateTab.call(session, { page_id: page.id }, { timeoutMs: 5_000 });
    return { pageIndex: p.pageIndex, url: await urlOf(page) };
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

const switchTabByUrl = method({
  name: 'switch_tab_by_url',
  summary: '切换到 URL 匹配的标签页（先按子串，再按 glob）',
  ops: [ops.listTabs, ops.activateTab],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { pageIndex: '切换到的 pageIndex', url: '它的 URL', title: '它的标题' },
  },
  params: z.object({ url: z.string().min(1) }),
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
    await ops.activateTab.call(session, { page_id: hit.pageId }, { timeoutMs: 5_000 });
    return { pageIndex: hit.index, url: hit.url, title: hit.title };
  },
});

const closeTab = method({
  name: 'close_tab',
  summary: '关闭第 pageIndex 个标签页；关掉当前的会切换到第一个',
  ops: [ops.closeTab, ops.activateTab],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { closed: '关掉的 pageIndex', remaining: '剩下的标签页数' },
  },
  params: z.object({ pageIndex: pageIndex.optional(), index: z.unknown().optional() }),
  async run(ctx, p) {
    if (p.pageIndex === undefined) missingPageIndex(ctx.method, p);
    const session = sessionOf(ctx);
    const page = pageAt(ctx.method, session, p.pageIndex);
    const wasCurrent = page.id === session.activePageId;
    await ops.closeTab.call(session, { page_id: page.id });
    const first = session.pages()[0];
    if (wasCurrent && first)
      await ops.activateTab.call(session, { page_id: first.id }, { timeoutMs: 5_000 }).catch(() => undefined);
    return { closed: p.pageIndex, remaining: session.pages().length };
  },
});

const closeOtherTabs = method({
  name: 'close_other_tabs',
  summary: '只保留一个标签页（pageIndex，默认当前的），关掉其他的',
  ops: [ops.closeTab, ops.activateTab],
  meta: {
    task: 'existing',
    evidence: true,
    reply: { closed: '关掉的标签页数', remaining: '剩下的标签页数', pageIndex: '0' },
  },
  params: z.object({ pageIndex: pageIndex.optional() }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const keep = p.pageIndex === undefined ? session.page() : pageAt(ctx.method, session, p.pageIndex);
    const others = session.pages().filter((x) => x.id !== keep.id);
    for (const o of others) await ops.closeTab.call(session, { page_id: o.id }).catch(() => undefined);
    await ops.activateTab.call(session, { page_id: keep.id }, { timeoutMs: 5_000 }).catch(() => undefined);
    return { closed: others.length, remaining: session.pages().length, pageIndex: 0 };
  },
});

const bringToFront = method({
  name: 'bring_to_front',
  summary: '把标签页的窗口置前给人看（pageIndex，默认当前的）；当前操作的标签页不变',
  ops: [ops.bringToFront],
  meta: { task: 'existing', evidence: true, reply: { pageIndex: '置前的 pageIndex', url: '它的 URL' } },
  params: z.object({ pageIndex: pageIndex.optional() }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const page = p.pageIndex === undefined ? session.page() : pageAt(ctx.method, session, p.pageIndex);
    await ops.bringToFront.call(page, {}, { timeoutMs: 5_000 });
    const data: Data = {
      pageIndex: session.pages().findIndex((x) => x.id === page.id),
      url: await urlOf(page),
    };
    return data;
  },
});

export const TABS: HttpMethod[] = [
  getTabs,
  newTab,
  switchTab,
  switchTabByUrl,
  closeTab,
  closeOtherTabs,
  bringToFront,
];
