/**
 * In-page half of the action pipeline: target resolution by selector, role or
 * text; the actionability guard; and the page fingerprint and mutation
 * observer behind receipts. Bundled by scripts/build-injected.mjs into a
 * string (see bundle.generated.ts) because page functions travel as source.
 *
 * Everything returned is plain JSON. Values of secret fields never leave the
 * page: they come back as "[redacted]".
 */

import { isElement, isHTML, isHTMLElement, isShadowRoot } from '../../semantics/node-kinds.js';
import { REDACTED, secretReason } from '../../semantics/secrets.js';

export type ProbeKind =
  | 'click'
  | 'hover'
  | 'focus'
  | 'type'
  | 'fill'
  | 'select'
  | 'check'
  | 'scroll'
  | 'drag'
  | 'files'
  /** Script-dispatched events: only identity is checked (the caller asked to skip actionability). */
  | 'synthetic';

export interface Point {
  x: number;
  y: number;
}

export interface CoverInfo {
  tag: string;
  role: string;
  name: string;
  /** The covering element itself, for the engine to turn into a ref. */
  el?: Element;
}

export type GuardReason =
  | 'detached'
  | 'hidden'
  | 'disabled'
  | 'readonly'
  | 'not_editable'
  | 'obscured'
  | 'unstable'
  | 'not_select'
  | 'not_checkable'
  | 'not_file_input';

export interface GuardResult {
  ok: boolean;
  reason?: GuardReason;
  message?: string;
  /** Where to dispatch pointer input, in this frame's viewport CSS pixels. */
  point?: Point;
  box?: [number, number, number, number];
  scrolled?: boolean;
  cover?: { tag: string; role: string; name: string };
  /** Local identity of the covering element (the engine maps it to a ref). */
  coverId?: { doc: string; id: number } | null;
}

/** The one secret rule (src/engine/semantics/secrets.ts), bundled in. */
export function isSecret(el: Element): boolean {
  return secretReason(el) !== null;
}

/** What the engine's secret registry needs of a target: why it is secret and its form name, or null. */
export function secretOf(el: Element | null): { reason: string; name: string | null } | null {
  const reason = el ? secretReason(el) : null;
  return el && reason ? { reason, name: el.getAttribute('name') } : null;
}

/** The focused element, through open shadow roots (where targetless typing goes). */
export function deepFocused(): Element | null {
  let a = document.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

/** The live value of a form control (unredacted: only compared in the page, never returned). */
export function rawValue(el: Element): string | null {
  let v: string | null = null;
  if (isHTML(el, 'input') || isHTML(el, 'textarea')) v = el.value;
  else if (isHTML(el, 'select')) v = [...el.selectedOptions].map((o) => o.label || o.text).join(', ');
  else if (isHTMLElement(el) && el.isContentEditable) v = el.innerText;
  return v;
}

/** The live value of a form control, redacted for secret fields. */
export function liveValue(el: Element): string | null {
  const v = rawValue(el);
  if (v === null) return null;
  return isSecret(el) ? (v === '' ? '' : REDACTED) : v;
}

const TEXT_INPUT_TYPES = new Set([
  '',
  'text',
  'search',
  'url',
  'tel',
  'email',
  'password',
  'number',
  'date',
  'datetime-local',
  'month',
  'time',
  'week',
]);

function isEditableControl(el: Element): boolean {
  if (isHTML(el, 'textarea')) return true;
  if (isHTML(el, 'input')) return TEXT_INPUT_TYPES.has(el.type.toLowerCase());
  return isHTMLElement(el) && el.isContentEditable;
}

function isDisabled(el: Element): boolean {
  if (el.matches(':disabled')) return true;
  for (let n: Element | null = el; n; n = n.parentElement) {
    if (n.getAttribute('aria-disabled') === 'true') return true;
  }
  return false;
}

function isReadOnly(el: Element): boolean {
  if (isHTML(el, 'input') || isHTML(el, 'textarea')) return el.readOnly;
  return el.getAttribute('aria-readonly') === 'true';
}

function isRendered(el: Element): boolean {
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || style.visibility === 'collapse') return false;
  const rects = el.getClientRects();
  for (const r of rects) if (r.width > 0 && r.height > 0) return true;
  // display:contents elements have no box of their own: look at children.
  if (style.display === 'contents') {
    for (const c of el.children) if (isRendered(c)) return true;
  }
  return false;
}

/** A visually hidden checkbox/radio stands for its label (custom controls hide the input). */
function pointerTarget(el: Element, kind: ProbeKind): Element {
  if (
    (kind === 'click' || kind === 'check') &&
    isHTML(el, 'input') &&
    (el.type === 'checkbox' || el.type === 'radio') &&
    !visiblyUsable(el)
  ) {
    const label = el.labels?.[0];
    if (label && isRendered(label)) return label;
  }
  return el;
}

function visiblyUsable(el: Element): boolean {
  if (!isRendered(el)) return false;
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return false;
  return Number(getComputedStyle(el).opacity) > 0.01;
}

/** The part of the element's first box that lies inside the viewport, or null when none does. */
function visibleCenter(el: Element): { point: Point; rect: DOMRect } | null {
  const rects = [...el.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  for (const r of rects) {
    const left = Math.max(r.left, 0);
    const top = Math.max(r.top, 0);
    const right = Math.min(r.right, vw);
    const bottom = Math.min(r.bottom, vh);
    if (right - left >= 1 && bottom - top >= 1) {
      return { point: { x: (left + right) / 2, y: (top + bottom) / 2 }, rect: r };
    }
  }
  return null;
}

function deepElementFromPoint(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/** Parent across shadow boundaries and slots. */
function composedParent(n: Node): Node | null {
  if (isElement(n) && n.assignedSlot) return n.assignedSlot;
  if (n.parentNode) return isShadowRoot(n.parentNode) ? n.parentNode.host : n.parentNode;
  return null;
}

function composedContains(ancestor: Element, node: Node): boolean {
  for (let n: Node | null = node; n; n = composedParent(n)) if (n === ancestor) return true;
  return false;
}

/** Fractions of the visible box sampled for a point that hits the target, nearest the centre first. */
const SAMPLE_FRACTIONS = [0.5, 0.3, 0.7, 0.1, 0.9];

/** A point inside the visible part of `rect` where hit testing reaches the target, or null when none does. */
function uncoveredPoint(target: Element, original: Element, rect: DOMRect): Point | null {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const left = Math.max(rect.left, 0);
  const top = Math.max(rect.top, 0);
  const width = Math.min(rect.right, vw) - left;
  const height = Math.min(rect.bottom, vh) - top;
  const points: Point[] = [];
  for (const fx of SAMPLE_FRACTIONS)
    for (const fy of SAMPLE_FRACTIONS) points.push({ x: left + width * fx, y: top + height * fy });
  const cx = left + width / 2;
  const cy = top + height / 2;
  points.sort((a, b) => Math.hypot(a.x - cx, a.y - cy) - Math.hypot(b.x - cx, b.y - cy));
  for (const p of points) {
    const hit = deepElementFromPoint(p.x, p.y);
    if (hit && hitsTarget(target, original, hit)) return p;
  }
  return null;
}

/** A click on a label activates its control: hitting the label of the target counts as a hit. */
function hitsTarget(target: Element, original: Element, hit: Element): boolean {
  if (composedContains(target, hit) || composedContains(original, hit)) return true;
  const label = hit.closest('label');
  if (label && (label as HTMLLabelElement).control === original) return true;
  return false;
}

function roleOf(el: Element): string {
  const explicit = el.getAttribute('role');
  if (explicit) return explicit.split(/\s+/)[0]!;
  const tag = el.tagName.toLowerCase();
  if (tag === 'button') return 'button';
  if (tag === 'a' && el.hasAttribute('href')) return 'link';
  if (tag === 'dialog') return 'dialog';
  if (tag === 'input') {
    const t = (el as HTMLInputElement).type;
    return t === 'checkbox'
      ? 'checkbox'
      : t === 'radio'
        ? 'radio'
        : t === 'submit' || t === 'button'
          ? 'button'
          : 'textbox';
  }
  if (tag === 'select') return 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (/^h[1-6]$/.test(tag)) return 'heading';
  if (tag === 'img') return 'img';
  return 'generic';
}

function shortName(el: Element): string {
  const aria = el.getAttribute('aria-label');
  if (aria?.trim()) return aria.trim().slice(0, 80);
  const text = ((el as HTMLElement).innerText ?? el.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.slice(0, 80);
}

/** The element a person would say covers the target: the hit, or its nearest dialog/overlay ancestor when it has no name. */
function describeCover(hit: Element): { el: Element; tag: string; role: string; name: string } {
  let el = hit;
  for (let n: Element | null = hit; n; n = n.parentElement) {
    const role = roleOf(n);
    if (role !== 'generic' && shortName(n)) {
      el = n;
      break;
    }
    const pos = getComputedStyle(n).position;
    if (pos === 'fixed' || pos === 'absolute' || role === 'dialog') {
      el = n;
      break;
    }
  }
  // A nameless mask usually belongs to a modal: name the dialog it holds.
  if (roleOf(el) === 'generic' && !el.getAttribute('aria-label')) {
    const modal = el.querySelector('dialog, [role=dialog], [role=alertdialog], [aria-modal="true"]');
    if (modal) el = modal;
  }
  return { el, tag: el.tagName.toLowerCase(), role: roleOf(el), name: shortName(el) };
}

function nextFrame(): Promise<void> {
  return new Promise((r) => requestAnimationFrame(() => r()));
}

/**
 * The guard: is the element, right now, the kind of thing this action can
 * act on, and where exactly would pointer input land? One guarded
 * scroll-into-view is done for off-screen targets.
 */
export async function guard(
  original: Element,
  kind: ProbeKind,
  scroll: boolean,
): Promise<GuardResult & { coverEl?: Element }> {
  if (!original.isConnected)
    return { ok: false, reason: 'detached', message: 'the element is no longer in the page' };
  if (kind === 'select' && !isHTML(original, 'select')) {
    return {
      ok: false,
      reason: 'not_select',
      message: `the element is a <${original.tagName.toLowerCase()}>, not a <select>`,
    };
  }
  if (
    kind === 'check' &&
    !(isHTML(original, 'input') && (original.type === 'checkbox' || original.type === 'radio')) &&
    !['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(
      original.getAttribute('role') ?? '',
    )
  ) {
    return { ok: false, reason: 'not_checkable', message: 'the element is not a checkbox, radio or switch' };
  }
  if (kind === 'files' && !(isHTML(original, 'input') && original.type === 'file')) {
    return { ok: false, reason: 'not_file_input', message: 'the element is not an <input type=file>' };
  }
  // File inputs are usually hidden behind a styled button; they take files without pointer input.
  if (kind === 'files' || kind === 'synthetic') return { ok: true };
  const target = pointerTarget(original, kind);
  if (!isRendered(target)) return { ok: false, reason: 'hidden', message: 'the element is not visible' };
  if (kind !== 'scroll' && kind !== 'hover' && isDisabled(original)) {
    return { ok: false, reason: 'disabled', message: 'the element is disabled' };
  }
  if (kind === 'type' || kind === 'fill') {
    if (!isEditableControl(original)) {
      return {
        ok: false,
        reason: 'not_editable',
        message: 'the element does not accept text (not an input, textarea or contenteditable)',
      };
    }
    if (isReadOnly(original)) return { ok: false, reason: 'readonly', message: 'the element is read-only' };
  }
  let scrolled = false;
  let vis = visibleCenter(target);
  if (!vis && scroll) {
    target.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    scrolled = true;
    vis = visibleCenter(target);
  }
  if (!vis)
    return {
      ok: false,
      reason: 'hidden',
      message: 'the element is outside the visible area and could not be scrolled into view',
    };
  // Stable: the same box over two animation frames. Without running
  // animations or transitions a box only moves through layout changes, which
  // the hit test below sees; skip the two-frame wait then (it costs ~33 ms).
  const animating = typeof document.getAnimations === 'function' && document.getAnimations().length > 0;
  if (animating || scrolled) {
    await nextFrame();
    await nextFrame();
  }
  const again = visibleCenter(target);
  if (
    !again ||
    Math.abs(again.rect.x - vis.rect.x) > 1 ||
    Math.abs(again.rect.y - vis.rect.y) > 1 ||
    Math.abs(again.rect.width - vis.rect.width) > 1 ||
    Math.abs(again.rect.height - vis.rect.height) > 1
  ) {
    return { ok: false, reason: 'unstable', message: 'the element is moving (animation or layout shift)' };
  }
  const { rect } = again;
  let { point } = again;
  const box: [number, number, number, number] = [rect.x, rect.y, rect.width, rect.height];
  if (kind === 'focus' || kind === 'scroll') return { ok: true, point, box, scrolled };
  const hit = deepElementFromPoint(point.x, point.y);
  // A partly covered target is hit where it shows (as a person would click it); fully covered, refused.
  const uncovered = hit && !hitsTarget(target, original, hit) ? uncoveredPoint(target, original, rect) : null;
  if (uncovered) point = uncovered;
  else if (hit && !hitsTarget(target, original, hit)) {
    const cover = describeCover(hit);
    return {
      ok: false,
      reason: 'obscured',
      message: `the element is covered by <${cover.tag}>${cover.name ? ` "${cover.name}"` : ''}`,
      cover: { tag: cover.tag, role: cover.role, name: cover.name },
      coverEl: cover.el,
      point,
      box,
      scrolled,
    };
  }
  return { ok: true, point, box, scrolled };
}

// ---- target resolution ---------------------------------------------------

export interface FindSpec {
  selector?: string;
  text?: string;
  exact?: boolean;
  /** 0-based among the matches, chosen by the caller; without it there must be exactly one. */
  nth?: number;
}

export type FindResult =
  | { ok: true; el: Element; count: number }
  | {
      ok: false;
      reason: 'invalid_selector' | 'no_match' | 'ambiguous' | 'nth_out_of_range';
      count: number;
      message: string;
    };

/** CSS selector: exactly one match (or the nth). Text: the innermost visible element whose text matches, exactly one. */
export function find(spec: FindSpec): FindResult {
  if (spec.selector !== undefined) {
    let list: NodeListOf<Element>;
    try {
      list = document.querySelectorAll(spec.selector);
    } catch (e) {
      return { ok: false, reason: 'invalid_selector', count: 0, message: (e as Error).message };
    }
    return pick([...list], spec.nth, 'selector');
  }
  const want = norm(spec.text ?? '');
  const matches: Element[] = [];
  const walker = document.createTreeWalker(
    document.body ?? document.documentElement,
    NodeFilter.SHOW_ELEMENT,
  );
  for (let n = walker.nextNode() as Element | null; n; n = walker.nextNode() as Element | null) {
    if (!isHTMLElement(n) || n.tagName === 'SCRIPT' || n.tagName === 'STYLE') continue;
    const t = norm(n.innerText ?? '');
    if (!(spec.exact ? t === want : t.toLowerCase().includes(want.toLowerCase()))) continue;
    if (!isRendered(n)) continue;
    matches.push(n);
  }
  // Keep the innermost: drop any match that contains another match.
  const innermost = matches.filter((m) => !matches.some((o) => o !== m && m.contains(o)));
  return pick(innermost, spec.nth, 'text');
}

/** The one match, or the caller's nth (document order); never a guess between several. */
function pick(matches: Element[], nth: number | undefined, what: string): FindResult {
  const count = matches.length;
  if (nth !== undefined) {
    const el = matches[nth];
    if (el) return { ok: true, el, count };
    return {
      ok: false,
      reason: 'nth_out_of_range',
      count,
      message: `the ${what} matched ${count} elements; there is no match number ${nth} (0-based)`,
    };
  }
  if (count === 1) return { ok: true, el: matches[0]!, count: 1 };
  return {
    ok: false,
    reason: count === 0 ? 'no_match' : 'ambiguous',
    count,
    message: `the ${what} matched ${count} elements`,
  };
}

function norm(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

// ---- observation ----------------------------------------------------------

/** FNV-1a, 32 bit: cheap and good enough to notice any change. */
function hash(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface Fingerprint {
  url: string;
  title: string;
  text: number;
  textLength: number;
  structure: number;
  forms: number;
}

/** Body text, live form values and DOM structure, each hashed (equal-length replacements change the hash). */
export function fingerprint(): Fingerprint {
  const body = document.body;
  const text = body ? body.innerText : '';
  let structure = 0x811c9dc5;
  let forms = 0x811c9dc5;
  const all = body ? body.getElementsByTagName('*') : [];
  for (const el of all) {
    // Class names count as structure: a click whose only effect is a class change (a toggle, a
    // tab's active state, a shown panel) changed the page.
    structure = hash(el.tagName, structure);
    const cls = el.getAttribute('class');
    if (cls) structure = hash(cls, structure);
    if (isHTML(el, 'input') || isHTML(el, 'textarea') || isHTML(el, 'select')) {
      const v =
        isHTML(el, 'input') && (el.type === 'checkbox' || el.type === 'radio')
          ? String(el.checked)
          : el.value;
      forms = hash(isSecret(el) ? String(v.length) : v, forms);
    }
  }
  return {
    url: location.href,
    title: document.title,
    text: hash(text),
    textLength: text.length,
    structure,
    forms,
  };
}

interface ObserverState {
  mutations: number;
  last: number;
  observer: MutationObserver;
  /** What the action set in motion that arrives outside this document: a popup, a download, a file chooser. */
  expect: SideEffects;
  /** Trusted `beforeinput` / `input` events seen (the settle of typed text waits for the first one). */
  inputs: number;
  /** Called on each trusted `beforeinput` / `input` event (the settle waiting for typed text). */
  onInput?: () => void;
  undo: () => void;
}

/**
 * Watches, during the window, for a link click or window.open that will
 * open a new page, and for a download link: those arrive after the DOM has
 * gone quiet, so the engine keeps the window open for them.
 */
/** What an action visibly started that arrives outside the observed document. */
export interface SideEffects {
  popup: boolean;
  download: boolean;
  fileChooser: boolean;
  /** A link or form that loads another document in this frame (fragment-only links do not). */
  navigation: boolean;
}

/** Whether following this URL replaces the document (not a fragment of the same one, not a script URL). */
function leavesDocument(href: string): boolean {
  try {
    const to = new URL(href, location.href);
    if (!['http:', 'https:', 'file:'].includes(to.protocol)) return false;
    const here = new URL(location.href);
    return (
      to.hash === '' || to.origin + to.pathname + to.search !== here.origin + here.pathname + here.search
    );
  } catch {
    return false;
  }
}

function watchSideEffects(state: ObserverState): () => void {
  const onClick = (e: Event) => {
    if (e.defaultPrevented) return;
    const a = (e.composedPath().find((n) => isElement(n) && n.matches('a[href], area[href]')) ??
      null) as HTMLAnchorElement | null;
    if (!a) return;
    if (a.hasAttribute('download')) state.expect.download = true;
    const target = (a.getAttribute('target') ?? '').toLowerCase();
    if (target && !['_self', '_top', '_parent'].includes(target)) state.expect.popup = true;
    else if (!a.hasAttribute('download') && leavesDocument(a.href)) state.expect.navigation = true;
  };
  addEventListener('click', onClick);
  // A form submitted in place loads a new document (or is refused by the origin policy) a step later.
  const onSubmit = (e: Event) => {
    if (e.defaultPrevented || !isHTML(e.target, 'form')) return;
    const target = (e.target.getAttribute('target') ?? '').toLowerCase();
    if (e.target.method !== 'dialog' && (!target || ['_self', '_top', '_parent'].includes(target)))
      state.expect.navigation = true;
  };
  addEventListener('submit', onSubmit);
  // Capture on the window runs before any page listener could stop the event; whether the page
  // cancelled it is known once dispatch is over (the next task).
  const onFileClick = (e: Event) => {
    const first = e.composedPath()[0];
    if (!isHTML(first, 'input') || first.type !== 'file' || first.disabled) return;
    setTimeout(() => {
      if (!e.defaultPrevented) state.expect.fileChooser = true;
    }, 0);
  };
  addEventListener('click', onFileClick, true);
  // Typed text's beforeinput and input events (trusted: not ones the page fires itself) are activity
  // like a mutation: quiet counts from them, so a render the page defers by a task still falls in the
  // window. beforeinput comes first and also when the page cancels the insertion (rich-text editors
  // apply the text themselves): then no input event follows.
  const onInput = (e: Event) => {
    if (!e.isTrusted) return;
    state.inputs++;
    state.last = performance.now();
    state.onInput?.();
  };
  addEventListener('beforeinput', onInput, true);
  addEventListener('input', onInput, true);
  const original = window.open;
  window.open = function (this: Window, ...args: Parameters<typeof window.open>) {
    state.expect.popup = true;
    return original.apply(this, args);
  } as typeof window.open;
  return () => {
    removeEventListener('click', onClick);
    removeEventListener('submit', onSubmit);
    removeEventListener('click', onFileClick, true);
    removeEventListener('beforeinput', onInput, true);
    removeEventListener('input', onInput, true);
    window.open = original;
  };
}

let observer: ObserverState | null = null;

/** Starts counting DOM mutations (attributes, children, text) in this document. */
export function observeStart(): void {
  observer?.observer.disconnect();
  observer?.undo();
  const state: ObserverState = {
    mutations: 0,
    last: performance.now(),
    observer: new MutationObserver((records) => {
      state.mutations += records.length;
      state.last = performance.now();
    }),
    expect: { popup: false, download: false, fileChooser: false, navigation: false },
    inputs: 0,
    undo: () => {},
  };
  state.undo = watchSideEffects(state);
  state.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  observer = state;
}

/**
 * Waits in the page until the DOM has had no mutation for `quietMs` (and at
 * least `quietMs` passed since observeStart), or `capMs` passed; then
 * returns the counts and a fresh fingerprint. One round trip instead of a
 * polling loop. With `awaitInputMs`, the engine sent this read ahead of typed
 * text (whose arrival in the page is not ordered with it): the quiet only
 * starts counting once the text's `beforeinput` (or `input`) event was seen,
 * or after `awaitInputMs` when none comes: then null while the window has time left
 * (the engine asks again; the text may be late), else the read as usual (text that
 * reached no editable element fires nothing).
 */
export async function settle(
  quietMs: number,
  capMs: number,
  awaitInputMs = 0,
): Promise<{
  mutations: number;
  quietMs: number;
  waitedMs: number;
  quiet: boolean;
  fingerprint: Fingerprint;
} | null> {
  const t0 = performance.now();
  // Woken by the event itself, not a poll: no lag, and no chain of nested timers (which the browser
  // clamps to 4 ms after five).
  const waiting = observer;
  if (awaitInputMs > 0 && waiting && waiting.inputs === 0) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiting.onInput = undefined;
        resolve();
      };
      const timer = setTimeout(done, awaitInputMs);
      waiting.onInput = done;
    });
    // Still no text, and time left in the window: the text is late (a busy machine), not lost. Null
    // keeps the observer running; the engine asks again.
    if (waiting.inputs === 0 && performance.now() - t0 < capMs) return null;
  }
  // One timer turn first: timers the page set before this read (a zero-delay render after an input
  // event) are due already and run before ours, whatever the browser scheduled this read ahead of them.
  await new Promise((r) => setTimeout(r, 0));
  for (;;) {
    const now = performance.now();
    const quietFor = observer ? now - observer.last : Number.POSITIVE_INFINITY;
    const waited = now - t0;
    if (quietFor >= quietMs || waited >= capMs) {
      return {
        mutations: observer?.mutations ?? 0,
        quietMs: quietFor,
        waitedMs: waited,
        quiet: quietFor >= quietMs,
        fingerprint: fingerprint(),
      };
    }
    await new Promise((r) => setTimeout(r, Math.max(1, Math.min(quietMs - quietFor, capMs - waited))));
  }
}

/** Mutations since observeStart and how long the DOM has been quiet. */
export function observeRead(stop: boolean): {
  mutations: number;
  quietMs: number;
  expect: SideEffects;
} {
  if (!observer)
    return {
      mutations: 0,
      quietMs: Number.POSITIVE_INFINITY,
      expect: { popup: false, download: false, fileChooser: false, navigation: false },
    };
  const r = {
    mutations: observer.mutations,
    quietMs: performance.now() - observer.last,
    expect: observer.expect,
  };
  if (stop) {
    observer.observer.disconnect();
    observer.undo();
    observer = null;
  }
  return r;
}
