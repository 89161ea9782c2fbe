import { isHTML } from '../../engine/semantics/node-kinds.js';

/**
 * Init script, beside the closed-shadow recorder: remembers which <link rel=stylesheet> elements
 * failed to load (blocked by the origin policy, unreachable, an error status). Such a sheet has no
 * rules, but when it is cross-origin its cssRules cannot be read, so without this record the walker
 * cannot tell it from a loaded cross-origin sheet and reads ::before/::after of every element.
 * A later load of the same element (a new href) clears its mark. The mark alone is not enough:
 * Chromium also fires `error` when a loaded sheet's @import fails, so the walker skips a sheet only
 * when the engine's network log also saw the sheet's own request fail (WalkOptions.failedSheets).
 */
export function installFailedSheetRecorder(): void {
  const key = Symbol.for('tabwright.failedStylesheet');
  const g = globalThis as unknown as Record<symbol, unknown>;
  if (g[key] || typeof addEventListener !== 'function') return;
  const failed = new WeakSet<Element>();
  const mark = (e: Event) => {
    const t = e.target;
    // A link made in another realm (an iframe's document) and moved here counts too.
    if (!isHTML(t, 'link')) return;
    if (e.type === 'error') failed.add(t);
    else failed.delete(t);
  };
  // Load and error do not bubble; the capture phase on the window sees them for every element.
  addEventListener('error', mark, true);
  addEventListener('load', mark, true);
  Object.defineProperty(g, key, { value: (el: Element) => failed.has(el), enumerable: false });
}
