import type { z } from 'zod';
import { type OutputOf, ops, TabwrightError } from '../../engine/api.js';
import type { Page } from '../../engine/page.js';
import {
  actionBase,
  actionResult,
  ELEMENT_TARGET,
  opOptions,
  pageOf,
  runAction,
  sessionOf,
  targetOf,
  waitUntil,
} from './helpers.js';
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
import { type CallContext, method, type ProviderMethod } from './table.js';

function history(name: string, op: typeof ops.back | typeof ops.forward | typeof ops.reload): ProviderMethod {
  return method({
    name,
    summary: `${name.slice(5).replace('_', ' ')} on the current page (or page_id); returns page_id, url, title, status.`,
    ops: [op],
    meta: { group: 'optional', stability: 'stable' },
    params: HistoryParams,
    run: (call, p) => op.call(pageOf(call, p), { wait_until: waitUntil(p.wait_until) }, opOptions(p, call)),
  });
}

async function tabInfo(page: Page) {
  const i = await ops.info.call(page, {});
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

/**
 * The upload operation's receipt in the provider's words: which input took the files, what it reads
 * back, and whether the page listens (src/engine/uploads.ts). It rides in `receipt.upload`.
 */
function uploadFacts(u: OutputOf<typeof ops.upload>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    element_ref: u.element_ref,
    files_length: u.filesLength,
    file_names: u.fileNames,
    element_gone: u.elementGone,
    page_changed: u.pageChanged,
    page_change_status: u.pageChangeStatus,
    has_listeners: u.hasListeners,
    listener_detection: u.listenerDetection,
    consumed: u.consumed,
    listeners: u.listeners,
    input: u.input,
  };
  if (u.readbackNote !== undefined) out.readback_note = u.readbackNote;
  if (u.matched !== undefined) out.matched = u.matched;
  if (u.chosenIndex !== undefined) out.chosen_index = u.chosenIndex;
  if (u.visibleMatched !== undefined) out.visible_matched = u.visibleMatched;
  return out;
}

type UploadP = z.output<typeof UploadParams>;

async function setFiles(call: CallContext, p: UploadP) {
  const page = pageOf(call, p);
  const u = await ops.upload.call(
    page,
    { ...actionBase(p, targetOf(p, 'upload.set_files', ELEMENT_TARGET)), files: p.files },
    opOptions(p, call),
  );
  return {
    set: u.receipt.status === 'executed',
    files: p.files.length,
    ...(await actionResult(page, u.receipt, { upload: uploadFacts(u) })),
  };
}

export const OPTIONAL_METHODS: ProviderMethod[] = [
  history('page.go_back', ops.back),
  history('page.go_forward', ops.forward),
  history('page.reload', ops.reload),
  method({
    name: 'page.press',
    summary:
      'Press a key or chord ("Enter", "Control+A") on a target, or on the focused element without one.',
    ops: [ops.press],
    meta: { group: 'optional', stability: 'stable' },
    params: PagePressParams,
    run: (call, p) =>
      runAction(call, p, {
        target: () => targetOf(p, 'page.press', undefined, true),
        perform: (page, base, o) => ops.press.call(page, { ...base, key: p.key }, o),
        reply: (r) => ({ pressed: r.status === 'executed' }),
      }),
  }),
  method({
    name: 'page.select',
    summary: 'Choose options of a native <select> by values, labels or indexes; verified by read-back.',
    ops: [ops.select],
    meta: { group: 'optional', stability: 'stable' },
    params: PageSelectParams,
    run: (call, p) =>
      runAction(call, p, {
        target: () => targetOf(p, 'page.select'),
        perform: (page, base, o) =>
          ops.select.call(page, { ...base, values: p.values, labels: p.labels, indexes: p.indexes }, o),
        reply: (r) => ({ selected: r.verified === true }),
      }),
  }),
  method({
    name: 'page.hover',
    summary: 'Move the mouse over one element (trusted input).',
    ops: [ops.hover],
    meta: { group: 'optional', stability: 'stable' },
    params: PageHoverParams,
    run: (call, p) =>
      runAction(call, p, {
        target: () => targetOf(p, 'page.hover'),
        perform: (page, base, o) => ops.hover.call(page, base, o),
        reply: (r) => ({ hovered: r.status === 'executed' }),
      }),
  }),
  method({
    name: 'page.scroll',
    summary:
      'Scroll the page (or an element) by pages or pixels (dy, dx), or an element into view; scrolled says whether it moved.',
    ops: [ops.scroll],
    meta: { group: 'optional', stability: 'stable' },
    params: PageScrollParams,
    run: (call, p) =>
      runAction(call, p, {
        target: () => targetOf(p, 'page.scroll', undefined, true),
        perform: (page, base, o) =>
          ops.scroll.call(page, { ...base, pages: p.pages, dy: p.dy, dx: p.dx, into_view: p.into_view }, o),
        reply: (r) => ({ scrolled: r.verified !== false }),
      }),
  }),
  method({
    name: 'upload.set_files',
    summary:
      'Set local files on an <input type=file> (element_ref or selector); the receipt says which input took them, what it reads back and whether the page listens.',
    ops: [ops.upload],
    meta: { group: 'optional', stability: 'stable', features: ['file_upload'] },
    params: UploadParams,
    run: setFiles,
  }),
  method({
    name: 'tab.list',
    summary: 'The open tabs (pages) of the session with fresh titles; tab_id equals page_id.',
    ops: [ops.listTabs],
    meta: { group: 'optional', stability: 'stable' },
    params: TabListParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const tabs = (await ops.listTabs.call(s, {})).map((i) => ({ tab_id: i.page_id, ...i }));
      return { session_id: s.id, tabs, active_page_id: s.activePageId };
    },
  }),
  method({
    name: 'tab.new',
    summary: 'Open a new tab, optionally at a URL; foreground (default true) makes it the current page.',
    ops: [ops.newTab, ops.open],
    meta: { group: 'optional', stability: 'stable' },
    params: TabNewParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const opts = opOptions(p, call);
      const page = await ops.newTab.call(s, { activate: p.foreground !== false }, opts);
      const nav = p.url
        ? await ops.open.call(page, { url: p.url, wait_until: waitUntil(p.wait_until) }, opts)
        : null;
      return { ...(await tabInfo(page)), status: nav?.status ?? null, title: nav?.title ?? '' };
    },
  }),
  method({
    name: 'tab.activate',
    summary: 'Make a tab the current page of the session and bring it to the front.',
    ops: [ops.activateTab],
    meta: { group: 'optional', stability: 'stable' },
    params: TabRefParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const page = await ops.activateTab.call(s, { page_id: tabRef(p, 'tab.activate') }, opOptions(p, call));
      return tabInfo(page);
    },
  }),
  method({
    name: 'tab.close',
    summary: 'Close a tab; the current page moves to another open tab (default_page_id).',
    ops: [ops.closeTab],
    meta: { group: 'optional', stability: 'stable' },
    params: TabRefParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const id = tabRef(p, 'tab.close');
      await ops.closeTab.call(s, { page_id: id });
      return { page_id: id, tab_id: id, closed: true, default_page_id: s.activePageId };
    },
  }),
  method({
    name: 'download.list',
    summary: 'Downloads of the session (saved under the session folder), oldest first, after since_seq.',
    ops: [ops.downloads],
    meta: { group: 'optional', stability: 'stable', features: ['download_observe'] },
    params: DownloadListParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const downloads = await ops.downloads.call(s, { since_seq: p.since_seq ?? 0 });
      return { downloads, last_seq: s.downloads.lastSeq };
    },
  }),
  method({
    name: 'download.wait',
    summary:
      'Wait for a download (download_id, else the newest in progress or the next to start) to complete or fail.',
    ops: [ops.waitForDownload],
    meta: { group: 'optional', stability: 'stable', features: ['download_observe'] },
    params: DownloadWaitParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const req = p.download_id !== undefined ? { download_id: p.download_id } : {};
      return { download: await ops.waitForDownload.call(s, req, opOptions(p, call)) };
    },
  }),
];
