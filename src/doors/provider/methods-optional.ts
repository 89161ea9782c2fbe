import type { ActionSpec } from '../../engine/actions/types.js';
import { TabwrightError } from '../../engine/errors.js';
import type { Page } from '../../engine/page.js';
import { actionOptions, actionResult, opOptions, pageOf, sessionOf, targetOf, waitUntil } from './helpers.js';
import {
  DownloadListParams,
  DownloadWaitParams,
  HistoryParams,
  PageHoverParams,
  PagePressParams,
  PageScrollParams,
  PageSelectParams,
  TabListParams,
  TabNewParams,
  TabRefParams,
  UploadParams,
} from './schemas.js';
import { type CallContext, type MethodDef, method } from './table.js';

type HistoryP = import('zod').infer<typeof HistoryParams>;

function history(
  name: string,
  go: (page: Page, p: HistoryP, call: CallContext) => Promise<unknown>,
): MethodDef {
  return method({
    name,
    group: 'optional',
    stability: 'stable',
    description: `${name.slice(5).replace('_', ' ')} on the current page (or page_id); returns page_id, url, title, status.`,
    input: HistoryParams,
    handler: (p, call) => go(pageOf(call, p), p, call),
  });
}

function tabInfo(page: Page) {
  const i = page.info();
  return { tab_id: i.page_id, ...i };
}

function tabRef(p: { page_id?: string; tab_id?: string }, method: string): string {
  if (p.page_id !== undefined && p.tab_id !== undefined && p.page_id !== p.tab_id) {
    throw new TabwrightError(
      'invalid_request',
      `${method}: page_id and tab_id name different tabs; give one.`,
      {
        details: { field: 'tab_id' },
      },
    );
  }
  const id = p.page_id ?? p.tab_id;
  if (id === undefined) {
    throw new TabwrightError('invalid_request', `${method}: page_id (or tab_id) is required; see tab.list.`, {
      details: { field: 'page_id' },
    });
  }
  return id;
}

export const OPTIONAL_METHODS: MethodDef[] = [
  history('page.go_back', (page, p, call) => page.back(waitUntil(p.wait_until), opOptions(p, call))),
  history('page.go_forward', (page, p, call) => page.forward(waitUntil(p.wait_until), opOptions(p, call))),
  history('page.reload', (page, p, call) => page.reload(waitUntil(p.wait_until), opOptions(p, call))),
  method({
    name: 'page.press',
    group: 'optional',
    stability: 'stable',
    description:
      'Press a key or chord ("Enter", "Control+A") on a target, or on the focused element without one.',
    input: PagePressParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const receipt = await page.act(
        targetOf(p, 'page.press', true),
        { action: 'press', key: p.key },
        actionOptions(p, call),
      );
      return { pressed: receipt.status === 'executed', ...actionResult(page, receipt) };
    },
  }),
  method({
    name: 'page.select',
    group: 'optional',
    stability: 'stable',
    description: 'Choose options of a native <select> by values, labels or indexes; verified by read-back.',
    input: PageSelectParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const spec: ActionSpec = { action: 'select' };
      if (p.values) spec.values = p.values;
      if (p.labels) spec.labels = p.labels;
      if (p.indexes) spec.indexes = p.indexes;
      const receipt = await page.act(targetOf(p, 'page.select'), spec, actionOptions(p, call));
      return { selected: receipt.verified === true, ...actionResult(page, receipt) };
    },
  }),
  method({
    name: 'page.hover',
    group: 'optional',
    stability: 'stable',
    description: 'Move the mouse over one element (trusted input).',
    input: PageHoverParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const receipt = await page.act(targetOf(p, 'page.hover'), { action: 'hover' }, actionOptions(p, call));
      return { hovered: receipt.status === 'executed', ...actionResult(page, receipt) };
    },
  }),
  method({
    name: 'page.scroll',
    group: 'optional',
    stability: 'stable',
    description:
      'Scroll the page (or an element) by pages or pixels (dy, dx), or an element into view; scrolled says whether it moved.',
    input: PageScrollParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const spec: ActionSpec = { action: 'scroll' };
      if (p.pages !== undefined) spec.pages = p.pages;
      if (p.dy !== undefined) spec.dy = p.dy;
      if (p.dx !== undefined) spec.dx = p.dx;
      if (p.into_view !== undefined) spec.into_view = p.into_view;
      const receipt = await page.act(targetOf(p, 'page.scroll', true), spec, actionOptions(p, call));
      return { scrolled: receipt.verified !== false, ...actionResult(page, receipt) };
    },
  }),
  method({
    name: 'upload.set_files',
    group: 'optional',
    stability: 'stable',
    description: 'Set local files on an <input type=file> (element_ref or selector).',
    input: UploadParams,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const receipt = await page.act(
        targetOf(p, 'upload.set_files'),
        { action: 'set_files', files: p.files },
        actionOptions(p, call),
      );
      return { set: receipt.status === 'executed', files: p.files.length, ...actionResult(page, receipt) };
    },
  }),
  method({
    name: 'tab.list',
    group: 'optional',
    stability: 'stable',
    description: 'The open tabs (pages) of the session with fresh titles; tab_id equals page_id.',
    input: TabListParams,
    handler: async (p, call) => {
      const s = sessionOf(call, p.session_id);
      const tabs = (await s.describePages()).map((i) => ({ tab_id: i.page_id, ...i }));
      return { session_id: s.id, tabs, active_page_id: s.activePageId };
    },
  }),
  method({
    name: 'tab.new',
    group: 'optional',
    stability: 'stable',
    description: 'Open a new tab, optionally at a URL; foreground (default true) makes it the current page.',
    input: TabNewParams,
    handler: async (p, call) => {
      const s = sessionOf(call, p.session_id);
      const opts = opOptions(p, call);
      const page = await s.newPage({ ...opts, activate: p.foreground !== false });
      const nav = p.url ? await page.open(p.url, waitUntil(p.wait_until), opts) : null;
      return { ...tabInfo(page), status: nav?.status ?? null, title: nav?.title ?? '' };
    },
  }),
  method({
    name: 'tab.activate',
    group: 'optional',
    stability: 'stable',
    description: 'Make a tab the current page of the session and bring it to the front.',
    input: TabRefParams,
    handler: async (p, call) => {
      const s = sessionOf(call, p.session_id);
      const page = await s.activate(tabRef(p, 'tab.activate'), opOptions(p, call));
      return tabInfo(page);
    },
  }),
  method({
    name: 'tab.close',
    group: 'optional',
    stability: 'stable',
    description: 'Close a tab; the current page moves to another open tab (default_page_id).',
    input: TabRefParams,
    handler: async (p, call) => {
      const s = sessionOf(call, p.session_id);
      const id = tabRef(p, 'tab.close');
      await s.closePage(id);
      return { page_id: id, tab_id: id, closed: true, default_page_id: s.activePageId };
    },
  }),
  method({
    name: 'download.list',
    group: 'optional',
    stability: 'stable',
    description: 'Downloads of the session (saved under the session folder), oldest first, after since_seq.',
    input: DownloadListParams,
    handler: (p, call) => {
      const s = sessionOf(call, p.session_id);
      return { downloads: s.listDownloads(p.since_seq ?? 0), last_seq: s.downloads.lastSeq };
    },
  }),
  method({
    name: 'download.wait',
    group: 'optional',
    stability: 'stable',
    description:
      'Wait for a download (download_id, else the newest in progress or the next to start) to complete or fail.',
    input: DownloadWaitParams,
    handler: async (p, call) => {
      const s = sessionOf(call, p.session_id);
      const req = p.download_id !== undefined ? { download_id: p.download_id } : {};
      return { download: await s.waitForDownload(req, opOptions(p, call)) };
    },
  }),
];
