import type { WaitUntil } from '../../backends/backend.js';
import type { ActionOptions, Receipt, Target } from '../../engine/actions/types.js';
import type { OperationOptions } from '../../engine/deadline.js';
import { TabwrightError } from '../../engine/errors.js';
import type { Page } from '../../engine/page.js';
import type { Session } from '../../engine/session.js';
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

export interface TargetParams {
  element_ref?: string;
  selector?: string;
  text_query?: string;
  exact?: boolean;
  position?: { x: number; y: number };
  role?: string;
  name?: string;
  context?: string;
  frame_id?: string;
  nth?: number;
}

/**
 * The one target of an action: exactly one of element_ref, selector,
 * text_query, position (and role for tabwright.act). None: undefined when
 * `optional`, else invalid_request.
 */
export function targetOf(p: TargetParams, method: string, optional = false): Target | undefined {
  const given = (['element_ref', 'selector', 'text_query', 'position', 'role'] as const).filter(
    (k) => p[k] !== undefined,
  );
  if (given.length > 1) {
    throw new TabwrightError(
      'invalid_request',
      `${method}: give exactly one target, not ${given.join(' and ')}. Prefer element_ref from page.snapshot.`,
      { details: { field: given[1], reason: 'several_targets' } },
    );
  }
  if (p.exact !== undefined && p.text_query === undefined && p.role === undefined) {
    throw new TabwrightError('invalid_request', `${method}: exact applies to text_query (or role) only.`, {
      details: { field: 'exact' },
    });
  }
  if (p.frame_id !== undefined && p.selector === undefined && p.text_query === undefined) {
    throw new TabwrightError(
      'invalid_request',
      `${method}: frame_id applies to selector or text_query (an element_ref already knows its frame).`,
      { details: { field: 'frame_id' } },
    );
  }
  if (p.nth !== undefined && p.selector === undefined) {
    throw new TabwrightError('invalid_request', `${method}: nth applies to selector only.`, {
      details: { field: 'nth' },
    });
  }
  const frame = p.frame_id !== undefined ? { frame: p.frame_id } : {};
  if (p.element_ref !== undefined) return { element_ref: p.element_ref };
  if (p.selector !== undefined)
    return { selector: p.selector, ...frame, ...(p.nth !== undefined ? { nth: p.nth } : {}) };
  if (p.text_query !== undefined)
    return p.exact === undefined
      ? { text: p.text_query, ...frame }
      : { text: p.text_query, exact: p.exact, ...frame };
  if (p.position !== undefined) return { x: p.position.x, y: p.position.y };
  if (p.role !== undefined) {
    const t: Target = { role: p.role };
    if (p.name !== undefined) t.name = p.name;
    if (p.exact !== undefined) t.exact = p.exact;
    if (p.context !== undefined) t.context = p.context;
    return t;
  }
  if (optional) return undefined;
  throw new TabwrightError(
    'invalid_request',
    `${method}: a target is required: element_ref (from page.snapshot), selector, text_query or position {x, y}.`,
    { details: { field: 'element_ref', reason: 'no_target' } },
  );
}

export interface ActionOptionParams {
  timeout_ms?: number;
  observe_ms?: number;
  snapshot_diff?: boolean;
  verify?: ActionOptions['verify'];
  verify_mode?: 'all' | 'any';
}

export function actionOptions(p: ActionOptionParams, call: CallContext): ActionOptions {
  const o: ActionOptions = { timeoutMs: p.timeout_ms, signal: call.signal };
  if (p.observe_ms !== undefined) o.observe_ms = p.observe_ms;
  if (p.snapshot_diff !== undefined) o.snapshot_diff = p.snapshot_diff;
  if (p.verify !== undefined) o.verify = p.verify;
  if (p.verify_mode !== undefined) o.verify_mode = p.verify_mode;
  return o;
}

/** Fields every action result carries besides its own flag: the draft's plus the engine's receipt. */
export function actionResult(page: Page, receipt: Receipt): Record<string, unknown> {
  return {
    page_id: page.id,
    url: page.closed ? (receipt.changes.url?.after ?? null) : page.url(),
    navigation_occurred: receipt.changes.navigated,
    receipt,
  };
}
