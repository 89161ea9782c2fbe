import type { BackendFrame } from '../backends/backend.js';
import type { Deadline } from '../engine/deadline.js';
import { PAGE_SCRIPT } from './injected/bundle.generated.js';
import type { PageCall } from './injected/types.js';

/**
 * Functions evaluated in the page. They are built with `new Function` from
 * plain source text so that nothing tsx/esbuild adds at runtime (such as
 * `__name`) ends up in what Function.toString sends to the page.
 */

const KEY = "Symbol.for('tabwright.snapshot')";

/** Installs the page script once per document (idempotent) and returns it. */
const INSTALL = `
  const K = ${KEY};
  let tw = globalThis[K];
  if (!tw) {
    ${PAGE_SCRIPT}
    tw = __tabwrightSnapshot.create();
    Object.defineProperty(globalThis, K, { value: tw, configurable: true, enumerable: false });
  }
`;

/** Runs one call of the page API (installing it first when needed). */
export const pageCall = new Function('arg', `${INSTALL}\nreturn tw.call(arg);`) as (arg: PageCall) => unknown;

/**
 * Evaluates a page function that reads the page script (which gives elements their identity) and
 * answers `{ missing: true }` without it: installs the script and asks once more. undefined: the
 * script is still missing after the install.
 */
export async function evaluateWithPageScript<A, R extends { missing?: boolean }>(
  frame: BackendFrame,
  fn: (arg: A) => R,
  arg: A,
  d: Deadline,
): Promise<R | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await frame.evaluate(fn, arg, Math.max(1, d.remaining()));
    if (!res.missing) return res;
    await frame.evaluate(pageCall, { op: 'check', doc: '', id: 0 }, Math.max(1, d.remaining()));
  }
  return undefined;
}

/**
 * Same, but the result comes back as one JSON string: Playwright's value
 * serializer walks large object trees slowly, a string crosses in one piece.
 */
export const pageCallJson = new Function('arg', `${INSTALL}\nreturn JSON.stringify(tw.call(arg));`) as (
  arg: PageCall,
) => string;

/**
 * The call without the installer: a few hundred bytes to send and compile
 * instead of the whole script. Returns null when the script is not installed
 * in this document yet (then use pageCallJson).
 */
export const pageCallJsonInstalled = new Function(
  'arg',
  `const tw = globalThis[${KEY}]; return tw ? JSON.stringify(tw.call(arg)) : null;`,
) as (arg: PageCall) => string | null;

/** True when the frame's document shows nothing (no elements, no text) in its body. */
export const blankProbe = new Function(
  '_',
  "const b = document.body; return !b || (b.childElementCount === 0 && !(b.textContent || '').trim());",
) as (arg: null) => boolean;

/** In the parent frame, on the iframe element: its document id and local id. */
export const ownerIdentity = new Function(
  'el',
  `const tw = globalThis[${KEY}]; return tw ? tw.call({ op: 'idOf' }, el) : null;`,
) as (el: unknown, arg: null) => { doc: string; id: number } | null;

/** Cache of wrappers per function source, so repeated evaluations reuse one function. */
const refWrappers = new Map<string, (arg: RefCallArg) => RefCallResult>();

export interface RefCallArg {
  doc: string;
  id: number;
  arg: unknown;
}
export type RefCallResult = { stale: true } | { stale: false; value: unknown };

/**
 * Wraps `fnSource` (text of a function `(element, arg) => result`) into a page
 * function that looks the element up by identity and reports a stale ref
 * instead of touching anything else.
 */
export function refFunction(fnSource: string): (arg: RefCallArg) => RefCallResult {
  let w = refWrappers.get(fnSource);
  if (!w) {
    w = new Function(
      'a',
      `const tw = globalThis[${KEY}];
       const el = tw ? tw.element(a.doc, a.id) : null;
       if (!el) return { stale: true };
       const f = (${fnSource});
       return Promise.resolve(f(el, a.arg)).then((value) => ({ stale: false, value }));`,
    ) as (arg: RefCallArg) => RefCallResult;
    if (refWrappers.size > 200) refWrappers.clear();
    refWrappers.set(fnSource, w);
  }
  return w;
}
