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

export { ActionFields, ActionSpec, ElementRef, Modifier, Target } from './actions/spec.js';

import { ElementRef } from './actions/spec.js';

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

/**
 * Validates an engine operation's input (or one part of it, `what`: e.g. "target"); failures are
 * invalid_request with the schema's own message, naming the field.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  const path = issue.path.map(String);
  const field = [what, ...path].join('.');
  const unknownKeys = issue.code === 'unrecognized_keys' ? (issue as { keys?: string[] }).keys : undefined;
  const problem = unknownKeys ? `unknown field(s) ${unknownKeys.join(', ')}` : issue.message;
  throw new TabwrightError('invalid_request', `Invalid ${field}: ${problem}`, {
    details: {
      field: path.at(-1) ?? what,
      path: field,
      issues: res.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String), message: i.message })),
    },
  });
}
