import { ACTION_SCRIPT } from './injected/bundle.generated.js';
import type { ElementOp, PageOp } from './injected/entry.js';

/**
 * Page functions of the action pipeline, built with `new Function` from
 * plain source so nothing a TypeScript loader adds at runtime reaches the
 * page. The action script is installed once per document; calls are small
 * and answer `{ missing: true }` when the document has no script yet (new
 * document), so the caller installs it and calls again.
 */
const KEY = "Symbol.for('tabwright.actions')";

export const installActions = new Function(
  `if (!globalThis[${KEY}]) {
     ${ACTION_SCRIPT}
     Object.defineProperty(globalThis, ${KEY}, { value: __tabwrightActions.create(), configurable: true, enumerable: false });
   }
   return true;`,
) as (arg: null) => boolean;

export const MISSING = { missing: true } as const;

export function isMissing(v: unknown): v is typeof MISSING {
  return typeof v === 'object' && v !== null && (v as { missing?: unknown }).missing === true;
}

/** Source of `(element, op) => result` for Page.evaluateRef-style element calls. */
export const ELEMENT_OP_SOURCE = `(el, a) => { const ta = globalThis[${KEY}]; return ta ? ta.elementOp(el, a) : { missing: true }; }`;

export const pageOp = new Function(
  'a',
  `const ta = globalThis[${KEY}]; return ta ? ta.pageOp(a) : { missing: true };`,
) as (a: PageOp) => unknown;

export type { ElementOp, PageOp };
