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

/** Installs the page script once per document (idempotent). */
const INSTALL = `
  const K = ${KEY};
  let tw = globalThis[K];
  if (!tw) {
    ${PAGE_SCRIPT}
    tw = __tabwrightSnapshot.create();
    Object.defineProperty(globalThis, K, { value: tw, configurable: true, enumerable: false });
  }
`;

/**
 * Installs the page script in the frame's document if it is not there yet. Its source is the same
 * text in every document and takes no argument: the renderer's V8 keys its compilation cache by
 * the source text, so it compiles the page script once and reuses that in every later document of
 * the process. A source with the call's argument in it (as the walk's options) differs from one
 * document to the next and was parsed and compiled anew each time: the first snapshot of a
 * document took about 13 % longer at the median (docs/benchmarks.md). So the argument always
 * travels in a call of its own, through the small stubs below.
 */
export const installPageScript = new Function('_', `${INSTALL}\nreturn true;`) as (arg: null) => boolean;

/** One call of the page API, or null when the document has no page script yet. */
export const pageCallInstalled = new Function(
  'arg',
  `const tw = globalThis[${KEY}]; return tw ? tw.call(arg) : null;`,
) as (arg: PageCall) => unknown;

/**
 * Evaluates a page function that reads the page script (which gives elements their identity) and
 * answers `{ missing: true }` (or what `isMissing` says) without it: installs the script and asks
 * again, twice at most (a navigation between the install and the call replaces the document).
 * undefined: the script was still missing after the installs.
 */
export async function evaluateWithPageScript<A, R>(
  frame: BackendFrame,
  fn: (arg: A) => R,
  arg: A,
  d: Deadline,
  isMissing: (res: R) => boolean = (res) => (res as { missing?: boolean } | null)?.missing === true,
): Promise<Exclude<R, null> | undefined> {
  let res = await frame.evaluate(fn, arg, Math.max(1, d.remaining()));
  for (let attempt = 0; isMissing(res) && attempt < 2; attempt++) {
    await frame.evaluate(installPageScript, null, Math.max(1, d.remaining()));
    res = await frame.evaluate(fn, arg, Math.max(1, d.remaining()));
  }
  return isMissing(res) ? undefined : (res as Exclude<R, null>);
}

/**
 * A call whose result comes back as one JSON string (Playwright's value serializer walks large
 * object trees slowly, a string crosses in one piece), or null when the document has no page
 * script yet: then install it (installPageScript) and call again.
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
