/**
 * Init script installed by the Chromium backend on every context: records
 * closed shadow roots created through attachShadow in a WeakMap that only the
 * snapshot script reads (through a non-enumerable Symbol.for key), so the
 * walker can see inside closed roots without opening them for the page.
 * Declarative closed roots (<template shadowrootmode="closed">) are not seen.
 */
export function installClosedShadowRecorder(): void {
  const key = Symbol.for('tabwright.closedShadowRoot');
  const g = globalThis as unknown as Record<symbol, unknown>;
  if (g[key]) return;
  const roots = new WeakMap<Element, ShadowRoot>();
  const original = Element.prototype.attachShadow;
  const patched = {
    attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
      const root = original.call(this, init);
      if (init && init.mode === 'closed') roots.set(this, root);
      return root;
    },
  }.attachShadow;
  Object.defineProperty(patched, 'toString', { value: () => original.toString(), enumerable: false });
  Object.defineProperty(Element.prototype, 'attachShadow', {
    value: patched,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  Object.defineProperty(g, key, { value: (el: Element) => roots.get(el), enumerable: false });
}
