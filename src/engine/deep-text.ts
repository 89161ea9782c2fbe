/**
 * What the snapshot sees, for reads and waits: the rendered text of a document or element with
 * the content of its open and closed shadow roots and of its same-origin frames, and selectors
 * that descend into shadow roots (`host >>> inner`). Page functions, sent as source text; they
 * must stay self-contained (no named inner functions: the test runner's transpiler would wrap
 * them in a helper the page lacks). Cross-origin frames are read by the snapshot through their
 * own frame, never here: a read or wait of the main frame says so in its frame reports.
 */

/**
 * The rendered text (innerText) of `root` (a document: its body), then the text of every shadow
 * root under it (closed ones through the walker's init-script registry) and of every same-origin
 * frame's body, nested ones too, each on lines of its own.
 */
export function deepText(root: Document | Element): string {
  const key = Symbol.for('tabwright.closedShadowRoot');
  const start = root.nodeType === 9 ? ((root as Document).body ?? (root as Document).documentElement) : root;
  if (!start) return '';
  // biome-ignore lint/performance/useDomNodeTextContent: rendered text is what reads and waits mean.
  const parts: string[] = [(start as HTMLElement).innerText ?? start.textContent ?? ''];
  const scopes: (Element | ShadowRoot | Document)[] = [start];
  while (scopes.length) {
    const scope = scopes.pop()!;
    for (const el of Array.from(scope.querySelectorAll('*'))) {
      const view = el.ownerDocument.defaultView as unknown as Record<symbol, unknown> | null;
      const registry = view?.[key] as ((e: Element) => ShadowRoot | undefined) | undefined;
      let sr: ShadowRoot | null = el.shadowRoot;
      if (!sr && typeof registry === 'function') {
        try {
          sr = registry(el) ?? null;
        } catch {
          sr = null;
        }
      }
      const shown = !el.checkVisibility || el.checkVisibility();
      if (sr && shown) {
        for (const n of Array.from(sr.childNodes)) {
          if (n.nodeType === 3) parts.push(n.nodeValue ?? '');
          else if (n.nodeType === 1) {
            const e = n as HTMLElement;
            const tag = e.localName;
            if (tag !== 'style' && tag !== 'script' && tag !== 'template')
              // biome-ignore lint/performance/useDomNodeTextContent: rendered text, as above.
              parts.push(e.innerText ?? e.textContent ?? '');
          }
        }
        scopes.push(sr);
      }
      if ((el.localName === 'iframe' || el.localName === 'frame') && shown) {
        let doc: Document | null = null;
        try {
          doc = (el as HTMLIFrameElement).contentDocument;
        } catch {
          doc = null;
        }
        if (doc?.body) {
          // biome-ignore lint/performance/useDomNodeTextContent: rendered text, as above.
          parts.push(doc.body.innerText);
          scopes.push(doc);
        }
      }
    }
  }
  return parts.join('\n');
}

/**
 * The elements a selector matches, where ` >>> ` steps from the elements matched so far into
 * their shadow roots (open, or closed through the registry): `todo-app >>> .todo-count`.
 * Throws (as querySelectorAll does) on an invalid part.
 */
export function deepQuery(selector: string): Element[] {
  const key = Symbol.for('tabwright.closedShadowRoot');
  const registry = (globalThis as unknown as Record<symbol, unknown>)[key] as
    | ((e: Element) => ShadowRoot | undefined)
    | undefined;
  const steps = selector.split('>>>').map((s) => s.trim());
  let scopes: (Document | ShadowRoot)[] = [document];
  let found: Element[] = [];
  for (let i = 0; i < steps.length; i++) {
    found = [];
    for (const s of scopes) for (const el of Array.from(s.querySelectorAll(steps[i]!))) found.push(el);
    if (i === steps.length - 1) break;
    scopes = [];
    for (const el of found) {
      let sr: ShadowRoot | null = el.shadowRoot;
      if (!sr && typeof registry === 'function') sr = registry(el) ?? null;
      if (sr) scopes.push(sr);
    }
  }
  return Array.from(new Set(found));
}

/** `(root) => string`, for page functions built from source text. */
export const DEEP_TEXT_SOURCE = deepText.toString();
/** `(selector) => Element[]`. */
export const DEEP_QUERY_SOURCE = deepQuery.toString();
