import { z } from 'zod';
import {
  ActionFields,
  ActionOptions,
  ElementRef,
  Policy,
  ScreenshotOptions,
  SnapshotOptions,
  TimeoutMs,
  WaitConditions,
} from '../../engine/api.js';

/**
 * One zod schema per provider method: it validates `params`, is advertised
 * as JSON Schema in provider.describe, and types the handler. Composed from
 * the engine's shared building blocks (src/engine/schemas.ts).
 */

const Id = z.string().min(1).max(256);
export const SessionId = Id.describe('A session_id from session.ensure.');
export const PageId = Id.describe("A page_id; omitted = the session's current page.");

/** What every page.* method takes. */
export const PageParams = z.object({ session_id: SessionId, page_id: PageId.optional() });

const WaitUntil = z
  .enum(['load', 'domcontentloaded', 'networkidle', 'provider_default'])
  .describe('When navigation counts as done; provider_default = load.');

export const Empty = z.object({}).strict();

export const DescribeParams = z.object({}).strict();
export const StatusParams = z.object({}).strict();
export const SetupGuideParams = z.object({}).strict();
export const VerifyParams = z.object({ timeout_ms: TimeoutMs.optional() }).strict();

export const SessionEnsureParams = z
  .object({
    client_session_id: Id.optional().describe('Your session id: the same id returns the same live session.'),
    browser_preference: z
      .enum(['auto', 'chromium', 'chrome', 'firefox', 'safari', 'edge', 'webkit'])
      .optional()
      .describe(
        'auto (the provider default), chromium (chrome, edge) or firefox when provider.describe lists it in browser_families; others are unsupported_target.',
      ),
    isolation: z
      .enum(['per_jcode_session', 'per_session', 'shared_profile'])
      .optional()
      .describe('per_jcode_session/per_session: a fresh context; shared_profile: a persistent profile.'),
    attach: z
      .enum(['never', 'prefer', 'require'])
      .optional()
      .describe('prefer/require use cdp_endpoint; require without it is invalid_request.'),
    persist: z
      .boolean()
      .optional()
      .describe('Keep cookies and storage in a profile (profile, default "default").'),
    metadata: z.record(z.string(), z.unknown()).optional(),
    profile: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .optional()
      .describe('Persistent profile name (letters, digits, . _ -).'),
    cdp_endpoint: z
      .string()
      .min(1)
      .optional()
      .describe('Attach to a running Chromium: http://127.0.0.1:9222 or ws://…'),
    allowed_origins: Policy.shape.allowed_origins,
    allowed_host_patterns: Policy.shape.allowed_host_patterns,
    subresources: Policy.shape.subresources,
    events: z.boolean().optional().describe("Push this session's events to this connection."),
    timeout_ms: TimeoutMs.optional(),
  })
  .strict();

export const SessionCloseParams = z
  .object({ session_id: SessionId, timeout_ms: TimeoutMs.optional() })
  .strict();

export const PageOpenParams = PageParams.extend({
  url: z.string().min(1),
  new_page: z.boolean().optional(),
  foreground: z.boolean().optional().describe("Make the page the session's current page (default true)."),
  wait_until: WaitUntil.optional(),
  timeout_ms: TimeoutMs.optional(),
}).strict();

export const PageSnapshotParams = PageParams.extend({
  include_screenshot: z.boolean().optional(),
  include_html: z.boolean().optional(),
  include_dom: z
    .boolean()
    .optional()
    .describe(
      "Also return DOM-derived data: each node's tag and whitelisted attributes (attrs), and the page model tree in provider_data.model.",
    ),
  include_a11y: z
    .boolean()
    .optional()
    .describe('Always true here: snapshots are built from accessibility data.'),
  include_text: z.boolean().optional().describe('false leaves `text` empty.'),
  include_nodes: z
    .boolean()
    .optional()
    .describe(
      'false: `snapshot` carries only its root (no nodes) — for callers that read `text` or `elements`; a large page replies several times faster.',
    ),
  include_elements: z.boolean().optional().describe('false: `elements` is empty.'),
  ...SnapshotOptions.shape,
  timeout_ms: TimeoutMs.optional(),
}).strict();

/** The draft's four targeting fields (exactly one). */
const TargetFields = {
  element_ref: ElementRef.optional(),
  selector: z.string().min(1).optional().describe('CSS selector matching exactly one element.'),
  text_query: z
    .string()
    .min(1)
    .optional()
    .describe('Visible text: a case-insensitive substring; exact: true for equality.'),
  exact: z.boolean().optional(),
  position: z
    .object({ x: z.number(), y: z.number() })
    .strict()
    .optional()
    .describe('CSS pixels in the viewport.'),
  frame_id: z
    .string()
    .min(1)
    .optional()
    .describe('With selector or text_query: look inside this frame (an id from tabwright.frames).'),
  nth: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'With selector: pick the nth match (0-based, document order) instead of requiring exactly one.',
    ),
};

const ActionOpts = ActionOptions.shape;

export const PageClickParams = PageParams.extend({
  ...TargetFields,
  ...ActionFields.click.shape,
  ...ActionOpts,
}).strict();

export const PageTypeParams = PageParams.extend({
  element_ref: TargetFields.element_ref,
  selector: TargetFields.selector,
  frame_id: TargetFields.frame_id,
  nth: TargetFields.nth,
  ...ActionFields.type.shape,
  ...ActionOpts,
}).strict();

export const PageWaitParams = PageParams.extend({
  ...WaitConditions.shape,
  mode: z
    .enum(['all', 'any'])
    .optional()
    .describe('all (default): every condition; any: the first that holds.'),
  timeout_ms: TimeoutMs.optional(),
}).strict();

export const PageScreenshotParams = PageParams.extend({
  full_page: ScreenshotOptions.shape.full_page,
  clip: ScreenshotOptions.shape.clip.describe('CSS px relative to the document top-left.'),
  element_ref: ElementRef.optional(),
  selector: z.string().min(1).optional(),
  format: ScreenshotOptions.shape.format,
  quality: ScreenshotOptions.shape.quality,
  max_height: ScreenshotOptions.shape.max_height,
  image_mode: z
    .enum(['inline', 'file'])
    .optional()
    .describe('inline (default): base64 `image`; file: a file path in `image_ref`.'),
  timeout_ms: TimeoutMs.optional(),
}).strict();

export const HistoryParams = PageParams.extend({
  wait_until: WaitUntil.optional(),
  timeout_ms: TimeoutMs.optional(),
}).strict();

export const PagePressParams = PageParams.extend({
  ...TargetFields,
  ...ActionFields.press.shape,
  ...ActionOpts,
}).strict();

export const PageSelectParams = PageParams.extend({
  ...TargetFields,
  ...ActionFields.select.shape,
  ...ActionOpts,
}).strict();

export const PageHoverParams = PageParams.extend({ ...TargetFields, ...ActionOpts }).strict();

export const PageScrollParams = PageParams.extend({
  ...TargetFields,
  ...ActionFields.scroll.shape,
  ...ActionOpts,
}).strict();

export const UploadParams = PageParams.extend({
  element_ref: TargetFields.element_ref,
  selector: TargetFields.selector,
  files: z.array(z.string().min(1)).min(1).describe('Absolute paths of local files.'),
  ...ActionOpts,
}).strict();

export const PageEvalParams = PageParams.extend({
  script: z
    .string()
    .min(1)
    .describe('An expression, a function expression (called with args), or a body using return.'),
  args: z.array(z.unknown()).optional(),
  timeout_ms: TimeoutMs.optional(),
}).strict();

export const TabListParams = z.object({ session_id: SessionId }).strict();
export const TabNewParams = z
  .object({
    session_id: SessionId,
    url: z.string().min(1).optional(),
    foreground: z.boolean().optional(),
    wait_until: WaitUntil.optional(),
    timeout_ms: TimeoutMs.optional(),
  })
  .strict();
export const TabRefParams = z
  .object({
    session_id: SessionId,
    page_id: PageId.optional(),
    tab_id: PageId.optional().describe('Same value as page_id (tabs are pages here).'),
    timeout_ms: TimeoutMs.optional(),
  })
  .strict();

export const ConsoleListParams = PageParams.extend({
  since_seq: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  level: z.enum(['debug', 'log', 'info', 'warning', 'error']).optional(),
}).strict();

export const StorageGetParams = PageParams.extend({
  area: z.enum(['local', 'session']).optional().describe('Default local.'),
  key: z.string().optional().describe('One key; omitted = every key.'),
  timeout_ms: TimeoutMs.optional(),
}).strict();

export const CookieListParams = z
  .object({
    session_id: SessionId,
    urls: z.array(z.string().url()).optional(),
    timeout_ms: TimeoutMs.optional(),
  })
  .strict();

export const DownloadListParams = z
  .object({ session_id: SessionId, since_seq: z.number().int().min(0).optional() })
  .strict();

export const DownloadWaitParams = z
  .object({ session_id: SessionId, download_id: Id.optional(), timeout_ms: TimeoutMs.optional() })
  .strict();

export const NetworkListParams = z
  .object({
    session_id: SessionId,
    page_id: PageId.optional().describe('Only requests of this page (default: every page of the session).'),
    since_seq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    filter: z.string().optional().describe('URL substring, glob, or /regex/.'),
    resource_type: z.string().optional().describe('document, xhr, fetch, script, image, …'),
  })
  .strict();

/* Custom methods (namespaced tabwright.*) */

export const ActParams = PageParams.extend({
  ...TargetFields,
  role: z.string().min(1).optional(),
  name: z.string().optional(),
  context: z.string().optional(),
  action: z.enum(['fill', 'check', 'uncheck', 'focus', 'drag']),
  value: z.string().optional().describe('fill: the new value.'),
  to: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('drag: the destination target (element_ref, selector, …).'),
  ...ActionOpts,
}).strict();

export const DialogHandleParams = PageParams.extend({
  accept: z.boolean(),
  prompt_text: z.string().optional(),
}).strict();

const DialogAction = z.enum(['accept', 'dismiss', 'hold']);

export const DialogPolicyParams = z
  .object({
    session_id: SessionId,
    policy: z.union([
      DialogAction,
      z
        .object({
          alert: DialogAction.optional(),
          confirm: DialogAction.optional(),
          prompt: DialogAction.optional(),
          beforeunload: DialogAction.optional(),
        })
        .strict(),
    ]),
  })
  .strict();

export const BlockedRequestsParams = z
  .object({
    session_id: SessionId,
    page_id: PageId.optional(),
    since_seq: z.number().int().min(0).optional(),
  })
  .strict();

export const CdpSendParams = PageParams.extend({
  method: z.string().regex(/^[A-Z][A-Za-z]+\.[a-zA-Z]+$/),
  params: z.record(z.string(), z.unknown()).optional(),
  timeout_ms: TimeoutMs.optional(),
}).strict();
