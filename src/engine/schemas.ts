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

const SelectorCondition = z.union([
  z.string(),
  z
    .object({
      selector: z.string(),
      visible: z.boolean().optional(),
    })
    .strict(),
]);

/** Conditions of one wait (the provider protocol's page.wait fields, plus more). Each key is one condition. */
export const WaitConditions = z
  .object({
    text_present: z.string().optional().describe('Visible text contains this.'),
    text_absent: z.string().optional(),
    selector_present: SelectorCondition.optional(),
    selector_absent: SelectorCondition.optional(),
    element_ref_present: ElementRef.optional(),
    url_matches: z.string().optional().describe('Glob, or /regex/flags.'),
    navigation_complete: z
      .union([z.boolean(), z.enum(['load', 'domcontentloaded', 'networkidle'])])
      .optional()
      .describe('true = "load".'),
    network_idle: z
      .union([
        z.boolean(),
        z.object({ idle_ms: z.number().optional(), max_inflight: z.number().optional() }).strict(),
      ])
      .optional()
      .describe('No request for 500 ms.'),
    dom_stable: z.union([z.boolean(), z.number()]).optional().describe('No DOM change for 500 ms (or n ms).'),
    js_predicate: z.string().optional().describe('A JS expression that must be truthy.'),
    selector_count: z
      .object({
        selector: z.string(),
        min: z.number().int().optional(),
        max: z.number().int().optional(),
        equals: z.number().int().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type WaitConditions = z.output<typeof WaitConditions>;

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

export { SnapshotOptions } from '../snapshot/options.js';

export { ScreenshotOptions } from './screenshots.js';

export const Policy = z
  .object({
    allowed_origins: z.array(z.string()).max(32).optional(),
    allowed_host_patterns: z.array(z.string()).optional(),
    subresources: z.enum(['block', 'allow']).optional(),
  })
  .strict();

/** How an action is observed and proven; the same for every action (the action operations' options). */
export const ActOptions = {
  observe_ms: z
    .number()
    .int()
    .min(0)
    .max(5000)
    .optional()
    .describe('Cap of the observation window (default 500).'),
  observe_min_ms: z
    .number()
    .int()
    .min(0)
    .max(5000)
    .optional()
    .describe('Observe at least this long even when the page is quiet (late effects, e.g. a timer popup).'),
  snapshot_diff: z.boolean().optional().describe('Include a snapshot diff of the page in the receipt.'),
  verify: WaitConditions.optional().describe('A condition proving the action worked; sets verified.'),
  verify_mode: z.enum(['all', 'any']).optional(),
  refuse: z
    .object({
      sensitive: z.boolean().optional().describe('Refuse typing into a secret field.'),
      child_frames: z.boolean().optional().describe('Refuse a target inside an iframe.'),
      unsupported: z
        .boolean()
        .optional()
        .describe('Refuse a canvas, a closed shadow root and a custom element without a role.'),
      origins: z
        .array(z.string())
        .min(1)
        .max(32)
        .optional()
        .describe('Refuse unless the page (and a target frame) is at one of these origins.'),
    })
    .strict()
    .optional(),
};

/** How JavaScript dialogs are answered (one action for every type, or per type). */
const DialogAction = z.enum(['accept', 'dismiss', 'hold']);
export const DialogPolicyInput = z.union([
  DialogAction,
  z
    .object({
      alert: DialogAction.optional(),
      confirm: DialogAction.optional(),
      prompt: DialogAction.optional(),
      beforeunload: DialogAction.optional(),
    })
    .strict(),
]);

export const SessionStart = z
  .object({
    kind: z.enum(['ephemeral', 'persistent', 'attach', 'remote']).optional(),
    /** The browser family (one of the engine's backends); the engine's default when absent. */
    browser: z.enum(['chromium', 'firefox']).optional(),
    /**
     * A vendor build of the family to launch (chromium: chrome, edge), found like the family's own
     * binary ($TABWRIGHT_CHROME / $TABWRIGHT_EDGE, then the install paths; engine.diagnostics
     * `products` lists what is installed). setup_required when it is not installed; only for
     * ephemeral and persistent sessions on this machine.
     */
    product: z
      .enum(['chrome', 'edge'])
      .optional()
      .describe('chromium only: launch the installed Google Chrome / Microsoft Edge instead of Chromium.'),
    /** persistent: the profile name (kept under $TABWRIGHT_HOME/profiles/<name>). */
    profile: z.string().min(1).optional(),
    /** attach: a CDP endpoint (http://127.0.0.1:9222 or ws://…); remote: a Playwright server's ws endpoint. */
    endpoint: z.string().min(1).optional(),
    policy: Policy.optional(),
    network_recording: z.boolean().optional(),
    dialogs: DialogPolicyInput.optional(),
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
