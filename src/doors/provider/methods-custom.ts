import { z } from 'zod';
import type { ActionSpec, Target } from '../../engine/actions/types.js';
import { TabwrightError } from '../../engine/errors.js';
import { SnapshotOptions, TimeoutMs } from '../../engine/schemas.js';
import { actionOptions, actionResult, opOptions, pageOf, sessionOf, targetOf } from './helpers.js';
import {
  ActParams,
  BlockedRequestsParams,
  DialogHandleParams,
  DialogPolicyParams,
  PageParams,
} from './schemas.js';
import { type MethodDef, method } from './table.js';

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

export const CUSTOM_METHODS: MethodDef[] = [
  method({
    name: 'tabwright.snapshot_diff',
    group: 'custom',
    stability: 'stable',
    description:
      'What changed since the previous snapshot of this page and scope: added, removed and changed lines by ref (full: true when there was nothing to compare).',
    input: SnapshotDiffParams,
    output: z.object({
      page_id: z.string(),
      url: z.string(),
      full: z.boolean(),
      text: z.string(),
      added: z.array(z.object({ ref: z.string(), line: z.string() }).passthrough()),
      removed: z.array(z.object({ ref: z.string(), line: z.string() }).passthrough()),
      changed: z.array(z.object({ ref: z.string(), line: z.string() }).passthrough()),
    }),
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const { session_id: _s, page_id: _p, timeout_ms: _t, ...o } = p;
      const r = await page.snapshot({ ...o, diff: true }, opOptions(p, call));
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
    group: 'custom',
    stability: 'stable',
    description:
      'Engine actions the draft does not name: fill (replace and verify a value), check, uncheck, focus, drag (to another target). Target by element_ref, selector, text_query, position or role (+name, context).',
    input: ActParams,
    output: ReceiptResult,
    handler: async (p, call) => {
      const page = pageOf(call, p);
      let spec: ActionSpec;
      if (p.action === 'fill') {
        if (p.value === undefined)
          throw new TabwrightError('invalid_request', 'tabwright.act fill needs value.', {
            details: { field: 'value' },
          });
        spec = { action: 'fill', value: p.value };
      } else if (p.action === 'drag') {
        if (!p.to)
          throw new TabwrightError('invalid_request', 'tabwright.act drag needs to (a target).', {
            details: { field: 'to' },
          });
        spec = { action: 'drag', to: targetOf(p.to as never, 'tabwright.act to') as Target };
      } else spec = { action: p.action };
      const receipt = await page.act(targetOf(p, 'tabwright.act'), spec, actionOptions(p, call));
      return {
        done: receipt.status === 'executed',
        verified: receipt.verified,
        ...actionResult(page, receipt),
      };
    },
  }),
  method({
    name: 'tabwright.dialog.handle',
    group: 'custom',
    stability: 'stable',
    description:
      'Answer the JavaScript dialog held on the page (dialog policy "hold"): accept (with prompt_text) or dismiss.',
    input: DialogHandleParams,
    output: z.object({ dialog: DialogRecord.passthrough() }),
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const req: { accept: boolean; prompt_text?: string } = { accept: p.accept };
      if (p.prompt_text !== undefined) req.prompt_text = p.prompt_text;
      return { dialog: await page.handleDialog(req) };
    },
  }),
  method({
    name: 'tabwright.dialog.set_policy',
    group: 'custom',
    stability: 'stable',
    description:
      'How dialogs are answered: accept, dismiss or hold, for all or per type (alert, confirm, prompt, beforeunload). Default: alert and beforeunload accepted, confirm and prompt dismissed.',
    input: DialogPolicyParams,
    output: z.object({ policy: z.record(z.string(), z.string()) }),
    handler: (p, call) => ({ policy: sessionOf(call, p.session_id).setDialogPolicy(p.policy) }),
  }),
  method({
    name: 'tabwright.frames',
    group: 'custom',
    stability: 'stable',
    description:
      "The page's frames, main frame first, then iframes in tree order: ids for frame_id (selector / text_query targets), URL, name, depth, and whether the session's origin policy allows acting in them.",
    input: PageParams,
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
    handler: (p, call) => {
      const page = pageOf(call, p);
      return {
        page_id: page.id,
        frames: page.frames().map((f) => ({
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
    group: 'custom',
    stability: 'stable',
    description:
      "Requests the session's origin policy blocked (the last 200), after since_seq, optionally for one page.",
    input: BlockedRequestsParams,
    output: z.object({ blocked: z.array(z.object({}).passthrough()), last_seq: z.number() }),
    handler: (p, call) => {
      const s = sessionOf(call, p.session_id);
      const filter: { since_seq?: number; page_id?: string } = {};
      if (p.since_seq !== undefined) filter.since_seq = p.since_seq;
      if (p.page_id !== undefined) filter.page_id = p.page_id;
      return { blocked: s.blockedRequests(filter), last_seq: s.network.lastSeq };
    },
  }),
];
