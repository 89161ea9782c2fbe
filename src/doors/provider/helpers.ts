import type { z } from 'zod';
import type { WaitUntil } from '../../backends/backend.js';
import type { Receipt, Target } from '../../engine/actions/types.js';
import { type ActionOptions, type OperationOptions, ops } from '../../engine/api.js';
import type { Page } from '../../engine/page.js';
import type { Session } from '../../engine/session.js';
import { type TargetFields, targetFrom } from '../kit/index.js';
import type { CallContext } from './table.js';

export function sessionOf(call: CallContext, sessionId: string): Session {
  const s = call.engine.session(sessionId);
  s.assertAlive();
  return s;
}

/** The named page of the session, or its current page. */
export function pageOf(call: CallContext, p: { session_id: string; page_id?: string }): Page {
  return sessionOf(call, p.session_id).page(p.page_id ?? null);
}

export function opOptions(p: { timeout_ms?: number }, call: CallContext): OperationOptions {
  return { timeoutMs: p.timeout_ms, signal: call.signal };
}

export function waitUntil(w: string | undefined): WaitUntil {
  return !w || w === 'provider_default' ? 'load' : (w as WaitUntil);
}

/** The draft's targeting fields, as the kit's wire-target mapper reads them. */
export const TARGET: TargetFields = {
  ref: 'element_ref',
  selector: 'selector',
  text: 'text_query',
  exact: 'exact',
  point: 'position',
  frame: 'frame_id',
  nth: 'nth',
};

/** tabwright.act also targets by role (+ name, context). */
export const ROLE_TARGET: TargetFields = { ...TARGET, role: 'role', name: 'name', context: 'context' };

/** page.type: a field by element_ref or selector. */
export const FIELD_TARGET: TargetFields = {
  ref: 'element_ref',
  selector: 'selector',
  frame: 'frame_id',
  nth: 'nth',
};

/** upload.set_files and page.screenshot: an element by element_ref or selector. */
export const ELEMENT_TARGET: TargetFields = { ref: 'element_ref', selector: 'selector' };

/**
 * The one target of a method's params, by the kit's rules (exactly one of its targeting fields;
 * none: invalid_request naming them, or undefined when `optional`).
 */
export function targetOf(p: object, method: string, fields?: TargetFields): Target;
export function targetOf(
  p: object,
  method: string,
  fields: TargetFields | undefined,
  optional: true,
): Target | undefined;
export function targetOf(p: object, method: string, fields = TARGET, optional = false): Target | undefined {
  return targetFrom(p as Record<string, unknown>, fields, { method, required: !optional });
}

/** The action options of the provider's action methods (timeout_ms goes to the operation's deadline). */
export type ActionOptionParams = z.output<typeof ActionOptions>;

/** What every action operation takes besides its own fields: the target and the observation options. */
export function actionBase<T extends Target | undefined>(p: ActionOptionParams, target: T) {
  return {
    target,
    observe_ms: p.observe_ms,
    snapshot_diff: p.snapshot_diff,
    verify: p.verify,
    verify_mode: p.verify_mode,
  };
}

type ActionBase = ReturnType<typeof actionBase<Target | undefined>>;

/**
 * One action method: the page, the target (read after the page, so an unknown session is reported
 * first), the operation's call with the base input, and the reply: the method's own flags, then the
 * fields every action result carries.
 */
export async function runAction(
  call: CallContext,
  p: ActionOptionParams & { session_id: string; page_id?: string },
  steps: {
    target: () => Target | undefined;
    perform: (page: Page, base: ActionBase, o: OperationOptions) => Promise<Receipt>;
    reply: (receipt: Receipt) => Record<string, unknown>;
  },
): Promise<Record<string, unknown>> {
  const page = pageOf(call, p);
  const receipt = await steps.perform(page, actionBase(p, steps.target()), opOptions(p, call));
  return { ...steps.reply(receipt), ...(await actionResult(page, receipt)) };
}

/**
 * Fields every action result carries besides its own flag: the draft's plus the engine's receipt
 * (with `more` facts of the operation, e.g. an upload's read-back).
 */
export async function actionResult(
  page: Page,
  receipt: Receipt,
  more?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return {
    page_id: page.id,
    url: page.closed ? (receipt.changes.url?.after ?? null) : (await ops.info.call(page, {})).url,
    navigation_occurred: receipt.changes.navigated,
    receipt: more ? { ...receipt, ...more } : receipt,
  };
}
