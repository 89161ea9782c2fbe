import type { BackendFrame } from '../../backends/backend.js';
import { evaluateWithPageScript } from '../../snapshot/page-functions.js';
import { registryOf } from '../../snapshot/refs.js';
import type { Deadline } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import type { Page } from '../page.js';
import { SECRET_FREE_COPY_SOURCE, SECRET_REASON_SOURCE } from './secret-sources.js';

/**
 * Picking the element a person means when a selector or a text matches several: visible before
 * hidden, an exact text before a containing one, a clickable element before plain text, the one
 * whose centre receives the pointer before a covered one. The choice is reported, never hidden;
 * only a tie among equally good visible candidates is refused (an agent must not guess), with
 * the candidates listed. Zero matches are element_not_found with reason no_match.
 */

export interface PickSpec {
  selector?: string;
  text?: string;
  /** Text only: the element's whole text must equal `text` (case and spacing aside). */
  exact?: boolean;
}

export interface PickCandidate {
  /** Position among the matches, in document order. */
  index: number;
  tag: string;
  text: string;
  visible: boolean;
  /** Text only: the matching text equals the asked text. */
  exact?: boolean;
  clickable: boolean;
  /** The centre point receives the pointer (null: outside the viewport, not known). */
  hit: boolean | null;
}

export interface Picked {
  element_ref: string;
  frame: string;
  /** Elements the selector / text matched. */
  matched: number;
  visible_matched: number;
  chosen_index: number;
  /** Why this one, in a few words ("the only visible match", "exact text", …). */
  reason: string;
  tag: string;
  text: string;
  outer_html: string;
  /** Text only: exact or contains. */
  text_match?: 'exact' | 'contains';
  /** The chosen element runs a CSS animation or transition now (it may be moving). */
  animated: boolean;
  candidates: PickCandidate[];
}

interface PageAnswer {
  missing?: boolean;
  invalid?: string;
  candidates: (PickCandidate & { identity?: { doc: string; id: number } | null })[];
  chosen: number;
  tie: boolean;
  reason: string;
  outerHtml: string;
  animated: boolean;
}

/* The page function, as source text: page code must not depend on helpers a bundler injects. */
const PICK_SOURCE = `
const tw = globalThis[Symbol.for('tabwright.snapshot')];
if (!tw) return { missing: true };
const secretReason = ${SECRET_REASON_SOURCE};
const secretFreeCopy = ${SECRET_FREE_COPY_SOURCE};
const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim();
const visible = (el) => {
  const st = getComputedStyle(el);
  if (st.visibility === 'hidden' || st.visibility === 'collapse' || Number(st.opacity) === 0) return false;
  for (const r of el.getClientRects()) if (r.width > 0 && r.height > 0) return true;
  if (st.display === 'contents') for (const c of el.children) if (visible(c)) return true;
  return false;
};
const CLICKABLE = 'a[href],button,input:not([type=hidden]),select,textarea,summary,label,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=checkbox],[role=radio],[role=switch],[onclick],[tabindex]:not([tabindex="-1"])';
const clickable = (el) => el.matches(CLICKABLE) || getComputedStyle(el).cursor === 'pointer';
const hit = (el) => {
  const r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return null;
  const top = document.elementFromPoint(x, y);
  return !!top && (top === el || el.contains(top));
};
let els;
const want = norm(spec.text).toLowerCase();
const exactOf = new Map();
if (spec.selector !== undefined) {
  try { els = [...document.querySelectorAll(spec.selector)]; } catch (e) { return { invalid: String(e && e.message || e), candidates: [] }; }
} else {
  const matches = [];
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    // By namespace, not instanceof HTMLElement: elements made in another realm (an iframe's) count too.
    if (n.namespaceURI !== 'http://www.w3.org/1999/xhtml' || n.tagName === 'SCRIPT' || n.tagName === 'STYLE') continue;
    const t = norm(n.innerText).toLowerCase();
    if (spec.exact ? t === want : t.includes(want)) matches.push(n);
  }
  const innermost = matches.filter((m) => !matches.some((o) => o !== m && m.contains(o)));
  els = [];
  for (const m of innermost) {
    // The element a person clicks: the nearest clickable ancestor of the text, else the text's element.
    const target = m.closest(CLICKABLE) || m;
    const exact = norm(m.innerText).toLowerCase() === want || norm(target.innerText).toLowerCase() === want;
    if (!els.includes(target)) els.push(target);
    exactOf.set(target, (exactOf.get(target) || false) || exact);
  }
}
const isText = spec.selector === undefined;
const candidates = els.map((el, index) => {
  const v = visible(el);
  return {
    index, tag: el.tagName.toLowerCase(), text: secretReason(el) ? '[redacted]' : norm(el.innerText || el.value || '').slice(0, 80),
    visible: v, exact: isText ? exactOf.get(el) === true : undefined,
    clickable: clickable(el), hit: v ? hit(el) : false, el,
  };
});
const hitScore = (c) => (c.hit === true ? 2 : c.hit === null ? 1 : 0);
const key = (c) => [c.visible ? 1 : 0, isText && c.exact ? 1 : 0, isText && c.clickable ? 1 : 0, hitScore(c)];
const better = (a, b) => { const ka = key(a), kb = key(b); for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i]; return 0; };
let chosen = 0;
for (let i = 1; i < candidates.length; i++) if (better(candidates[i], candidates[chosen]) > 0) chosen = i;
const best = candidates[chosen];
const tie = !!best && best.visible && candidates.some((c, i) => i !== chosen && better(c, best) === 0);
let reason = '';
if (best) {
  const vis = candidates.filter((c) => c.visible).length;
  if (candidates.length === 1) reason = 'only_match';
  else if (!best.visible) reason = 'none_visible';
  else if (vis === 1) reason = 'only_visible';
  else if (isText && best.exact && candidates.filter((c) => c.visible && c.exact).length === 1) reason = 'exact_text';
  else if (isText && best.clickable && candidates.filter((c) => c.visible && c.clickable && c.exact === best.exact).length === 1) reason = 'clickable';
  else reason = 'receives_pointer';
}
const animated = !!best && typeof best.el.getAnimations === 'function' &&
  best.el.getAnimations().some((a) => a.playState === 'running');
// The one secret rule: a secret field's value never leaves the page in the text or the HTML.
const outerHtml = best ? secretFreeCopy(best.el).outerHTML.slice(0, 300) : '';
return {
  candidates: candidates.map(({ el, ...c }, i) => ({ ...c, identity: i === chosen ? tw.call({ op: 'idOf' }, el) : undefined })),
  chosen, tie, reason, outerHtml, animated,
};
`;

const pickFunction = new Function('spec', PICK_SOURCE) as (spec: PickSpec) => PageAnswer;

async function ask(frame: BackendFrame, spec: PickSpec, d: Deadline): Promise<PageAnswer> {
  const res = await evaluateWithPageScript(frame, pickFunction, spec, d);
  if (res) return res;
  throw new TabwrightError('internal_error', 'The page script could not be installed. Retry.');
}

function what(spec: PickSpec): string {
  return spec.selector !== undefined
    ? `selector ${JSON.stringify(spec.selector)}`
    : `text ${JSON.stringify(spec.text)}`;
}

export async function pickElement(
  page: Page,
  frame: BackendFrame,
  spec: PickSpec,
  d: Deadline,
): Promise<Picked> {
  const a = await ask(frame, spec, d);
  if (a.invalid !== undefined)
    throw new TabwrightError('invalid_selector', `The selector is not valid CSS (${a.invalid}). Fix it.`, {
      details: { selector: spec.selector },
    });
  const candidates = a.candidates.map(({ identity: _i, ...c }) => c);
  if (a.candidates.length === 0)
    throw new TabwrightError('element_not_found', `Nothing matches ${what(spec)}.`, {
      details: { reason: 'no_match', match_count: 0 },
    });
  if (a.tie) {
    const best = candidates[a.chosen]!;
    const tied = candidates.filter(
      (c) => c.visible && c.exact === best.exact && c.clickable === best.clickable && c.hit === best.hit,
    );
    throw new TabwrightError(
      'element_not_found',
      `${what(spec)} matches ${tied.length} equally good visible elements; name one (nth, a narrower selector, or its ref).`,
      {
        details: {
          reason: 'ambiguous',
          match_count: candidates.length,
          tied: tied.length,
          candidates: tied.slice(0, 10),
        },
      },
    );
  }
  const chosen = a.candidates[a.chosen]!;
  if (!chosen.identity)
    throw new TabwrightError('internal_error', 'The chosen element has no identity. Retry the action.');
  const ref = registryOf(page.session).refFor(page.id, frame.id, chosen.identity.doc, chosen.identity.id);
  return {
    element_ref: ref,
    frame: frame.id,
    matched: candidates.length,
    visible_matched: candidates.filter((c) => c.visible).length,
    chosen_index: a.chosen,
    reason: a.reason,
    tag: chosen.tag,
    text: chosen.text,
    outer_html: a.outerHtml,
    animated: a.animated,
    ...(spec.text !== undefined
      ? { text_match: chosen.exact ? ('exact' as const) : ('contains' as const) }
      : {}),
    candidates: candidates.slice(0, 10),
  };
}
