// Bundle entry: the in-page action API, exposed by esbuild as the IIFE global __tabwrightActions.

import {
  checkedOf,
  focusElement,
  type SelectSpec,
  scrollElement,
  selectOptions,
  syntheticClick,
} from './ops.js';
import {
  deepFocused,
  type FindSpec,
  find,
  fingerprint,
  guard,
  liveValue,
  observeRead,
  observeStart,
  type ProbeKind,
  rawValue,
  secretOf,
  settle,
} from './probe.js';
import { wheelReady } from './wheel-ready.js';

const SNAPSHOT_KEY = Symbol.for('tabwright.snapshot');

interface SnapshotApi {
  call(c: { op: 'idOf' }, el?: Element): { doc: string; id: number } | null;
  element(doc: string, id: number): Element | null;
}

/** Local identity (document id + element id) from the snapshot page script, when installed. */
function identity(el: Element): { doc: string; id: number } | null {
  const tw = (globalThis as Record<symbol, SnapshotApi | undefined>)[SNAPSHOT_KEY];
  return tw ? tw.call({ op: 'idOf' }, el) : null;
}

export type ElementOp =
  | { op: 'guard'; kind: ProbeKind; scroll: boolean }
  /** guard, and when it passes: the value, a fingerprint and a started observer, in one round trip. */
  | {
      op: 'prepare';
      kind: ProbeKind;
      scroll: boolean;
      value: 'value' | 'checked' | null;
      focus?: 'plain' | 'end' | 'all';
      /** Opens the gate that calls sent right behind this one wait on (`gated`, settle's `gate`). */
      gate?: number;
    }
  /**
   * Sent right behind a `prepare` with the same gate, without waiting for its reply (CDP runs a
   * session's calls in order): runs `run` once that guard has passed; a guard that did not pass,
   * or another gate, runs nothing: `{ skipped: true }`.
   */
  | { op: 'gated'; gate: number; run: ElementOp }
  | { op: 'value' }
  /** Compares in the page, so a secret value never has to come back to be checked. */
  | { op: 'valueIs'; expected: string }
  | { op: 'checked' }
  /** The element's scroll position, client size and furthest position, once a wheel sent next will scroll (wheel-ready.ts). */
  | { op: 'scrollMetrics' }
  | { op: 'syntheticClick'; clickCount: number }
  | { op: 'focus'; caret?: 'end' | 'all' }
  | { op: 'select'; spec: SelectSpec }
  | { op: 'scroll'; dx?: number; dy?: number; pages?: number; intoView?: boolean };

export type PageOp =
  | { op: 'find'; spec: FindSpec }
  | { op: 'fingerprint' }
  /** The viewport's scroll position, size and furthest position, once a wheel sent next will scroll (wheel-ready.ts). */
  | { op: 'scrollMetrics' }
  | { op: 'observeStart' }
  | { op: 'observeRead'; stop: boolean }
  /** fingerprint + observeStart (actions without an element). */
  | { op: 'prepare' }
  /** Waits for DOM quiet (or the cap), stops the observer; returns counts, a fingerprint and the pinned element's value. */
  | {
      op: 'settle';
      quietMs: number;
      capMs: number;
      /** Wait up to this long for the first `input` event before counting quiet (typed text sent alongside). */
      awaitInputMs?: number;
      pin?: { doc: string; id: number };
      value: 'value' | 'checked' | null;
      /** Sent behind a `prepare` with this gate: settles only once that guard passed, else `{ skipped: true }`. */
      gate?: number;
    };

/** The guard a pipelined settle waits on: the token of its prepare and whether it passed. */
let gate: { token: number; passed: Promise<boolean> } | null = null;

function gatePassed(token: number): Promise<boolean> {
  return gate?.token === token ? gate.passed : Promise.resolve(false);
}

export function create() {
  return {
    async elementOp(el: Element, a: ElementOp): Promise<unknown> {
      switch (a.op) {
        case 'guard': {
          const { coverEl, ...r } = await guard(el, a.kind, a.scroll);
          return coverEl ? { ...r, coverId: identity(coverEl) } : r;
        }
        case 'prepare': {
          const prepared = (async () => {
            const { coverEl, ...r } = await guard(el, a.kind, a.scroll);
            if (!r.ok) return coverEl ? { ...r, coverId: identity(coverEl) } : r;
            const value = a.value === 'value' ? liveValue(el) : a.value === 'checked' ? checkedOf(el) : null;
            const fp = fingerprint();
            observeStart();
            // Focus after the observer starts: focus handlers are part of what the action does.
            const focused = a.focus ? focusElement(el, a.focus === 'plain' ? undefined : a.focus) : undefined;
            return { ...r, value, fingerprint: fp, focused, secret: secretOf(el) };
          })();
          // Set before this call yields, so a settle queued behind it always finds its gate.
          if (a.gate !== undefined)
            gate = {
              token: a.gate,
              passed: prepared.then(
                (r) => r.ok,
                () => false,
              ),
            };
          return prepared;
        }
        case 'gated':
          if (!(await gatePassed(a.gate))) return { skipped: true };
          return this.elementOp(el, a.run);
        case 'value':
          return liveValue(el);
        case 'valueIs':
          return rawValue(el) === a.expected;
        case 'checked':
          return checkedOf(el);
        case 'scrollMetrics':
          wheelReady();
          return {
            top: el.scrollTop,
            left: el.scrollLeft,
            height: el.clientHeight,
            width: el.clientWidth,
            maxTop: el.scrollHeight - el.clientHeight,
            maxLeft: el.scrollWidth - el.clientWidth,
          };
        case 'syntheticClick':
          return syntheticClick(el, a.clickCount);
        case 'focus':
          return focusElement(el, a.caret);
        case 'select':
          return selectOptions(el, a.spec);
        case 'scroll':
          return scrollElement(el, a);
      }
    },
    async pageOp(a: PageOp): Promise<unknown> {
      switch (a.op) {
        case 'prepare': {
          const fp = fingerprint();
          observeStart();
          // Targetless typing goes to the focused element: is it a secret field?
          return { fingerprint: fp, secret: secretOf(deepFocused()) };
        }
        case 'settle': {
          if (a.gate !== undefined && !(await gatePassed(a.gate))) return { skipped: true };
          const r = await settle(a.quietMs, a.capMs, a.awaitInputMs);
          // Typed text not arrived yet: the observer keeps running for the engine's next read.
          if (r === null) return { textPending: true };
          const { expect } = observeRead(true);
          let value: unknown = null;
          let stale = false;
          if (a.pin && a.value) {
            const tw = (globalThis as Record<symbol, SnapshotApi | undefined>)[SNAPSHOT_KEY];
            const el = tw?.element(a.pin.doc, a.pin.id) ?? null;
            if (el) value = a.value === 'value' ? liveValue(el) : checkedOf(el);
            else stale = true;
          }
          return { ...r, value, stale, expect };
        }
        case 'find': {
          const r = find(a.spec);
          return r.ok ? { ok: true, count: r.count, identity: identity(r.el) } : r;
        }
        case 'fingerprint':
          return fingerprint();
        case 'scrollMetrics': {
          wheelReady();
          // The viewport's scroller; its client size is the viewport's without scrollbars (CSSOM).
          const se = document.scrollingElement ?? document.documentElement;
          return {
            top: scrollY,
            left: scrollX,
            height: innerHeight,
            width: innerWidth,
            maxTop: se.scrollHeight - se.clientHeight,
            maxLeft: se.scrollWidth - se.clientWidth,
          };
        }
        case 'observeStart':
          observeStart();
          return true;
        case 'observeRead':
          return observeRead(a.stop);
      }
    },
  };
}
