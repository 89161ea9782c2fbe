import { z } from 'zod';
import type { ActionSpec, Target } from '../../engine/actions/types.js';
import { TabwrightError } from '../../engine/errors.js';
import {
  ActionFields,
  ElementRef,
  ScreenshotOptions,
  SnapshotOptions,
  TimeoutMs,
  WaitConditions,
} from '../../engine/schemas.js';
import { renderReceipt } from './render.js';
import type { ClientScope } from './scope.js';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  scope: ClientScope;
  /** Fires when the client cancels the call or disconnects. */
  signal: AbortSignal;
}

export type ToolContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface ToolDef {
  name: string;
  description: string;
  schema: z.ZodObject;
  /** In the reduced tool set (`--tools core`). */
  core?: boolean;
  run(ctx: ToolContext, args: never): Promise<ToolContent[] | string>;
}

/** Declares a tool whose handler is typed by its schema. */
export function defineTool<S extends z.ZodObject>(t: {
  name: string;
  description: string;
  schema: S;
  core?: boolean;
  run(ctx: ToolContext, args: z.infer<S>): Promise<ToolContent[] | string>;
}): ToolDef {
  return t as unknown as ToolDef;
}

// ---- shared fields ------------------------------------------------------------

export const PageFields = {
  page_id: z.string().optional(),
  timeout_ms: TimeoutMs.optional().describe('ms'),
};

/** The engine's Target, flattened for tool arguments: one of ref, selector or visible_text. */
export const TargetFields = {
  ref: ElementRef.optional().describe('From the snapshot, e.g. e12'),
  selector: z.string().min(1).optional().describe('CSS, one match'),
  visible_text: z.string().min(1).optional(),
};

export type TargetArgs = { ref?: string; selector?: string; visible_text?: string };

export function targetOf(a: TargetArgs, required: boolean): Target | undefined {
  const given: Target[] = [];
  if (a.ref !== undefined) given.push({ element_ref: a.ref });
  if (a.selector !== undefined) given.push({ selector: a.selector });
  if (a.visible_text !== undefined) given.push({ text: a.visible_text });
  if (given.length > 1) {
    throw new TabwrightError('invalid_request', 'Give only one of ref, selector or visible_text.', {
      details: { field: 'ref' },
    });
  }
  if (given.length === 0 && required) {
    throw new TabwrightError(
      'invalid_request',
      'No target: give ref (from a snapshot), selector or visible_text.',
      { details: { field: 'ref' } },
    );
  }
  return given[0];
}

function opts(ctx: ToolContext, a: { timeout_ms?: number }) {
  return { timeoutMs: a.timeout_ms, signal: ctx.signal };
}

async function act(
  ctx: ToolContext,
  a: TargetArgs & { page_id?: string; timeout_ms?: number },
  spec: ActionSpec,
  required = true,
): Promise<string> {
  const page = await ctx.scope.page(a.page_id);
  const r = await page.act(targetOf(a, required), spec, { ...opts(ctx, a), snapshot_diff: true });
  return renderReceipt(r);
}

export { act as runAction, opts as operationOptions };

export const strict = <T extends z.ZodRawShape>(shape: T) => z.object(shape).strict();

// The actions' own fields, straight from the engine's schemas.
export const ClickFields = ActionFields.click.pick({
  button: true,
  click_count: true,
  modifiers: true,
}).shape;
export const TypeFields = ActionFields.type.shape;
export const SelectFields = ActionFields.select.pick({ values: true, labels: true }).shape;
export const ScrollFields = ActionFields.scroll.shape;
export const UploadFields = ActionFields.set_files.shape;
export const PressFields = ActionFields.press.shape;

export const SnapshotFields = SnapshotOptions.pick({
  interactive_only: true,
  scope_ref: true,
  scope_selector: true,
  max_depth: true,
  viewport: true,
  include_urls: true,
  max_chars: true,
  diff: true,
}).shape;

export const WaitFields = WaitConditions.pick({
  text_present: true,
  text_absent: true,
  selector_present: true,
  selector_absent: true,
  element_ref_present: true,
  url_matches: true,
  network_idle: true,
  js_predicate: true,
}).shape;

export const ShotFields = ScreenshotOptions.pick({ full_page: true, format: true, quality: true }).shape;
