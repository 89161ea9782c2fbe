import { z } from 'zod';
import type { Receipt, Target } from '../../engine/actions/types.js';
import {
  ActionFields,
  ElementRef,
  type OperationOptions,
  ScreenshotOptions,
  SnapshotOptions,
  TimeoutMs,
  WaitConditions,
} from '../../engine/api.js';
import type { Page } from '../../engine/page.js';
import { methodKit, targetFrom } from '../kit/index.js';
import { renderReceipt } from './render.js';
import type { ClientScope } from './scope.js';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  scope: ClientScope;
  /** Fires when the client cancels the call or disconnects. */
  signal: AbortSignal;
}

export type ToolContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** What only MCP needs of a tool: a human title, and whether it is in the reduced set (`--tools core`). */
export interface ToolMeta {
  title: string;
  core?: boolean;
}

/** A tool's reply: compact text for the model, or content parts (an image and its caption). */
export type ToolReply = ToolContent[] | string;

/** One tool: `tool({ name, summary, params, ops, meta, run })`, the handler typed by its schema. */
export const tool = methodKit<ToolContext, ToolMeta, ToolReply>();

export type ToolDef = ReturnType<typeof tool>;

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

const TARGET_NAMES = { ref: 'ref', selector: 'selector', text: 'visible_text' } as const;

export function targetOf(a: TargetArgs, method: string, required = true): Target | undefined {
  return targetFrom(a, TARGET_NAMES, { method, required });
}

export function operationOptions(ctx: ToolContext, a: { timeout_ms?: number }): OperationOptions {
  return { timeoutMs: a.timeout_ms, signal: ctx.signal };
}

/** What every action tool adds to its operation's input: the target and a snapshot diff. */
export interface ActionBase {
  target: Target | undefined;
  snapshot_diff: true;
}

/**
 * One action tool: the page (page_id or the active one), the target, the tool's operation call
 * (given the base input and options), and the compact receipt.
 */
export async function runAction(
  ctx: ToolContext,
  name: string,
  a: TargetArgs & { page_id?: string; timeout_ms?: number },
  call: (page: Page, base: ActionBase, opts: OperationOptions) => Promise<Receipt>,
  required = true,
): Promise<string> {
  const page = await ctx.scope.page(a.page_id);
  const base: ActionBase = { target: targetOf(a, name, required), snapshot_diff: true };
  return renderReceipt(await call(page, base, operationOptions(ctx, a)));
}

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
