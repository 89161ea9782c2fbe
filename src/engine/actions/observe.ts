import type { BackendFrame } from '../../backends/backend.js';
import type { Deadline } from '../deadline.js';
import type { Page } from '../page.js';
import { frameCall } from './element-calls.js';
import type { Fingerprint, SideEffects } from './injected/probe.js';

/**
 * How long the DOM must be quiet (no mutation) before the observation window
 * closes after a click, key press, hover, drag or scroll: about two animation frames,
 * for menus, route changes and renders a step or two later. Changes driven by
 * requests keep the window open through the request tracking instead.
 */
export const QUIET_MS = 30;
/**
 * The same for value changes (type, fill, select, check, focus, files; not scroll: scroll events
 * fire with the next frame).
 * Frameworks render what an input event changed synchronously or in a
 * microtask (React, Vue, Svelte, Lit, Preact, Angular), which is over before
 * the settle read even starts; 3 ms more covers a render deferred by a task
 * (a zero-delay timer, a message-channel task). A render deferred to the next
 * animation frame is caught when that frame falls inside the window.
 */
export const VALUE_QUIET_MS = 3;
export const DEFAULT_OBSERVE_CAP_MS = 500;
/** How long a popup or download that the action visibly started may take to arrive. */
export const EXPECTED_ARRIVAL_MS = 3000;
/**
 * How long a link or form navigation the action visibly started may take to show (its request,
 * its refusal by the origin policy, or the new URL). Shorter: a page may still take the
 * navigation over itself (the Navigation API's intercept), and then nothing arrives.
 */
export const EXPECTED_NAVIGATION_MS = 1000;

/** Reads the fingerprint of a frame, bounded so a held dialog or a busy page cannot stall the receipt. */
export async function readFingerprint(
  frame: BackendFrame,
  d: Deadline,
  capMs = 1500,
): Promise<Fingerprint | null> {
  try {
    return await withCap(frameCall<Fingerprint>(frame, { op: 'fingerprint' }, d), capMs);
  } catch {
    return null;
  }
}

/** The secret field an action types into (secretOf in the probe): why it is secret and its form name. */
export type SecretTarget = { reason: string; name: string | null } | null;

/**
 * Fingerprint + observer start for actions without an element (one round trip), and whether the
 * focused element (where targetless typing goes) is a secret field.
 */
export async function preparePage(
  frame: BackendFrame,
  d: Deadline,
): Promise<{ fingerprint: Fingerprint | null; secret: SecretTarget }> {
  try {
    const r = await withCap(
      frameCall<{ fingerprint: Fingerprint; secret?: SecretTarget }>(frame, { op: 'prepare' }, d),
      1500,
    );
    return { fingerprint: r.fingerprint, secret: r.secret ?? null };
  } catch {
    return { fingerprint: null, secret: null };
  }
}

export interface SettleResult {
  windowMs: number;
  quiet: boolean;
  mutations: number;
  /** The observed document went away (navigation) during the window. */
  documentReplaced: boolean;
  fingerprint: Fingerprint | null;
  value: string | boolean | null;
  /** The pinned element is gone after the action. */
  targetGone: boolean;
  /** Sent with a gate whose guard did not pass (or was not found): nothing was observed. */
  skipped?: boolean;
}

/** A window that observed nothing (a held dialog blocks the page, or the read was skipped). */
export const NOTHING_OBSERVED: SettleResult = Object.freeze({
  windowMs: 0,
  quiet: false,
  mutations: 0,
  documentReplaced: false,
  fingerprint: null,
  value: null,
  targetGone: false,
});

/**
 * The adaptive observation window: ends as soon as the DOM has had no
 * mutation for `quietMs` and the page has no request in flight, or at the cap.
 * The DOM part runs inside the page (one round trip); requests are tracked
 * here. A navigation ends the window (the new document is read afterwards).
 */
export async function settle(
  page: Page,
  frame: BackendFrame,
  capMs: number,
  d: Deadline,
  inflight: () => number,
  pin: { doc: string; id: number } | undefined,
  value: 'value' | 'checked' | null,
  beforeUrl: string | undefined,
  arrived: Record<keyof SideEffects, () => boolean>,
  /** Keep observing at least this long even when the page is quiet (a fixed window, e.g. the HTTP door's 500 ms). */
  minMs = 0,
  quietMs = QUIET_MS,
  /** Sent together with typed text: the page waits this long at most for its input event (see the page's settle). */
  awaitInputMs = 0,
  /** Sent right behind the guard's `prepare` with this gate, before its reply: settles only once that guard passed. */
  gate?: number,
): Promise<SettleResult> {
  const started = Date.now();
  let mutations = 0;
  let quiet = false;
  let fingerprint: Fingerprint | null = null;
  let v: string | boolean | null = null;
  let targetGone = false;
  let expectPopup = false;
  let expectDownload = false;
  let expectChooser = false;
  let expectNavigation = false;
  let textLate = false;
  for (let round = 0; ; round++) {
    const left = Math.max(0, capMs - (Date.now() - started));
    try {
      const r = await withCap(
        frameCall<{
          mutations: number;
          quiet: boolean;
          fingerprint: Fingerprint;
          value: string | boolean | null;
          stale: boolean;
          expect: SideEffects;
          skipped?: boolean;
          textPending?: boolean;
        }>(
          frame,
          {
            op: 'settle',
            quietMs,
            capMs: round === 0 || textLate ? left : Math.min(left, quietMs),
            awaitInputMs: round === 0 || textLate ? Math.min(awaitInputMs, left) : 0,
            pin,
            value,
            gate: round === 0 && !textLate ? gate : undefined,
          },
          d,
        ),
        left + 1000,
      );
      // The typed text had not reached the page when its read gave up waiting: ask again (the observer
      // runs on), up to the cap.
      if (r.textPending) {
        textLate = true;
        round--;
        continue;
      }
      textLate = false;
      if (r.skipped) return { ...NOTHING_OBSERVED, skipped: true };
      mutations += r.mutations;
      quiet = r.quiet;
      fingerprint = r.fingerprint;
      v = r.value;
      targetGone = r.stale;
      expectPopup ||= r.expect.popup;
      expectDownload ||= r.expect.download;
      expectChooser ||= r.expect.fileChooser;
      expectNavigation ||= r.expect.navigation === true;
    } catch {
      // The document went away (navigation) or the page is blocked (a held dialog).
      const replaced = frame.isDetached() || (beforeUrl !== undefined && frame.url() !== beforeUrl);
      return {
        windowMs: Date.now() - started,
        quiet: false,
        mutations,
        documentReplaced: replaced,
        fingerprint: null,
        value: null,
        targetGone: false,
      };
    }
    // A popup, download or file chooser the action started arrives outside this document: wait for it.
    if (expectPopup || expectDownload || expectChooser) {
      // Something is known to be on its way: wait for it past the cap (it is not a guess), bounded.
      const until = started + Math.max(capMs, EXPECTED_ARRIVAL_MS);
      while (Date.now() < until && d.remaining() > 300 && !page.closed) {
        if (
          (!expectPopup || arrived.popup()) &&
          (!expectDownload || arrived.download()) &&
          (!expectChooser || arrived.fileChooser())
        )
          break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expectPopup = false;
      expectDownload = false;
      expectChooser = false;
    }
    // A navigation the action started: its request (then tracked as in flight), its refusal or its
    // new URL shows a moment later; without this wait a busy machine closes the window before it.
    if (expectNavigation) {
      const until = started + Math.max(capMs, EXPECTED_NAVIGATION_MS);
      while (Date.now() < until && d.remaining() > 300 && !page.closed && !arrived.navigation())
        await new Promise((r) => setTimeout(r, 10));
      expectNavigation = false;
    }
    // Requests in flight keep the window open (they may still change the page), up to the cap.
    const elapsed = Date.now() - started;
    if ((inflight() === 0 && elapsed >= minMs) || elapsed >= capMs || d.remaining() < 100 || page.closed) {
      return {
        windowMs: elapsed,
        quiet: quiet && inflight() === 0,
        mutations,
        documentReplaced: false,
        fingerprint,
        value: v,
        targetGone,
      };
    }
    while (inflight() > 0 && Date.now() - started < capMs) await new Promise((r) => setTimeout(r, 10));
    // Re-arm the observer for the next round: the settle op stopped it.
    await frameCall(frame, { op: 'observeStart' }, d).catch(() => {});
  }
}

function withCap<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('observation read timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
