import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ops, TabwrightError } from '../../../engine/api.js';
import type { NavigationOutcome } from '../../../engine/page.js';
import { CommandFailure, type Data } from '../envelope.js';
import {
  budget,
  type HttpMethod,
  type MethodContext,
  method,
  NAVIGATION_TIMEOUT_MS,
  pageOf,
  READ_TIMEOUT_MS,
  sessionOf,
  urlOf,
} from './common.js';
import { consoleData } from './dialogs.js';
import { requestData } from './network.js';
import { NAVIGATION_REPLY } from './replies.js';
import { dialogOf, tabsOf, wireTabs } from './shared-reads.js';

const navSchema = z.object({
  url: z.string().min(1),
  timeoutMs: z.number().int().min(1).max(60_000).optional(),
});

function navData(out: NavigationOutcome): Data {
  const data: Data = { status: out.status ?? 0, url: out.url, title: out.title };
  if (out.download)
    data.download = { downloadId: out.download.download_id, filename: out.download.suggested_filename };
  return data;
}

async function open(ctx: MethodContext, url: string, timeoutMs: number | undefined): Promise<Data> {
  const out = await ops.open.call(
    pageOf(ctx),
    { url, wait_until: 'load' },
    { timeoutMs: budget(timeoutMs, NAVIGATION_TIMEOUT_MS) },
  );
  return navData(out);
}

function goTo(name: string, summary: string): HttpMethod {
  return method({
    name,
    summary,
    ops: [ops.open],
    meta: { task: 'existing', evidence: true, compactDrop: ['url', 'title'], reply: NAVIGATION_REPLY },
    params: navSchema,
    run: (ctx, p) => open(ctx, p.url, p.timeoutMs),
  });
}

function history(name: 'go_back' | 'go_forward'): HttpMethod {
  const op = name === 'go_back' ? ops.back : ops.forward;
  return method({
    name,
    summary: name === 'go_back' ? '后退一页（没有历史记录时失败）' : '前进一页（没有历史记录时失败）',
    ops: [op],
    meta: { task: 'existing', evidence: true, compactDrop: ['title'], reply: NAVIGATION_REPLY },
    params: z.object({ timeoutMs: z.number().int().min(1).max(60_000).optional() }),
    async run(ctx, p) {
      const opts = { timeoutMs: budget(p.timeoutMs, NAVIGATION_TIMEOUT_MS) };
      try {
        return navData(await op.call(pageOf(ctx), { wait_until: 'load' }, opts));
      } catch (err) {
        if (err instanceof TabwrightError && err.details.reason === 'no_history') {
          throw new CommandFailure(
            name === 'go_back' ? '无法后退：没有可用历史记录' : '无法前进：没有可用历史记录',
            { errorCode: 'ACTION_FAILED', retryable: false, noHistory: true },
          );
        }
        throw err;
      }
    },
  });
}

const reload = method({
  name: 'reload',
  summary: '重新加载页面',
  ops: [ops.reload],
  meta: { task: 'existing', evidence: true, compactDrop: ['url', 'title'], reply: NAVIGATION_REPLY },
  params: z.object({ timeoutMs: z.number().int().min(1).max(60_000).optional() }),
  async run(ctx, p) {
    return navData(
      await ops.reload.call(
        pageOf(ctx),
        { wait_until: 'load' },
        { timeoutMs: budget(p.timeoutMs, NAVIGATION_TIMEOUT_MS) },
      ),
    );
  },
});

const getUrl = method({
  name: 'get_url',
  summary: '当前标签页的 URL',
  ops: [ops.info],
  meta: { task: 'existing', reply: { url: '当前 URL' } },
  params: z.object({}),
  async run(ctx) {
    return { url: await urlOf(pageOf(ctx)) };
  },
});

const getTitle = method({
  name: 'get_title',
  summary: '当前标签页的标题',
  ops: [ops.title],
  meta: { task: 'existing', reply: { title: '当前标题' } },
  params: z.object({}),
  async run(ctx) {
    return { title: await ops.title.call(pageOf(ctx), {}, { timeoutMs: READ_TIMEOUT_MS }) };
  },
});

const wait = method({
  name: 'wait',
  summary: '固定等待 seconds 秒',
  effect: 'wait',
  meta: { task: 'existing', evidence: true, reply: { waitedMs: '等待的毫秒数' } },
  params: z.object({ seconds: z.number().min(0).max(900) }),
  async run(_ctx, p) {
    await sleep(Math.round(p.seconds * 1000));
    return { waitedMs: Math.round(p.seconds * 1000) };
  },
});

const getPageSnapshot = method({
  name: 'get_page_snapshot',
  summary: '页面概况：URL、标题、标签页、最近的对话框、是否在加载（可附控制台日志和请求），不含页面文字',
  ops: [
    ops.readyState,
    ops.info,
    ops.title,
    ops.listTabs,
    ops.dialogs,
    ops.consoleMessages,
    ops.networkStatus,
    ops.requests,
  ],
  meta: {
    task: 'existing',
    reply: {
      url: 'URL',
      title: '标题',
      tabs: '标签页：index, url, title, current',
      dialog: '最近的原生对话框（或 null）',
      loading: '页面是否还在加载',
      logs: 'includeConsole 时：控制台日志',
      errors: 'includeConsole 时：页面错误',
      logsTruncated: '日志截断了',
      errorsTruncated: '错误截断了',
      requests: 'includeRequests 时：最近 50 个请求',
      requestsTotal: '匹配的请求总数',
      requestsNote: '没有开启网络记录时的说明',
    },
  },
  params: z.object({
    includeConsole: z.boolean().optional(),
    includeRequests: z.boolean().optional(),
    requestFilter: z.string().optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const page = session.page();
    const loading = await ops.readyState
      .call(page, {}, { timeoutMs: 2_000 })
      .then((state) => state !== 'complete')
      .catch(() => true);
    const info = await ops.info.call(page, {});
    const data: Data = {
      url: info.url,
      title: await ops.title.call(page, {}, { timeoutMs: 3_000 }).catch(() => info.title),
      tabs: wireTabs(await tabsOf(session)),
      dialog: await dialogOf(ctx),
      loading,
    };
    if (p.includeConsole) Object.assign(data, await consoleData(ctx));
    if (p.includeRequests) {
      // The newest 50 entries of the request log (get_requests has the filters, limits and totals).
      const { recording } = await ops.networkStatus.call(session, {});
      const all = recording ? await ops.requests.call(session, { filter: p.requestFilter || undefined }) : [];
      data.requests = all.slice(-50).map(requestData);
      data.requestsTotal = all.length;
      data.requestsNote = recording ? undefined : '这个任务没有开启网络记录（networkRecording:false）';
    }
    return data;
  },
});

export const NAVIGATION: HttpMethod[] = [
  goTo('navigate', '打开一个网址（等到 load）'),
  goTo('go_to_url', '打开一个网址（等到 load）；navigate 的同名方法'),
  history('go_back'),
  history('go_forward'),
  reload,
  getUrl,
  getTitle,
  wait,
  getPageSnapshot,
];
