import { z } from 'zod';

/**
 * What an action is aimed at and what it does, declared once: the zod schemas below validate
 * requests, advertise JSON Schema (provider describe, MCP tools) and give the TypeScript types
 * (`Target`, `ActionSpec`) by inference, so the three can never drift apart.
 */

const nonEmpty = (what: string) =>
  z.string({ error: `${what} must be a non-empty string.` }).refine((s) => s.trim() !== '', {
    error: `${what} must be a non-empty string.`,
  });

export const ElementRef = z
  .string()
  .regex(/^e[1-9][0-9]*$/, { error: 'An element ref looks like "e12" (from the latest snapshot).' })
  .describe('An element ref from the latest snapshot, e.g. "e12".');

const FrameId = z
  .string()
  .min(1, { error: 'target.frame must be a frame id from the page frames.' })
  .describe('An engine frame id (page frames); the main frame when absent.');

const RefTarget = z.object({ element_ref: ElementRef }).strict();
const SelectorTarget = z
  .object({
    selector: nonEmpty('target.selector').describe('CSS selector matching exactly one element.'),
    frame: FrameId.optional(),
    nth: z
      .number()
      .int({ error: 'target.nth is a 0-based integer.' })
      .min(0, { error: 'target.nth is a 0-based integer.' })
      .optional()
      .describe('0-based, in document order: picks one of several matches explicitly.'),
  })
  .strict();
const RoleTarget = z
  .object({
    role: nonEmpty('target.role'),
    name: z.string().optional(),
    exact: z.boolean().optional(),
    context: z
      .string()
      .optional()
      .describe('Name of an ancestor, or "role: name" as candidates print it, to disambiguate.'),
    case_sensitive: z.boolean().optional().describe('Match name and context without folding case.'),
  })
  .strict();
const TextTarget = z
  .object({
    text: nonEmpty('target.text').describe('Visible text: the innermost element showing it.'),
    exact: z.boolean().optional(),
    frame: FrameId.optional(),
  })
  .strict();
const PointTarget = z
  .object({ x: z.number(), y: z.number() })
  .strict()
  .describe('CSS pixels in the viewport.');

/**
 * Refs are preferred; the others are resolved to a ref first. A selector or text must match exactly
 * one element unless `nth` picks one; role + name as in the snapshot (`context`: an ancestor's name).
 */
export const Target = z
  .union([RefTarget, SelectorTarget, RoleTarget, TextTarget, PointTarget], {
    error:
      'A target is exactly one of: element_ref (preferred), selector (+ frame, nth), role (+ name, exact, context), text (+ exact, frame), or x and y.',
  })
  .describe('Exactly one of: element_ref (preferred), selector, role (+name), text, or x and y.');

export type Target = z.output<typeof Target>;

export const Modifier = z.enum(['Alt', 'Control', 'Meta', 'Shift']);
export type Modifier = z.output<typeof Modifier>;

/** Per-action fields (without `action`), for doors that compose their wire schemas from them. */
export const ActionFields = {
  click: z
    .object({
      button: z.enum(['left', 'right', 'middle']).optional(),
      click_count: z
        .number()
        .int({ error: 'click_count must be 1, 2 or 3.' })
        .min(1, { error: 'click_count must be 1, 2 or 3.' })
        .max(3, { error: 'click_count must be 1, 2 or 3.' })
        .optional(),
      modifiers: z.array(Modifier).optional(),
      synthetic: z
        .boolean()
        .optional()
        .describe(
          'Script-dispatched DOM events instead of trusted input; skips the visibility and covering checks, and frameworks may ignore untrusted events.',
        ),
    })
    .strict(),
  hover: z.object({}).strict(),
  focus: z.object({}).strict(),
  /**
   * Types text at the end of the current value (`replace` clears first; `submit` presses Enter
   * after). One input event with the whole text, like paste; `key_by_key` sends every key.
   */
  type: z
    .object({
      text: z.string({ error: 'type needs text (a string).' }),
      replace: z.boolean().optional(),
      submit: z.boolean().optional(),
      key_by_key: z.boolean().optional(),
    })
    .strict(),
  /** Replaces the value and verifies the final value. */
  fill: z.object({ value: z.string({ error: 'fill needs value (a string).' }) }).strict(),
  /** A key or chord; on the target, or on the focused element when there is none. */
  press: z
    .object({
      // " " is a key (Space): only the empty string is no key.
      key: z
        .string({ error: 'press needs key, e.g. "Enter" or "Control+A".' })
        .min(1, { error: 'press needs key, e.g. "Enter" or "Control+A".' })
        .describe('A key or chord, e.g. "Enter", "Control+A".'),
    })
    .strict(),
  select: z
    .object({
      values: z.array(z.string()).optional(),
      labels: z.array(z.string()).optional(),
      indexes: z.array(z.number().int().min(0)).optional(),
    })
    .strict(),
  check: z.object({}).strict(),
  uncheck: z.object({}).strict(),
  /** Element or page: by pages (±), by pixels, or the target into view. */
  scroll: z
    .object({
      pages: z.number().optional(),
      dy: z.number().optional(),
      dx: z.number().optional(),
      into_view: z.boolean().optional(),
    })
    .strict(),
  drag: z.object({ to: Target }).strict(),
  /** Files on a file input: the pipeline step of page.upload, not an action of ActionSpec. */
  set_files: z
    .object({ files: z.array(z.string(), { error: 'set_files needs files (a list of paths).' }) })
    .strict(),
} as const;

export type ActionName = keyof typeof ActionFields;

/** `{action: name, ...fields}` of one action. */
const variant = <N extends ActionName, S extends z.ZodRawShape>(name: N, fields: z.ZodObject<S>) =>
  z.object({ action: z.literal(name), ...fields.shape }).strict();

export const ActionSpec = z
  .discriminatedUnion(
    'action',
    [
      variant('click', ActionFields.click),
      variant('hover', ActionFields.hover),
      variant('focus', ActionFields.focus),
      variant('type', ActionFields.type),
      variant('fill', ActionFields.fill),
      variant('press', ActionFields.press),
      variant('select', ActionFields.select).refine(
        (s) => !!(s.values?.length || s.labels?.length || s.indexes?.length),
        { error: 'select needs values, labels or indexes.', path: ['values'] },
      ),
      variant('check', ActionFields.check),
      variant('uncheck', ActionFields.uncheck),
      variant('scroll', ActionFields.scroll),
      variant('drag', ActionFields.drag),
    ],
    {
      error: `action must be one of: ${Object.keys(ActionFields)
        .filter((a) => a !== 'set_files')
        .join(', ')}; files go on an input through the page.upload operation.`,
    },
  )
  .describe('One action and its fields.');

export type ActionSpec = z.output<typeof ActionSpec>;

/**
 * The pipeline's file step. Not an ActionSpec a caller can send: files reach an input only through
 * page.upload (src/engine/uploads.ts), which picks the input, reads its listeners, runs this step
 * and reads the files back, so every door gets the same receipt.
 */
export interface FilesStep {
  action: 'set_files';
  files: string[];
}

/** What the action pipeline performs: a caller's action, or the upload operation's file step. */
export type PipelineSpec = ActionSpec | FilesStep;
