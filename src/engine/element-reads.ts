import type { BackendFrame } from '../backends/backend.js';
import { evaluateOnRef, targetOf } from '../snapshot/refs.js';
import type { OperationOptions } from './deadline.js';
import { DEEP_QUERY_SOURCE } from './deep-text.js';
import { TabwrightError } from './errors.js';
import { frameById, mainFrame } from './frames.js';
import type { Page } from './page.js';
import {
  COLLECT_SECRETS_SOURCE,
  SECRET_FREE_COPY_SOURCE,
  SECRET_REASON_SOURCE,
} from './semantics/secret-sources.js';
import type { FoundSecrets } from './semantics/secrets.js';

/**
 * Small reads of one element (text, HTML, value, an attribute, box, state),
 * for doors whose protocol has them as verbs (the HTTP API's get_element_*
 * and is_*). By ref: the element the ref pins (stale fails loudly). By
 * selector: the first match in the main document or in a given frame, with
 * the match count; reads never act, so the first match is safe.
 */

export type ElementReadKind =
  | 'text'
  | 'html'
  | 'value'
  | 'attribute'
  | 'box'
  | 'visible'
  | 'enabled'
  | 'checked'
  | 'tag'
  /** id, className, href and name attributes. */
  | 'identity'
  /** The labels of a <select>'s options (null for other elements). */
  | 'options'
  /** Why the field is sensitive (sensitiveReason: password, credential, data-private), "" when it is not. */
  | 'sensitive';

/** Engine-internal reads, not offered to doors as verbs. `scrollable`: { up, down } of a vertically scrollable container, "" otherwise. */
type InternalReadKind = ElementReadKind | 'scrollable';

export type ReadTarget = { element_ref: string } | { selector: string; frame?: string };

export interface ElementRead {
  value: unknown;
  /** Elements the selector matched (reads by ref: 1). */
  match_count: number;
}

/**
 * `(el, arg) => value` sources, run in the page. The secret rule (semantics/secrets.ts) decides:
 * secret values read as "[redacted]", HTML leaves them out, and text and HTML reads also bring
 * back the secret values under the element, which the engine registers and scrubs from the answer.
 */
const READ_SOURCES: Record<InternalReadKind, string> = {
  text: '(el) => (el.innerText ?? el.textContent ?? "")',
  html: `(el) => (${SECRET_FREE_COPY_SOURCE})(el).innerHTML`,
  value: `(el) => {
    if (!('value' in el)) return null;
    return (${SECRET_REASON_SOURCE})(el) && el.value !== '' ? '[redacted]' : String(el.value);
  }`,
  attribute: `(el, name) => {
    const v = el.getAttribute(name);
    return String(name).toLowerCase() === 'value' && v && (${SECRET_REASON_SOURCE})(el) ? '[redacted]' : v;
  }`,
  box: '(el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }',
  visible:
    '(el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none" && Number(s.opacity) !== 0; }',
  enabled:
    '(el) => !(el.disabled === true || el.closest("fieldset:disabled") !== null || el.getAttribute("aria-disabled") === "true")',
  checked:
    '(el) => ("checked" in el && (el.type === "checkbox" || el.type === "radio") ? el.checked === true : el.getAttribute("aria-checked") === "true")',
  tag: '(el) => el.localName',
  identity:
    '(el) => ({ id: el.id || null, className: typeof el.className === "string" ? el.className || null : null, href: el.getAttribute("href"), name: el.getAttribute("name") })',
  options:
    '(el) => (el.localName === "select" && el.namespaceURI === "http://www.w3.org/1999/xhtml" ? Array.from(el.options).map((o) => o.label || o.text) : null)',
  // "" rather than null for "not sensitive": null stays "could not be read" in readElements.
  sensitive: `(el) => (${SECRET_REASON_SOURCE})(el) ?? ''`,
  scrollable: `(el) => {
    const y = getComputedStyle(el).overflowY;
    if (!/(auto|scroll|overlay)/.test(y) || el.scrollHeight <= el.clientHeight + 1) return '';
    return { up: el.scrollTop > 0, down: el.scrollTop + el.clientHeight < el.scrollHeight - 1 };
  }`,
};

/** Reads whose answer may contain secret text: they bring back the secrets under the element too. */
const COLLECTING = new Set<ElementReadKind>(['text', 'html', 'value', 'attribute', 'options']);

/** The page source of one read: `(el, arg) => { v, s }` (s: found secrets, for collecting reads). */
const READERS = Object.fromEntries(
  Object.entries(READ_SOURCES).map(([kind, src]) => [
    kind,
    COLLECTING.has(kind as ElementReadKind)
      ? `(el, arg) => ({ v: (${src})(el, arg), s: (${COLLECT_SECRETS_SOURCE})(el) })`
      : `(el, arg) => ({ v: (${src})(el, arg) })`,
  ]),
) as Record<InternalReadKind, string>;

type ReadAnswer = { v: unknown; s?: FoundSecrets };

/** Registers the secrets a read found and returns its value scrubbed of every secret the session knows. */
function answer(page: Page, a: ReadAnswer | null | undefined): unknown {
  if (!a) return null;
  const reg = page.session.secrets;
  reg.addFound(a.s);
  return reg.scrub(a.v);
}

type SelectorResult = { bad: string } | { count: number; value?: unknown };

/** `({selector, kind, arg}) => SelectorResult`, built per reader so the page gets plain source. */
const bySelector = new Map<ElementReadKind, (a: { selector: string; arg: unknown }) => SelectorResult>();
function selectorReader(kind: ElementReadKind) {
  let fn = bySelector.get(kind);
  if (!fn) {
    fn = new Function(
      'a',
      `let list;
       try { list = document.querySelectorAll(a.selector); } catch (e) { return { bad: String((e && e.message) || e) }; }
       if (list.length === 0) return { count: 0 };
       return { count: list.length, value: (${READERS[kind]})(list[0], a.arg) };`,
    ) as (a: { selector: string; arg: unknown }) => SelectorResult;
    bySelector.set(kind, fn);
  }
  return fn;
}

// `host >>> inner` counts inside shadow roots (src/engine/deep-text.ts), as waits do.
const countFunction = new Function(
  'a',
  `try { return a.selector.includes('>>>') ? (${DEEP_QUERY_SOURCE})(a.selector).length : document.querySelectorAll(a.selector).length; } catch (e) { return { bad: String((e && e.message) || e) }; }`,
) as (a: { selector: string }) => number | { bad: string };

function invalidSelector(selector: string, why: string): TabwrightError {
  return new TabwrightError(
    'invalid_selector',
    `"${selector}" is not a valid CSS selector (${why}). Fix the selector.`,
    {
      details: { field: 'selector', selector, cause: why },
    },
  );
}

export async function readElement(
  page: Page,
  target: ReadTarget,
  kind: ElementReadKind,
  arg: unknown = null,
  opts?: OperationOptions,
): Promise<ElementRead> {
  page.assertPageAllowed();
  if ('element_ref' in target) {
    const a = await page.run('page.read_element', 'read', opts, (d) =>
      evaluateOnRef<ReadAnswer, unknown>(page, target.element_ref, READERS[kind], arg, d),
    );
    return { value: answer(page, a), match_count: 1 };
  }
  const r = await page.run('page.read_element', 'read', opts, (d) => {
    const frame = target.frame ? frameById(page, target.frame) : mainFrame(page);
    return frame.evaluate(
      selectorReader(kind),
      { selector: target.selector, arg },
      Math.max(1, d.remaining()),
    );
  });
  if ('bad' in r) throw invalidSelector(target.selector, r.bad);
  if (r.count === 0) {
    throw new TabwrightError(
      'element_not_found',
      `No element matches "${target.selector}". Take a snapshot to see what the page shows, or wait for the element first.`,
      { details: { field: 'selector', selector: target.selector, match_count: 0 } },
    );
  }
  return { value: answer(page, r.value as ReadAnswer), match_count: r.count };
}

const byRefs = new Map<InternalReadKind, (a: { items: [string, number][]; arg: unknown }) => unknown[]>();
function refsReader(kind: InternalReadKind) {
  let fn = byRefs.get(kind);
  if (!fn) {
    fn = new Function(
      'a',
      `const tw = globalThis[Symbol.for('tabwright.snapshot')];
       const f = (${READERS[kind]});
       return a.items.map(([doc, id]) => { const el = tw ? tw.element(doc, id) : null; return el ? f(el, a.arg) : null; });`,
    ) as (a: { items: [string, number][]; arg: unknown }) => unknown[];
    byRefs.set(kind, fn);
  }
  return fn;
}

/**
 * The same read over many refs at once, one round trip per frame (a page's
 * worth of elements for an index listing). A stale ref reads as null here
 * rather than failing the whole list.
 */
export async function readElements(
  page: Page,
  refs: string[],
  kind: InternalReadKind,
  arg: unknown = null,
  opts?: OperationOptions,
): Promise<unknown[]> {
  page.assertPageAllowed();
  return page.run('page.read_elements', 'read', opts, async (d) => {
    const out: unknown[] = refs.map(() => null);
    const byFrame = new Map<BackendFrame, { at: number[]; items: [string, number][] }>();
    for (const [at, ref] of refs.entries()) {
      let found: ReturnType<typeof targetOf>;
      try {
        found = targetOf(page, ref);
      } catch {
        continue; // A stale ref stays null.
      }
      const g = byFrame.get(found.frame) ?? { at: [], items: [] };
      byFrame.set(found.frame, g);
      g.at.push(at);
      g.items.push([found.target.doc, found.target.id]);
    }
    for (const [frame, g] of byFrame) {
      // Each frame gets what is left short of the deadline, so frames already read are returned
      // (the rest stay null) rather than the whole list failing when time runs out.
      if (d.remaining() < 100) break;
      const values = await frame
        .evaluate(refsReader(kind), { items: g.items, arg }, Math.max(1, d.remaining() - 50))
        .catch(() => null);
      if (!values) continue;
      for (const [i, at] of g.at.entries()) out[at] = answer(page, values[i] as ReadAnswer | null);
    }
    return out;
  });
}

/** How many elements `selector` matches in the main document or in `frame`. */
export async function countMatches(
  page: Page,
  selector: string,
  opts: OperationOptions & { frame?: string } = {},
): Promise<number> {
  page.assertPageAllowed();
  const r = await page.run('page.count', 'read', opts, (d) => {
    const frame = opts.frame ? frameById(page, opts.frame) : mainFrame(page);
    return frame.evaluate(countFunction, { selector }, Math.max(1, d.remaining()));
  });
  if (typeof r !== 'number') throw invalidSelector(selector, r.bad);
  return r;
}
