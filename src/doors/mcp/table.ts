import { z } from 'zod';
import { q, renderError, renderNavigation, renderPages } from './render.js';
import { renderSnapshot } from './snapshot-text.js';
import { MORE_TOOLS } from './table-more.js';
import {
  runAction as act,
  ClickFields,
  defineTool,
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
  UploadFields,
  WaitFields,
} from './tools.js';
import { checkUploads } from './uploads.js';

/**
 * The MCP tool table: one zod schema per tool (composed from the engine's
 * schemas), a one-line description, and a handler that maps arguments to
 * engine calls and results to compact text. No browser logic lives here.
 */

const WaitUntil = z
  .enum(['load', 'domcontentloaded', 'networkidle'])
  .optional()
  .describe('default domcontentloaded');
/** Navigations get a longer default deadline than other tools: heavy pages on busy machines. */
const NAV_TIMEOUT_MS = 30_000;

export const navigate = defineTool({
  name: 'navigate',
  description: 'Open a URL in the tab (or a new tab). Returns page_id, URL, title.',
  core: true,
  schema: strict({
    url: z.string().min(1),
    new_tab: z.boolean().optional(),
    wait_until: WaitUntil,
    ...PageFields,
  }),
  async run(ctx, a) {
    let page = await ctx.scope.page(a.page_id);
    if (a.new_tab) page = await page.session.newPage();
    const o = { ...opts(ctx, a), timeoutMs: a.timeout_ms ?? NAV_TIMEOUT_MS };
    return renderNavigation(await page.open(a.url, a.wait_until ?? 'domcontentloaded', o));
  },
});

export const history = defineTool({
  name: 'history',
  description: 'Go back, forward, or reload.',
  schema: strict({ action: z.enum(['back', 'forward', 'reload']), wait_until: WaitUntil, ...PageFields }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const w = a.wait_until ?? 'domcontentloaded';
    const o = { ...opts(ctx, a), timeoutMs: a.timeout_ms ?? NAV_TIMEOUT_MS };
    const res =
      a.action === 'back'
        ? await page.back(w, o)
        : a.action === 'forward'
          ? await page.forward(w, o)
          : await page.reload(w, o);
    return renderNavigation(res);
  },
});

export const snapshot = defineTool({
  name: 'snapshot',
  description:
    'Accessibility snapshot of the page with element refs [ref=eN] for actions. diff: only changes since the last snapshot; find: only lines containing this text.',
  core: true,
  schema: strict({ ...SnapshotFields, find: z.string().min(1).optional(), ...PageFields }),
  async run(ctx, a) {
    const { find, page_id, timeout_ms, ...options } = a;
    const page = await ctx.scope.page(page_id);
    const snap = await page.snapshot(options, opts(ctx, { timeout_ms }));
    return renderSnapshot(snap, find);
  },
});

export const click = defineTool({
  name: 'click',
  description: 'Click an element. Returns what changed and a snapshot diff.',
  core: true,
  schema: strict({ ...TargetFields, ...ClickFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, a, { action: 'click', button: a.button, click_count: a.click_count, modifiers: a.modifiers }),
});

export const type = defineTool({
  name: 'type',
  description: 'Type text into an editable element (appends; replace clears first; submit presses Enter).',
  core: true,
  schema: strict({ ...TargetFields, ...TypeFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, a, {
      action: 'type',
      text: a.text,
      replace: a.replace,
      submit: a.submit,
      key_by_key: a.key_by_key,
    }),
});

export const fill = defineTool({
  name: 'fill',
  description: 'Set the values of text fields (a form) and verify them.',
  core: true,
  schema: strict({
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
        out.push(
          await act(
            ctx,
            { ref: f.ref, page_id: a.page_id, timeout_ms: a.timeout_ms },
            { action: 'fill', value: f.value },
          ),
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

export const press = defineTool({
  name: 'press',
  description: 'Press a key or chord ("Enter", "Control+A") on an element or the focused one.',
  core: true,
  schema: strict({ ...PressFields, ...TargetFields, ...PageFields }),
  run: (ctx, a) => act(ctx, a, { action: 'press', key: a.key }, false),
});

export const select = defineTool({
  name: 'select',
  description: 'Choose options of a <select> by value or label.',
  core: true,
  schema: strict({ ...TargetFields, ...SelectFields, ...PageFields }),
  run: (ctx, a) => act(ctx, a, { action: 'select', values: a.values, labels: a.labels }),
});

export const check = defineTool({
  name: 'check',
  description: 'Check (or with checked:false uncheck) a checkbox, radio or switch.',
  schema: strict({ ...TargetFields, checked: z.boolean().optional(), ...PageFields }),
  run: (ctx, a) => act(ctx, a, { action: a.checked === false ? 'uncheck' : 'check' }),
});

export const hover = defineTool({
  name: 'hover',
  description: 'Move the mouse over an element.',
  schema: strict({ ...TargetFields, ...PageFields }),
  run: (ctx, a) => act(ctx, a, { action: 'hover' }),
});

export const drag = defineTool({
  name: 'drag',
  description: 'Drag an element onto another (to_ref or to_selector).',
  schema: strict({
    ...TargetFields,
    to_ref: TargetFields.ref,
    to_selector: TargetFields.selector,
    ...PageFields,
  }),
  async run(ctx, a) {
    const to = targetOf({ ref: a.to_ref, selector: a.to_selector }, true);
    return act(ctx, a, { action: 'drag', to: to! });
  },
});

export const scroll = defineTool({
  name: 'scroll',
  description: 'Scroll the page or an element: pages (±), dy/dx pixels, or into_view.',
  schema: strict({ ...TargetFields, ...ScrollFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, a, { action: 'scroll', pages: a.pages, dy: a.dy, dx: a.dx, into_view: a.into_view }, false),
});

export const upload = defineTool({
  name: 'upload',
  description: 'Set files (absolute paths) on a file input.',
  schema: strict({ ...TargetFields, ...UploadFields, ...PageFields }),
  run: (ctx, a) =>
    act(ctx, a, { action: 'set_files', files: checkUploads(a.files, ctx.scope.opts.uploadRoots) }),
});

export const wait = defineTool({
  name: 'wait',
  description: 'Wait until conditions hold (all, or any with mode "any").',
  core: true,
  schema: strict({ ...WaitFields, mode: z.enum(['all', 'any']).optional(), ...PageFields }),
  async run(ctx, a) {
    const { mode, page_id, timeout_ms, ...conditions } = a;
    const page = await ctx.scope.page(page_id);
    const r = await page.wait(conditions, { mode }, opts(ctx, { timeout_ms }));
    return `ok: ${r.matched_conditions.join(', ')} after ${r.waited_ms} ms`;
  },
});

export const screenshot = defineTool({
  name: 'screenshot',
  description: 'Screenshot of the viewport, the full page, or one element (ref). JPEG by default.',
  core: true,
  schema: strict({ ...ShotFields, ref: TargetFields.ref, ...PageFields }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const format = a.format ?? 'jpeg';
    const shot = await page.screenshot(
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

export const tabs = defineTool({
  name: 'tabs',
  description: 'List, open (new, optional url), select or close tabs.',
  core: true,
  schema: strict({
    action: z.enum(['list', 'new', 'select', 'close']).optional(),
    url: z.string().min(1).optional(),
    ...PageFields,
  }),
  async run(ctx, a) {
    const action = a.action ?? 'list';
    const session = await ctx.scope.sessionOf(a.page_id);
    if (action === 'new') {
      const page = await session.newPage();
      if (a.url) return renderNavigation(await page.open(a.url, 'load', opts(ctx, a)));
    } else if (action === 'select') {
      if (!a.page_id) return 'give page_id of the tab to select';
      await session.activate(a.page_id, opts(ctx, a));
    } else if (action === 'close') {
      const page = await ctx.scope.page(a.page_id);
      await page.close();
    }
    return renderPages(await session.describePages());
  },
});

export const dialog = defineTool({
  name: 'dialog',
  description:
    'Answer the held JavaScript dialog (accept, prompt_text), or set the dialog policy (default: alerts accepted, confirm/prompt dismissed).',
  schema: strict({
    accept: z.boolean().optional(),
    prompt_text: z.string().optional(),
    policy: z.enum(['accept', 'dismiss', 'hold']).optional(),
    ...PageFields,
  }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const out: string[] = [];
    if (a.policy) {
      page.session.setDialogPolicy(a.policy);
      out.push(`dialog policy: ${a.policy}`);
    }
    if (a.accept !== undefined) {
      const d = await page.handleDialog({ accept: a.accept, prompt_text: a.prompt_text });
      out.push(`${d.state} ${d.type} ${q(d.message)}`);
    } else if (!a.policy) {
      const d = page.pendingDialog();
      out.push(d ? `pending ${d.type} ${q(d.message)}` : 'no dialog pending');
    }
    return out.join('\n');
  },
});

export const downloads = defineTool({
  name: 'downloads',
  description: "List the session's downloads, or wait for one to finish (wait: true).",
  schema: strict({ wait: z.boolean().optional(), download_id: z.string().optional(), ...PageFields }),
  async run(ctx, a) {
    const session = await ctx.scope.sessionOf(a.page_id);
    const list = a.wait
      ? [await session.waitForDownload({ download_id: a.download_id }, opts(ctx, a))]
      : session.listDownloads();
    if (!list.length) return 'no downloads';
    return list
      .map(
        (d) =>
          `${d.download_id} ${d.state} ${d.suggested_filename}${d.size !== null ? ` ${d.size}B` : ''} ${d.path}`,
      )
      .join('\n');
  },
});

export const session = defineTool({
  name: 'session',
  description:
    'Browser sessions of this connection: list, start (ephemeral, persistent profile, or attach to a CDP endpoint), use, close.',
  schema: strict({
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
    return all
      .map((s) => {
        const i = s.info();
        const where = i.profile ? ` profile=${i.profile}` : i.endpoint ? ` ${i.endpoint}` : '';
        const p = s.policy;
        const allowed = p.restricted ? ` allowed=${[...p.origins, ...p.hostPatterns].join(',')}` : '';
        return `${s.id === scope.currentSessionId ? '*' : ' '} ${s.id} ${i.kind}${where} tabs=${i.page_count}${allowed}${i.alive ? '' : ' (dead)'}`;
      })
      .join('\n');
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
