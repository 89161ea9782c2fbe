import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { TabwrightError } from '../../../engine/errors.js';
import type { NavigationOutcome } from '../../../engine/page.js';
import { CommandFailure, type Data } from '../envelope.js';
import {
  budget,
  def,
  type MethodContext,
  type MethodDef,
  NAVIGATION_TIMEOUT_MS,
  pageOf,
  READ_TIMEOUT_MS,
  sessionOf,
} from './common.js';
import { consoleData } from './dialogs.js';
import { requestData } from './network.js';
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
  const out = await pageOf(ctx).open(url, 'load', { timeoutMs: budget(timeoutMs, NAVIGATION_TIMEOUT_MS) });
  return navData(out);
}

const navigate = def({
  name: 'navigate',
  task: 'existing',
  schema: navSchema,
  compactDrop: ['url', 'title'],
  run: (ctx, p) => open(ctx, p.url, p.timeoutMs),
});

const goToUrl = def({
  name: 'go_to_url',
  task: 'existing',
  schema: navSchema,
  compactDrop: ['url', 'title'],
  run: (ctx, p) => open(ctx, p.url, p.timeoutMs),
});

function history(name: 'go_back' | 'go_forward'): MethodDef {
  return def({
    name,
    task: 'existing',
    schema: z.object({ timeoutMs: z.number().int().min(1).max(60_000).optional() }),
    compactDrop: ['title'],
    async run(ctx, p) {
      const page = pageOf(ctx);
      const opts = { timeoutMs: budget(p.timeoutMs, NAVIGATION_TIMEOUT_MS) };
      try {
        const out = name === 'go_back' ? await page.back('load', opts) : await page.forward('load', opts);
        return navData(out);
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

const reload = def({
  name: 'reload',
  task: 'existing',
  schema: z.object({ timeoutMs: z.number().int().min(1).max(60_000).optional() }),
  compactDrop: ['url', 'title'],
  async run(ctx, p) {
    return navData(
      await pageOf(ctx).reload('load', { timeoutMs: budget(p.timeoutMs, NAVIGATION_TIMEOUT_MS) }),
    );
  },
});

const getUrl = def({
  name: 'get_url',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    return { url: pageOf(ctx).url() };
  },
});

const getTitle = def({
  name: 'get_title',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    return { title: await pageOf(ctx).title({ timeoutMs: READ_TIMEOUT_MS }) };
  },
});

const wait = def({
  name: 'wait',
  task: 'existing',
  schema: z.object({ seconds: z.number().min(0).max(600) }),
  async run(_ctx, p) {
    await sleep(Math.round(p.seconds * 1000));
    return { waitedMs: Math.round(p.seconds * 1000) };
  },
});

const getPageSnapshot = def({
  name: 'get_page_snapshot',
  task: 'existing',
  schema: z.object({
    includeConsole: z.boolean().optional(),
    includeRequests: z.boolean().optional(),
    requestFilter: z.string().optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    const page = session.page();
    const loading = await page
      .evaluateScript('document.readyState', { timeoutMs: 2_000 })
      .then((r) => r.value !== 'complete')
      .catch(() => true);
    const data: Data = {
      url: page.url(),
      title: await page.title({ timeoutMs: 3_000 }).catch(() => page.info().title),
      tabs: wireTabs(await tabsOf(session)),
      dialog: dialogOf(ctx),
      loading,
    };
    if (p.includeConsole) Object.assign(data, consoleData(ctx));
    if (p.includeRequests) {
      // The newest 50 entries of the request log (get_requests has the filters, limits and totals).
      const log = session.requests;
      const all = log.recording ? log.list({ filter: p.requestFilter || undefined }) : [];
      data.requests = all.slice(-50).map(requestData);
      data.requestsTotal = all.length;
      data.requestsNote = log.recording ? undefined : '这个任务没有开启网络记录（networkRecording:false）';
    }
    return data;
  },
});

export const NAVIGATION: MethodDef[] = [
  navigate,
  goToUrl,
  history('go_back'),
  history('go_forward'),
  reload,
  getUrl,
  getTitle,
  wait,
  getPageSnapshot,
];
