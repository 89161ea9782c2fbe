import { z } from 'zod';
import { ops, SnapshotOptions, TabwrightError, TimeoutMs } from '../../engine/api.js';
import { opOptions, pageOf, ROLE_TARGET, runAction, sessionOf, targetOf } from './helpers.js';
import {
  ActParams,
  BlockedRequestsParams,
  DialogHandleParams,
  DialogPolicyParams,
  PageParams,
} from './schemas.js';
import { method, type ProviderMethod } from './table.js';

/** What the engine offers beyond the draft, under the tabwright.* namespace. */

const ReceiptResult = z
  .object({
    page_id: z.string(),
    url: z.string().nullable(),
    navigation_occurred: z.boolean(),
    receipt: z.object({}).passthrough(),
  })
  .passthrough();

const SnapshotDiffParams = PageParams.extend({
  scope_ref: SnapshotOptions.shape.scope_ref,
  scope_selector: SnapshotOptions.shape.scope_selector,
  interactive_only: SnapshotOptions.shape.interactive_only,
  timeout_ms: TimeoutMs.optional(),
}).strict();

const DialogRecord = z.object({
  seq: z.number(),
  page_id: z.string(),
  type: z.string(),
  message: z.string(),
  state: z.string(),
  handled_by: z.string().nullable(),
});

/** tabwright.act's actions without fields of their own. */
const PLAIN_ACTS = { check: ops.check, uncheck: ops.uncheck, focus: ops.focus } as const;

export const CUSTOM_METHODS: ProviderMethod[] = [
  method({
    name: 'tabwright.snapshot_diff',
    ops: [ops.snapshot],
    summary:
      'What changed since the previous snapshot of this page and scope: added, removed and changed lines by ref (full: true when there was nothing to compare).',
    params: SnapshotDiffParams,
    meta: {
      group: 'custom',
      stability: 'stable',
      output: z.object({
        page_id: z.string(),
        url: z.string(),
        full: z.boolean(),
        text: z.string(),
        added: z.array(z.object({ ref: z.string(), line: z.string() }).passthrough()),
        removed: z.array(z.object({ ref: z.string(), line: z.string() }).passthrough()),
        changed: z.array(z.object({ ref: z.string(), line: z.string() }).passthrough()),
      }),
    },
    async run(call, p) {
      const page = pageOf(call, p);
      const { session_id: _s, page_id: _p, timeout_ms: _t, ...o } = p;
      const r = await ops.snapshot.call(page, { ...o, diff: true }, opOptions(p, call));
      const d = r.diff;
      return {
        page_id: r.page_id,
        url: r.url,
        full: d?.full ?? true,
        reason: d?.reason ?? null,
        text: d?.text ?? r.text,
        added: d?.added ?? [],
        removed: d?.removed ?? [],
        changed: d?.changed ?? [],
      };
    },
  }),
  method({
    name: 'tabwright.act',
    summary:
      'Engine actions the draft does not name: fill (replace and verify a value), check, uncheck, focus, drag (to another target). Target by element_ref, selector, text_query, position or role (+name, context).',
    ops: [ops.fill, ops.check, ops.uncheck, ops.focus, ops.drag],
    meta: { group: 'custom', stability: 'stable', output: ReceiptResult },
    params: ActParams,
    run(call, p) {
      const { action, value, to } = p;
      if (action === 'fill' && value === undefined)
        throw new TabwrightError('invalid_request', 'tabwright.act fill needs value.', {
          details: { field: 'value' },
        });
      if (action === 'drag' && !to)
        throw new TabwrightError('invalid_request', 'tabwright.act drag needs to (a target).', {
          details: { field: 'to' },
        });
      return runAction(call, p, {
        target: () => targetOf(p, 'tabwright.act', ROLE_TARGET),
        perform: (page, base, o) =>
          action === 'fill'
            ? ops.fill.call(page, { ...base, value: value ?? '' }, o)
            : action === 'drag'
              ? ops.drag.call(page, { ...base, to: targetOf(to ?? {}, 'tabwright.act to', ROLE_TARGET) }, o)
              : PLAIN_ACTS[action].call(page, base, o),
        reply: (r) => ({ done: r.status === 'executed', verified: r.verified }),
      });
    },
  }),
  method({
    name: 'tabwright.dialog.handle',
    summary:
      'Answer the JavaScript dialog held on the page (dialog policy "hold"): accept (with prompt_text) or dismiss.',
    ops: [ops.handleDialog],
    meta: { group: 'custom', stability: 'stable', output: z.object({ dialog: DialogRecord.passthrough() }) },
    params: DialogHandleParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const req: { accept: boolean; prompt_text?: string } = { accept: p.accept };
      if (p.prompt_text !== undefined) req.prompt_text = p.prompt_text;
      return { dialog: await ops.handleDialog.call(page, req) };
    },
  }),
  method({
    name: 'tabwright.dialog.set_policy',
    summary:
      'How dialogs are answered: accept, dismiss or hold, for all or per type (alert, confirm, prompt, beforeunload). Default: alert and beforeunload accepted, confirm and prompt dismissed.',
    ops: [ops.dialogPolicy],
    meta: {
      group: 'custom',
      stability: 'stable',
      output: z.object({ policy: z.record(z.string(), z.string()) }),
    },
    params: DialogPolicyParams,
    run: async (call, p) => ({
      policy: await ops.dialogPolicy.call(sessionOf(call, p.session_id), { policy: p.policy }),
    }),
  }),
  method({
    name: 'tabwright.frames',
    summary:
      "The page's frames, main frame first, then iframes in tree order: ids for frame_id (selector / text_query targets), URL, name, depth, and whether the session's origin policy allows acting in them.",
    ops: [ops.frames],
    meta: {
      group: 'custom',
      stability: 'stable',
      output: z.object({
        page_id: z.string(),
        frames: z.array(
          z.object({
            frame_id: z.string(),
            parent_id: z.string().nullable(),
            url: z.string(),
            name: z.string(),
            depth: z.number(),
            allowed: z.boolean(),
          }),
        ),
      }),
    },
    params: PageParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const frames = await ops.frames.call(page, {});
      return {
        page_id: page.id,
        frames: frames.map((f) => ({
          frame_id: f.id,
          parent_id: f.parentId,
          url: f.url,
          name: f.name,
          depth: f.depth,
          allowed: f.allowed,
        })),
      };
    },
  }),
  method({
    name: 'tabwright.blocked_requests',
    summary:
      "Requests the session's origin policy blocked (the last 200), after since_seq, optionally for one page.",
    ops: [ops.blocked],
    meta: {
      group: 'custom',
      stability: 'stable',
      output: z.object({ blocked: z.array(z.object({}).passthrough()), last_seq: z.number() }),
    },
    params: BlockedRequestsParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      const filter: { since_seq?: number; page_id?: string } = {};
      if (p.since_seq !== undefined) filter.since_seq = p.since_seq;
      if (p.page_id !== undefined) filter.page_id = p.page_id;
      return { blocked: await ops.blocked.call(s, filter), last_seq: s.network.lastSeq };
    },
  }),
];
