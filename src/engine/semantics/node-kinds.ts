/**
 * Runs in the page: what kind of node something is, asked in a way that holds for every realm.
 *
 * A node made in another realm (an iframe's document, then moved into this one with append or
 * adoptNode, as ad scripts and widget libraries do) keeps that realm's prototypes, so
 * `instanceof HTMLElement` against this window is false for it, and code asking that way skips or
 * misjudges it. nodeType, namespaceURI and localName are the same in every realm. For a node of this
 * realm each test answers exactly what the instanceof it replaces answered.
 *
 * Bundled into both injected scripts (the snapshot walker and the action probe) by
 * scripts/build-injected.mjs, as secrets.ts is. Page functions sent as source text (pick.ts,
 * element-reads.ts, content.ts, refuse.ts, secrets.ts) cannot import it and write the same tests inline.
 */

const HTML_NS = 'http://www.w3.org/1999/xhtml';
const SVG_NS = 'http://www.w3.org/2000/svg';

type Maybe = Node | EventTarget | null | undefined;

/** `n instanceof Element`, in any realm. */
export function isElement(n: Maybe): n is Element {
  return !!n && (n as Node).nodeType === 1;
}

/** `n instanceof HTMLElement`, in any realm: every element in the HTML namespace is one. */
export function isHTMLElement(n: Maybe): n is HTMLElement {
  return isElement(n) && n.namespaceURI === HTML_NS;
}

/** `n instanceof SVGElement`, in any realm. */
export function isSVGElement(n: Maybe): n is SVGElement {
  return isElement(n) && n.namespaceURI === SVG_NS;
}

/** `n instanceof ShadowRoot`, in any realm: the one kind of document fragment with a host. */
export function isShadowRoot(n: Maybe): n is ShadowRoot {
  return !!n && (n as Node).nodeType === 11 && 'host' in n;
}

/** `n instanceof HTMLInputElement` (and the like, by tag name), in any realm. */
export function isHTML<K extends keyof HTMLElementTagNameMap>(
  n: Maybe,
  tag: K,
): n is HTMLElementTagNameMap[K] {
  return isHTMLElement(n) && n.localName === tag;
}
