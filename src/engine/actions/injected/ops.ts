/** In-page operations that have no trusted-input equivalent, or that read state back. */
import { isHTML, isHTMLElement } from '../../semantics/node-kinds.js';
import { liveValue } from './probe.js';

export interface SelectSpec {
  values?: string[];
  labels?: string[];
  indexes?: number[];
}

/** checked state of a checkbox/radio or an ARIA checkable (null when not checkable). */
export function checkedOf(el: Element): boolean | 'mixed' | null {
  if (isHTML(el, 'input') && (el.type === 'checkbox' || el.type === 'radio')) {
    return el.indeterminate ? 'mixed' : el.checked;
  }
  const aria = el.getAttribute('aria-checked');
  if (aria === 'true') return true;
  if (aria === 'false') return false;
  if (aria === 'mixed') return 'mixed';
  return null;
}

/**
 * Focuses the element; with `caret`, also places the caret at the end of
 * its text or selects all of it (so typed text appends or replaces) without
 * a round trip per key.
 */
export function focusElement(el: Element, caret?: 'end' | 'all'): boolean {
  (el as HTMLElement).focus?.({ preventScroll: false });
  const active = (el.getRootNode() as Document | ShadowRoot).activeElement;
  if (caret && (isHTML(el, 'input') || isHTML(el, 'textarea'))) {
    try {
      if (caret === 'all') el.select();
      else el.setSelectionRange(el.value.length, el.value.length);
    } catch {
      // email/number inputs have no selection API; typing then goes where the browser puts the caret.
    }
  } else if (caret && isHTMLElement(el) && el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    if (caret === 'end') range.collapse(false);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
  }
  return active === el;
}

/**
 * Selects options the way a user choosing from the list would (the browser
 * offers no trusted input for native <select> popups in headless mode):
 * set `selected`, then fire input and change. Returns the labels now selected.
 */
export function selectOptions(
  el: Element,
  spec: SelectSpec,
): { ok: true; selected: string[]; values: string[] } | { ok: false; missing: string[]; ambiguous?: true } {
  const select = el as HTMLSelectElement;
  const options = [...select.options];
  const picked = new Set<HTMLOptionElement>();
  const missing: string[] = [];
  for (const v of spec.values ?? []) {
    const o = options.find((x) => x.value === v);
    if (o) picked.add(o);
    else missing.push(`value ${JSON.stringify(v)}`);
  }
  for (const l of spec.labels ?? []) {
    const want = l.replace(/\s+/g, ' ').trim();
    const same = options.filter((x) => (x.label || x.text).replace(/\s+/g, ' ').trim() === want);
    // A label two options share names neither: never guess (pick by index instead).
    if (same.length === 1) picked.add(same[0]!);
    else if (same.length > 1) missing.push(`label ${JSON.stringify(l)} (${same.length} options share it)`);
    else missing.push(`label ${JSON.stringify(l)}`);
  }
  for (const i of spec.indexes ?? []) {
    const o = options[i];
    if (o) picked.add(o);
    else missing.push(`index ${i}`);
  }
  if (missing.length > 0)
    return missing.some((m) => m.endsWith('share it)'))
      ? { ok: false, missing, ambiguous: true }
      : { ok: false, missing };
  for (const o of picked)
    if (o.disabled) missing.push(`disabled option ${JSON.stringify(o.label || o.text)}`);
  if (missing.length > 0) return { ok: false, missing };
  if (!select.multiple && picked.size > 1)
    return { ok: false, missing: ['several options given for a single-choice <select>'] };
  for (const o of options) o.selected = picked.has(o);
  select.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return {
    ok: true,
    selected: [...select.selectedOptions].map((o) => o.label || o.text),
    values: [...select.selectedOptions].map((o) => o.value),
  };
}

export function scrollElement(
  el: Element,
  a: { dx?: number; dy?: number; pages?: number; intoView?: boolean },
): { scrollTop: number; scrollLeft: number; value: string | null; inView: boolean } {
  if (a.intoView) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  else {
    const dy = a.pages !== undefined ? a.pages * el.clientHeight * 0.9 : (a.dy ?? 0);
    el.scrollBy({ left: a.dx ?? 0, top: dy, behavior: 'instant' });
  }
  return { scrollTop: el.scrollTop, scrollLeft: el.scrollLeft, value: liveValue(el), inView: inViewport(el) };
}

/** Some box of the element lies inside the viewport (at least one CSS pixel each way). */
function inViewport(el: Element): boolean {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  return [...el.getClientRects()].some(
    (r) =>
      Math.min(r.right, vw) - Math.max(r.left, 0) >= 1 && Math.min(r.bottom, vh) - Math.max(r.top, 0) >= 1,
  );
}

/** Untrusted clicks from script, for callers who ask for them (reference: the HTTP API's `js` mode). */
export function syntheticClick(el: Element, clickCount: number): boolean {
  const r = el.getBoundingClientRect();
  const init = {
    bubbles: true,
    cancelable: true,
    composed: true,
    clientX: r.x + r.width / 2,
    clientY: r.y + r.height / 2,
    view: window,
  };
  for (let i = 1; i <= clickCount; i++) {
    el.dispatchEvent(new MouseEvent('mousedown', { ...init, detail: i }));
    el.dispatchEvent(new MouseEvent('mouseup', { ...init, detail: i }));
    el.dispatchEvent(new MouseEvent('click', { ...init, detail: i }));
  }
  if (clickCount === 2) el.dispatchEvent(new MouseEvent('dblclick', { ...init, detail: 2 }));
  return el.isConnected;
}
