import { DEFAULT_TIMEOUT_MS, type Deadline, MAX_TIMEOUT_MS, TabwrightError } from '../../engine/api.js';
import { currentSnippetSignal } from './runner.js';
import type { SnapshotView } from './snapshot-view.js';
import { harnessWords, inHarnessWords, withoutEngineRefs } from './vocabulary.js';

/** The four outcomes of a guarded operation (seed: Browser / Page / Locator). */
export type ActionStatus = 'executed' | 'stale' | 'blocked' | 'outcome_unknown';

export interface ActionResult {
  status: ActionStatus;
  /** Why: e.g. dispatched, ref_expired, no_match, origin_denied, hidden, deadline_before_dispatch. */
  reason: string;
  /** true/false from the built-in read-back (fill, selectOption) or the verify predicate; null when nothing checked. */
  verified: boolean | null;
  /** A fresh snapshot of the page after the operation (refs in it are the page's current refs), or null. */
  snapshot: SnapshotView | null;
  /** Why verification (or the snapshot after the operation) could not be read. */
  verificationError?: string;
  /** What to do next, for anything but a plain success. */
  hint?: string;
  [extra: string]: unknown;
}

/** Per-call options of every page and locator operation. */
export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The caller's timeout (default 10 s, max 60 s) and signal, combined with the snippet's own signal. */
export function engineOpts(o: CallOptions | undefined): { timeoutMs: number; signal?: AbortSignal } {
  const timeoutMs = o?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TabwrightError(
      'invalid_request',
      `timeoutMs must be a number from 1 to ${MAX_TIMEOUT_MS}; got ${String(o?.timeoutMs)}. Split long work into several calls.`,
      { details: { field: 'timeoutMs' } },
    );
  }
  const signals = [o?.signal, currentSnippetSignal()].filter((s): s is AbortSignal => !!s);
  const signal =
    signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  if (signal?.aborted) {
    throw new TabwrightError(
      'not_ready',
      'The call was cancelled before it started (its signal is aborted).',
      {
        details: { outcome: 'not_started', aborted: true },
      },
    );
  }
  return signal ? { timeoutMs, signal } : { timeoutMs };
}

/** Remaining budget of a deadline as engine options (at least 1 ms). */
export function rest(d: Deadline): { timeoutMs: number; signal: AbortSignal } {
  return { timeoutMs: Math.max(1, d.remaining()), signal: d.signal };
}

const HINT: Record<ActionStatus, string> = {
  executed:
    'The input was sent; that alone does not prove the task succeeded. Check verified, or read the page.',
  stale: 'The evidence is out of date: take a new snapshot (or observe again) and decide again.',
  blocked:
    'The operation was refused and nothing was sent. Stop, or get authorization / fix the target; never work around it with raw CDP.',
  outcome_unknown:
    'The input may or may not have taken effect. Inspect the page before anything else; never replay the operation automatically.',
};

export function result(
  status: ActionStatus,
  reason: string,
  extra: Partial<ActionResult> = {},
): ActionResult {
  const r: ActionResult = { status, reason, verified: null, snapshot: null, ...extra };
  if (status !== 'executed' && r.hint === undefined) r.hint = HINT[status];
  return r;
}

/**
 * Maps an engine failure to a result; rethrows what is a caller mistake
 * (invalid request, ambiguous locator, bad selector) or an internal error.
 */
export function resultFromError(err: unknown): ActionResult {
  if (!(err instanceof TabwrightError)) throw err;
  const d = err.details as Record<string, unknown>;
  const message = harnessWords(err.message);
  switch (err.code) {
    case 'permission_denied':
      return result('blocked', 'origin_denied', { message, origin: d.origin ?? null });
    case 'element_not_actionable':
      return result('blocked', String(d.reason ?? 'not_actionable'), {
        message,
        ...(d.covered_by ? { coveredBy: withoutEngineRefs(d.covered_by) } : {}),
      });
    case 'unsupported_target':
      return result('blocked', String(d.reason ?? 'unsupported_target'), { message });
    case 'element_not_found':
      if (d.reason === 'ambiguous') throw inHarnessWords(err);
      if (d.reason === 'no_such_option' || d.reason === 'ambiguous_option')
        return result('blocked', d.reason, { message });
      return result('stale', d.reason === 'stale_ref' ? 'stale_ref' : String(d.reason ?? 'no_match'), {
        message,
      });
    case 'not_ready':
      if (d.reason === 'dialog_open') return result('blocked', 'dialog_open', { message, dialog: d.dialog });
      if (d.outcome === 'unknown')
        return result('outcome_unknown', d.aborted ? 'cancelled_after_dispatch' : 'deadline_after_dispatch', {
          message,
        });
      return result('blocked', d.aborted ? 'cancelled' : 'deadline_before_dispatch', { message });
    case 'navigation_timeout':
      return result('outcome_unknown', 'navigation_timeout', { message });
    case 'page_not_found':
      return result('stale', 'page_closed', { message });
    case 'browser_not_running':
    case 'session_not_found':
      return result('stale', 'connection_changed', { message });
    default:
      throw inHarnessWords(err);
  }
}
