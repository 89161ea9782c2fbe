import { z } from 'zod';
import { type OutputOf, ops } from '../../engine/api.js';
import { targetFrom } from '../kit/index.js';
import { q, renderError, renderNavigation, renderPages, renderReceipt } from './render.js';
import { renderSnapshot } from './snapshot-text.js';
import { MORE_TOOLS } from './table-more.js';
import {
  runAction as act,
  ClickFields,
  operationOptions as opts,
  PageFields,
  PressFields,
  ScrollFields,
  SelectFields,
  ShotFields,
  SnapshotFields,
  strict,
  TargetFields,
  type ToolDef,
  TypeFields,
  targetOf,
  tool,
  UploadFields,
  WaitFields,
} from './tools.js';
import { checkUploads } from './uploads.js';

/**
 * The MCP tool table: each tool a row over engine operations (src/engine/ops): its wire schema
 * (composed from the engine's schemas), a one-line summary for the model, the operations it
 * runs, and a handler that renames arguments and renders the result as compact text. No browser
 * logic lives here; titles and annotations in tools/list come from the rows (server.ts).
 */

const WaitUntil = z
  .enum(['load', 'domcontentloaded', 'networkidle'])
  .optional()
  .describe('default domcontentloaded');
/** Navigations get a longer default deadline than other tools: heavy pages on busy machines. */
const NAV_TIMEOUT_MS = 30_000;

export const navigate = tool({
  name: 'navigate',
  summary: 'Open a URL in the tab (or a new tab). Returns page_id, URL, title.',
  ops: [ops.open, ops.newTab],
  meta: { title: 'Navigate', core: true },
  params: strict({
    url: z.string().min(1),
    new_tab: z.boolean().optional(),
    wait_until: WaitUntil,
    ...PageFields,
  }),
  async run(ctx, a) {
    let page = await ctx.scope.page(a.page_id);
    if (a.new_tab) page = await ops.newTab.call(page.session, {});
    const o = { ...opts(ctx, a), timeoutMs: a.timeout_ms ?? NAV_TIMEOUT_MS };
    return renderNavigation(
      await ops.open.call(page, { url: a.url, wait_until: a.wait_until ?? 'domcontentloaded' }, o),
    );
  },
});

export const history = tool({
  name: 'history',
  summary: 'Go back, forward, or reload.',
  ops: [ops.back, ops.forward, ops.reload],
  meta: { title: 'History' },
  params: strict({ action: z.enum(['back', 'forward', 'reload']), wait_until: WaitUntil, ...PageFields }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const input = { wait_until: a.wait_until ?? 'domcontentloaded' } as const;
    const o = { ...opts(ctx, a), timeoutMs: a.timeout_ms ?? NAV_TIMEOUT_MS };
    const op = a.action === 'back' ? ops.back : a.action === 'forward' ? ops.forward : ops.reload;
    return renderNavigation(await op.call(page, input, o));
  },
});

export const snapshot = tool({
  name: 'snapshot',
  summary:
    'Accessibility snapshot of the page with element refs [ref=eN] for actions. diff: only changes since the last snapshot; find: only lines containing this text.',
  ops: [ops.snapshot],
  meta: { title: 'Page snapshot', core: true },
  params: strict({ ...SnapshotFields, find: z.string().min(1).optional(), ...PageFields }),
  async run(ctx, a) {
    const { find, page_id, timeout_ms, ...options } = a;
    const page = await ctx.scope.page(page_id);
    return renderSnapshot(await ops.snapshot.call(page, options, opts(ctx, { timeout_ms })), find);
  },
});

export const click = tool({
  name: 'click',
  summary: 'Click an element. Returns what changed and a snapshot diff.',
  ops: [ops.click],
  meta: { title: 'Click', core: true },
  params: strict({ ...TargetFields, ...ClickFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, 'click', a, (page, base, o) =>
      ops.click.call(
        page,
        { ...base, button: a.button, click_count: a.click_count, modifiers: a.modifiers },
        o,
      ),
    ),
});

export const type = tool({
  name: 'type',
  summary: 'Type text into an editable element (appends; replace clears first; submit presses Enter).',
  ops: [ops.type],
  meta: { title: 'Type text', core: true },
  params: strict({ ...TargetFields, ...TypeFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, 'type', a, (page, base, o) =>
      ops.type.call(
        page,
        { ...base, text: a.text, replace: a.replace, submit: a.submit, key_by_key: a.key_by_key },
        o,
      ),
    ),
});

export const fill = tool({
  name: 'fill',
  summary: 'Set the values of text fields (a form) and verify them.',
  ops: [ops.fill],
  meta: { title: 'Fill form', core: true },
  params: strict({
    fields: z
      .array(strict({ ref: TargetFields.ref.unwrap(), value: z.string() }))
      .min(1)
      .max(50),
    ...PageFields,
  }),
  async run(ctx, a) {
    const out: string[] = [];
    for (const [i, f] of a.fields.entries()) {
      try {
        const at = { ref: f.ref, page_id: a.page_id, timeout_ms: a.timeout_ms };
        out.push(
          await act(ctx, 'fill', at, (page, base, o) => ops.fill.call(page, { ...base, value: f.value }, o)),
        );
      } catch (err) {
        if (i === 0) throw err;
        out.push(`field ${f.ref} failed; the fields after it were not filled.\n${renderError(err)}`);
        break;
      }
    }
    return out.join('\n');
  },
});

export const press = tool({
  name: 'press',
  summary: 'Press a key or chord ("Enter", "Control+A") on an element or the focused one.',
  ops: [ops.press],
  meta: { title: 'Press a key', core: true },
  params: strict({ ...PressFields, ...TargetFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, 'press', a, (page, base, o) => ops.press.call(page, { ...base, key: a.key }, o), false),
});

export const select = tool({
  name: 'select',
  summary: 'Choose options of a <select> by value or label.',
  ops: [ops.select],
  meta: { title: 'Select options', core: true },
  params: strict({ ...TargetFields, ...SelectFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, 'select', a, (page, base, o) =>
      ops.select.call(page, { ...base, values: a.values, labels: a.labels }, o),
    ),
});

export const check = tool({
  name: 'check',
  summary: 'Check (or with checked:false uncheck) a checkbox, radio or switch.',
  ops: [ops.check, ops.uncheck],
  meta: { title: 'Check' },
  params: strict({ ...TargetFields, checked: z.boolean().optional(), ...PageFields }),
  run: (ctx, a) =>
    act(ctx, 'check', a, (page, base, o) =>
      (a.checked === false ? ops.uncheck : ops.check).call(page, base, o),
    ),
});

export const hover = tool({
  name: 'hover',
  summary: 'Move the mouse over an element.',
  ops: [ops.hover],
  meta: { title: 'Hover' },
  params: strict({ ...TargetFields, ...PageFields }),
  run: (ctx, a) => act(ctx, 'hover', a, (page, base, o) => ops.hover.call(page, base, o)),
});

export const drag = tool({
  name: 'drag',
  summary: 'Drag an element onto another (to_ref or to_selector).',
  ops: [ops.drag],
  meta: { title: 'Drag and drop' },
  params: strict({
    ...TargetFields,
    to_ref: TargetFields.ref,
    to_selector: TargetFields.selector,
    ...PageFields,
  }),
  run: (ctx, a) =>
    act(ctx, 'drag', a, (page, base, o) => {
      // The drop target's own fields, so a missing one is named as the caller wrote it (to_ref).
      const to = targetFrom(
        a,
        { ref: 'to_ref', selector: 'to_selector' },
        { method: 'drag', required: true },
      )!;
      return ops.drag.call(page, { ...base, to }, o);
    }),
});

export const scroll = tool({
  name: 'scroll',
  summary: 'Scroll the page or an element: pages (±), dy/dx pixels, or into_view.',
  ops: [ops.scroll],
  meta: { title: 'Scroll' },
  params: strict({ ...TargetFields, ...ScrollFields, ...PageFields }),
  run: (ctx, a) =>
    act(
      ctx,
      'scroll',
      a,
      (page, base, o) =>
        ops.scroll.call(page, { ...base, pages: a.pages, dy: a.dy, dx: a.dx, into_view: a.into_view }, o),
      false,
    ),
});

/** What the upload operation read back, for the receipt's first line: files on the input, listeners. */
function uploadNote(u: OutputOf<typeof ops.upload>): string {
  const names = u.fileNames.slice(0, 3).map((n) => q(n, 60));
  const more = u.fileNames.length > 3 ? ` +${u.fileNames.length - 3}` : '';
  const held =
    u.filesLength === null
      ? 'input replaced after (not a failure)'
      : `input holds ${u.filesLength}${names.length ? ` (${names.join(', ')}${more})` : ''}`;
  const listens =
    u.consumed === 'listened'
      ? '; page listens'
      : u.consumed === 'noListener'
        ? '; no change/input listener: the page may ignore it'
        : '';
  return `(${held}${listens})`;
}

export const upload = tool({
  name: 'upload',
  summary: 'Set files (absolute paths) on a file input.',
  ops: [ops.upload],
  meta: { title: 'Upload files' },
  params: strict({ ...TargetFields, ...UploadFields, ...PageFields }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const target = targetOf(a, 'upload')!;
    const files = checkUploads(a.files, ctx.scope.opts.uploadRoots);
    const u = await ops.upload.call(page, { target, files, snapshot_diff: true }, opts(ctx, a));
    return renderReceipt(u.receipt, uploadNote(u));
  },
});

export const wait = tool({
  name: 'wait',
  summary: 'Wait until conditions hold (all, or any with mode "any").',
  ops: [ops.wait],
  meta: { title: 'Wait for a condition', core: true },
  params: strict({ ...WaitFields, mode: z.enum(['all', 'any']).optional(), ...PageFields }),
  async run(ctx, a) {
    const { mode, page_id, timeout_ms, ...conditions } = a;
    const page = await ctx.scope.page(page_id);
    const r = await ops.wait.call(page, { conditions, mode }, opts(ctx, { timeout_ms }));
    return `ok: ${r.matched_conditions.join(', ')} after ${r.waited_ms} ms`;
  },
});

export const screenshot = tool({
  name: 'screenshot',
  summary: 'Screenshot of the viewport, the full page, or one element (ref). JPEG by default.',
  ops: [ops.screenshot],
  meta: { title: 'Screenshot', core: true },
  params: strict({ ...ShotFields, ref: TargetFields.ref, ...PageFields }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const format = a.format ?? 'jpeg';
    const shot = await ops.screenshot.call(
      page,
      {
        full_page: a.full_page,
        format,
        quality: format === 'jpeg' ? (a.quality ?? 70) : undefined,
        element: a.ref ? { ref: a.ref } : undefined,
      },
      opts(ctx, a),
    );
    return [
      { type: 'image', data: shot.data.toString('base64'), mimeType: shot.mediaType },
      {
        type: 'text',
        text: `${shot.width}x${shot.height}${shot.truncated ? ` (cut; page is ${shot.requested_height}px tall)` : ''}`,
      },
    ];
  },
});

export const tabs = tool({
  name: 'tabs',
  summary: 'List, open (new, optional url), select or close tabs.',
  ops: [ops.listTabs, ops.newTab, ops.activateTab, ops.closeTab, ops.open],
  meta: { title: 'Tabs', core: true },
  params: strict({
    action: z.enum(['list', 'new', 'select', 'close']).optional(),
    url: z.string().min(1).optional(),
    ...PageFields,
  }),
  async run(ctx, a) {
    const action = a.action ?? 'list';
    const session = await ctx.scope.sessionOf(a.page_id);
    if (action === 'new') {
      const page = await ops.newTab.call(session, {});
      if (a.url) return renderNavigation(await ops.open.call(page, { url: a.url }, opts(ctx, a)));
    } else if (action === 'select') {
      if (!a.page_id) return 'give page_id of the tab to select';
      await ops.activateTab.call(session, { page_id: a.page_id }, opts(ctx, a));
    } else if (action === 'close') {
      const page = await ctx.scope.page(a.page_id);
      await ops.closeTab.call(session, { page_id: page.id });
    }
    return renderPages(await ops.listTabs.call(session, {}));
  },
});

export const dialog = tool({
  name: 'dialog',
  summary:
    'Answer the held JavaScript dialog (accept, prompt_text), or set the dialog policy (default: alerts accepted, confirm/prompt dismissed).',
  ops: [ops.handleDialog, ops.dialogPolicy, ops.pendingDialog],
  meta: { title: 'Dialogs' },
  params: strict({
    accept: z.boolean().optional(),
    prompt_text: z.string().optional(),
    policy: z.enum(['accept', 'dismiss', 'hold']).optional(),
    ...PageFields,
  }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const out: string[] = [];
    if (a.policy) {
      await ops.dialogPolicy.call(page.session, { policy: a.policy });
      out.push(`dialog policy: ${a.policy}`);
    }
    if (a.accept !== undefined) {
      const d = await ops.handleDialog.call(page, { accept: a.accept, prompt_text: a.prompt_text });
      out.push(`${d.state} ${d.type} ${q(d.message)}`);
    } else if (!a.policy) {
      const d = await ops.pendingDialog.call(page, {});
      out.push(d ? `pending ${d.type} ${q(d.message)}` : 'no dialog pending');
    }
    return out.join('\n');
  },
});

export const downloads = tool({
  name: 'downloads',
  summary: "List the session's downloads, or wait for one to finish (wait: true).",
  ops: [ops.downloads, ops.waitForDownload],
  meta: { title: 'Downloads' },
  params: strict({ wait: z.boolean().optional(), download_id: z.string().optional(), ...PageFields }),
  async run(ctx, a) {
    const session = await ctx.scope.sessionOf(a.page_id);
    const list = a.wait
      ? [await ops.waitForDownload.call(session, { download_id: a.download_id }, opts(ctx, a))]
      : await ops.downloads.call(session, {});
    if (!list.length) return 'no downloads';
    return list
      .map(
        (d) =>
          `${d.download_id} ${d.state} ${d.suggested_filename}${d.size !== null ? ` ${d.size}B` : ''} ${d.path}`,
      )
      .join('\n');
  },
});

export const session = tool({
  name: 'session',
  summary:
    'Browser sessions of this connection: list, start (ephemeral, persistent profile, or attach to a CDP endpoint), use, close.',
  ops: [ops.startSession, ops.closeSession, ops.sessionInfo],
  meta: { title: 'Browser sessions' },
  params: strict({
    action: z.enum(['list', 'start', 'use', 'close']),
    kind: z.enum(['ephemeral', 'persistent', 'attach']).optional(),
    profile: z.string().min(1).optional(),
    endpoint: z.string().min(1).optional().describe('CDP endpoint, e.g. http://127.0.0.1:9222'),
    allowed_origins: z
      .array(z.string())
      .max(32)
      .optional()
      .describe(
        "Only these origins; under the server's --allow-origin a subset of it (empty or omitted: all of it).",
      ),
    session_id: z.string().optional(),
    timeout_ms: PageFields.timeout_ms,
  }),
  async run(ctx, a) {
    const scope = ctx.scope;
    if (a.action === 'start') {
      const policy = a.allowed_origins ? { allowed_origins: a.allowed_origins } : undefined;
      const kind = a.kind ?? (a.profile ? 'persistent' : a.endpoint ? 'attach' : 'ephemeral');
      const req =
        kind === 'persistent'
          ? { kind, profile: a.profile ?? 'default', policy }
          : kind === 'attach'
            ? { kind, endpoint: a.endpoint ?? '', policy }
            : { kind, policy };
      await scope.startSession(req, a.timeout_ms ?? 30_000);
    } else if (a.action === 'use') {
      if (!a.session_id) return 'give session_id';
      scope.useSession(a.session_id);
    } else if (a.action === 'close') {
      const id = a.session_id ?? scope.currentSessionId;
      if (id) await scope.closeSession(id);
    }
    const all = scope.sessions();
    if (!all.length) return 'no sessions (the next page tool starts one)';
    const lines = await Promise.all(
      all.map(async (s) => {
        const i = await ops.sessionInfo.call(s, {});
        const where = i.profile ? ` profile=${i.profile}` : i.endpoint ? ` ${i.endpoint}` : '';
        const p = s.policy;
        const allowed = p.restricted ? ` allowed=${[...p.origins, ...p.hostPatterns].join(',')}` : '';
        return `${s.id === scope.currentSessionId ? '*' : ' '} ${s.id} ${i.kind}${where} tabs=${i.page_count}${allowed}${i.alive ? '' : ' (dead)'}`;
      }),
    );
    return lines.join('\n');
  },
});

export const ALL_TOOLS: ToolDef[] = [
  navigate,
  history,
  snapshot,
  click,
  type,
  fill,
  press,
  select,
  check,
  hover,
  drag,
  scroll,
  upload,
  wait,
  screenshot,
  tabs,
  dialog,
  downloads,
  session,
  ...MORE_TOOLS,
];
