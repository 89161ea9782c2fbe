import { z } from 'zod';
import { TabwrightError } from './errors.js';

/**
 * Shared zod building blocks for door method schemas. A door composes its
 * method's input schema from these, validates requests with it
 * (`parseParams`), and advertises `toJsonSchema(schema)` (provider.describe,
 * MCP tools/list): one schema per method, so validation, advertised schema
 * and TypeScript types never drift apart.
 */

export const TimeoutMs = z
  .number()
  .int()
  .min(1)
  .max(60_000)
  .describe('Deadline in ms, queueing included (default 10000, max 60000).');

export const ElementRef = z
  .string()
  .regex(/^e[1-9][0-9]*$/)
  .describe('An element ref from the latest snapshot, e.g. "e12".');

export const Target = z
  .union([
    z.object({ element_ref: ElementRef }).strict(),
    z.object({ selector: z.string().min(1).describe('CSS selector matching exactly one element.') }).strict(),
    z
      .object({
        role: z.string().min(1),
        name: z.string().optional(),
        exact: z.boolean().optional(),
        context: z.string().optional().describe('Name of an ancestor, to disambiguate.'),
      })
      .strict(),
    z.object({ text: z.string().min(1), exact: z.boolean().optional() }).strict(),
    z.object({ x: z.number(), y: z.number() }).strict().describe('CSS pixels in the viewport.'),
  ])
  .describe('Exactly one of: element_ref (preferred), selector, role (+name), text, or x and y.');

export const Modifier = z.enum(['Alt', 'Control', 'Meta', 'Shift']);

/** Per-action fields, as in src/engine/actions/types.ts (ActionSpec). */
export const ActionFields = {
  click: z
    .object({
      button: z.enum(['left', 'right', 'middle']).optional(),
      click_count: z.number().int().min(1).max(3).optional(),
      modifiers: z.array(Modifier).optional(),
      synthetic: z
        .boolean()
        .optional()
        .describe('Script-dispatched events instead of trusted input; skips actionability.'),
    })
    .strict(),
  hover: z.object({}).strict(),
  focus: z.object({}).strict(),
  type: z
    .object({
      text: z.string(),
      replace: z.boolean().optional(),
      submit: z.boolean().optional(),
      key_by_key: z.boolean().optional(),
    })
    .strict(),
  fill: z.object({ value: z.string() }).strict(),
  press: z.object({ key: z.string().min(1).describe('A key or chord, e.g. "Enter", "Control+A".') }).strict(),
  select: z
    .object({
      values: z.array(z.string()).optional(),
      labels: z.array(z.string()).optional(),
      indexes: z.array(z.number().int().min(0)).optional(),
    })
    .strict(),
  check: z.object({}).strict(),
  uncheck: z.object({}).strict(),
  scroll: z
    .object({
      pages: z.number().optional(),
      dy: z.number().optional(),
      dx: z.number().optional(),
      into_view: z.boolean().optional(),
    })
    .strict(),
  drag: z.object({ to: Target }).strict(),
  set_files: z.object({ files: z.array(z.string()).min(1) }).strict(),
} as const;

export const WaitConditions = z
  .object({
    text_present: z.string().optional(),
    text_absent: z.string().optional(),
    selector_present: z
      .union([z.string(), z.object({ selector: z.string(), visible: z.boolean().optional() })])
      .optional(),
    selector_absent: z
      .union([z.string(), z.object({ selector: z.string(), visible: z.boolean().optional() })])
      .optional(),
    element_ref_present: ElementRef.optional(),
    url_matches: z.string().optional().describe('Glob, or /regex/flags.'),
    navigation_complete: z
      .union([z.boolean(), z.enum(['load', 'domcontentloaded', 'networkidle'])])
      .optional(),
    network_idle: z
      .union([z.boolean(), z.object({ idle_ms: z.number().optional(), max_inflight: z.number().optional() })])
      .optional(),
    dom_stable: z.union([z.boolean(), z.number()]).optional(),
    js_predicate: z.string().optional(),
    selector_count: z
      .object({
        selector: z.string(),
        min: z.number().int().optional(),
        max: z.number().int().optional(),
        equals: z.number().int().optional(),
      })
      .optional(),
  })
  .strict();

export const ActionOptions = z
  .object({
    timeout_ms: TimeoutMs.optional(),
    observe_ms: z
      .number()
      .int()
      .min(0)
      .max(5000)
      .optional()
      .describe('Cap of the observation window (default 500).'),
    snapshot_diff: z.boolean().optional(),
    verify: WaitConditions.optional().describe('A condition proving the action worked; sets verified.'),
    verify_mode: z.enum(['all', 'any']).optional(),
  })
  .strict();

export const SnapshotOptions = z
  .object({
    interactive_only: z.boolean().optional(),
    scope_ref: ElementRef.optional(),
    scope_selector: z.string().optional(),
    max_depth: z.number().int().min(0).optional(),
    viewport: z.boolean().optional(),
    viewport_margin: z.number().int().min(0).optional(),
    include_urls: z.boolean().optional(),
    include_boxes: z.boolean().optional(),
    include_frames: z.boolean().optional(),
    max_chars: z.number().int().min(100).optional(),
    max_nodes: z.number().int().min(1).optional(),
    strict: z.boolean().optional(),
    diff: z.boolean().optional(),
  })
  .strict();

export const ScreenshotOptions = z
  .object({
    full_page: z.boolean().optional(),
    format: z.enum(['png', 'jpeg']).optional(),
    quality: z.number().int().min(0).max(100).optional(),
    clip: z
      .object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() })
      .optional(),
    element: z.object({ ref: ElementRef.optional(), selector: z.string().optional() }).optional(),
    max_height: z.number().int().min(1).max(16_384).optional(),
  })
  .strict();

export const Policy = z
  .object({
    allowed_origins: z.array(z.string()).max(32).optional(),
    allowed_host_patterns: z.array(z.string()).optional(),
    subresources: z.enum(['block', 'allow']).optional(),
  })
  .strict();

/** JSON Schema (2020-12) of a zod schema, for describe / tools/list. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/**
 * Validates `params` against `schema`; failures are invalid_request naming
 * the first offending field, the problem, and what to send instead.
 */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown, method: string): z.infer<S> {
  const res = schema.safeParse(params ?? {});
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(params)';
  const unknownKeys = issue.code === 'unrecognized_keys' ? (issue as { keys?: string[] }).keys : undefined;
  const what = unknownKeys ? `unknown field(s) ${unknownKeys.join(', ')}` : issue.message;
  throw new TabwrightError(
    'invalid_request',
    `${method}: invalid ${field}: ${what}. Check the method's input_schema.`,
    {
      details: {
        field,
        issues: res.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String), message: i.message })),
      },
    },
  );
}
