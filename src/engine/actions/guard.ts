import { registryOf } from '../../snapshot/refs.js';
import { type Deadline, DeadlineExpired } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import type { Page } from '../page.js';
import { elementCall, type PinnedElement, staleRef } from './element-calls.js';
import type { Fingerprint, GuardResult, ProbeKind } from './injected/probe.js';
import type { SecretTarget } from './observe.js';

/** Refusals worth waiting out: the page may still be settling (render, enable, animation, overlay leaving). */
const WAITABLE = new Set(['hidden', 'unstable', 'obscured', 'disabled']);
/** Time kept back from the deadline for dispatch and the receipt. */
const RESERVE_MS = 600;

export type GuardOk = GuardResult & { ok: true };

/** With `prepare`, a passing guard also returns the value, a fingerprint, and has started the DOM observer. */
export type Prepared = GuardOk & {
  value?: string | boolean | null;
  fingerprint?: Fingerprint;
  focused?: boolean;
  /** The target is a secret field (the secret rule): what it types is registered as a secret. */
  secret?: SecretTarget;
};

/**
 * Waits until the pinned element is actionable for `kind`, up to the
 * deadline (less a reserve for dispatch), then returns where to dispatch.
 * Refuses with a normalized error naming the reason; never falls back to
 * coordinates or script.
 */
export async function waitActionable(
  page: Page,
  el: PinnedElement,
  kind: ProbeKind,
  d: Deadline,
  /** `gate`: opened by the first attempt only, for the calls the caller sent right behind it. */
  prepare?: { value: 'value' | 'checked' | null; focus?: 'plain' | 'end' | 'all'; gate?: number },
): Promise<Prepared> {
  let attempt = 0;
  for (;;) {
    const g = await elementCall<GuardResult>(
      el,
      prepare
        ? { op: 'prepare', kind, scroll: true, ...prepare, gate: attempt === 0 ? prepare.gate : undefined }
        : { op: 'guard', kind, scroll: true },
      d,
    );
    if (g.ok) return g as Prepared;
    attempt++;
    if (!WAITABLE.has(g.reason ?? '') || d.remaining() < RESERVE_MS + 100)
      throw refusal(page, el, g, attempt);
    // The caller gave up: stop probing (the page queue already told it so).
    if (d.signal.aborted) throw new DeadlineExpired(d);
    await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 250)));
  }
}

function refusal(page: Page, el: PinnedElement, g: GuardResult, attempts: number): TabwrightError {
  const reason = g.reason ?? 'unknown';
  if (reason === 'detached') return staleRef(el.ref);
  const details: Record<string, unknown> = { element_ref: el.ref, reason, status: 'blocked', attempts };
  if (reason === 'not_select' || reason === 'not_checkable' || reason === 'not_file_input') {
    return new TabwrightError(
      'unsupported_target',
      `Cannot do that on ${el.ref}: ${g.message}. Pick the right element from a snapshot.`,
      {
        details,
      },
    );
  }
  if (reason === 'obscured' && g.cover) {
    const coverRef = g.coverId
      ? registryOf(page.session).refFor(page.id, el.frame.id, g.coverId.doc, g.coverId.id)
      : null;
    details.covered_by = { role: g.cover.role, name: g.cover.name, tag: g.cover.tag, element_ref: coverRef };
  }
  const next: Record<string, string> = {
    hidden: 'Wait for it to appear (page.wait) or take a new snapshot.',
    disabled: 'Complete what enables it first, or wait for it to become enabled.',
    readonly: 'Use the control the page offers for this value (a picker, for example).',
    not_editable: 'Target an input, textarea or contenteditable element.',
    obscured: 'Close or handle the covering element first (it is named in details.covered_by), then retry.',
    unstable: 'Wait for the animation to end, then retry.',
  };
  return new TabwrightError(
    'element_not_actionable',
    `Cannot act on ${el.ref}: ${g.message ?? reason}. ${next[reason] ?? 'Take a new snapshot and decide again.'}`,
    { retryable: reason === 'hidden' || reason === 'unstable' || reason === 'obscured', details },
  );
}
