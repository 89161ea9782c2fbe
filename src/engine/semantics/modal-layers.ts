import type { BackendFrame } from '../../backends/backend.js';
import { evaluateWithPageScript } from '../../snapshot/page-functions.js';
import { registryOf } from '../../snapshot/refs.js';
import type { Deadline } from '../deadline.js';
import type { Page } from '../page.js';
import { isCloseLabel, type Modal, mentionsClose } from './modals.js';

/**
 * Modal layers the way a person sees them, for pages whose modals declare no role (ant-design's
 * `.ant-modal-wrap`, element-ui's `.el-dialog__wrapper`, layui, bootstrap without ARIA …): a fixed
 * layer that covers most of the viewport above the rest, an `aria-modal` element, or a fixed /
 * absolute layer whose class names it a modal, dialog, drawer or popup. Layers inside or around a
 * role=dialog element are left to the role scan (findModals), so nothing is counted twice.
 * Each layer's mask (a sibling backdrop) is reported so a modal without a close button can be
 * closed by clicking it.
 */

interface RawLayer {
  title: string;
  text: string;
  buttons: { name: string; identity: { doc: string; id: number } | null }[];
  blocking: boolean;
  identity: { doc: string; id: number } | null;
  /** A point on the layer outside its content box (the mask area), when there is one. */
  maskPoint: { x: number; y: number } | null;
  matchedBy: 'aria-modal' | 'class' | 'geometry';
}

/* Page function source (no bundler helpers in page code). */
const LAYERS_SOURCE = `
const tw = globalThis[Symbol.for('tabwright.snapshot')];
if (!tw) return { missing: true };
const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim();
const vw = innerWidth, vh = innerHeight;
const MODALISH = /(^|[\\s_-])(modal|dialog|drawer|popup|popover-modal|layer|lightbox)([\\s_-]|$)/i;
const MASKISH = /(^|[\\s_-])(mask|backdrop|overlay|shade|dimmer)([\\s_-]|$)/i;
const ROLE_DIALOG = 'dialog[open],[role=dialog],[role=alertdialog]';
const shown = (el) => {
  const st = getComputedStyle(el);
  if (st.display === 'none' || st.visibility === 'hidden' || Number(st.opacity) === 0) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};
const cls = (el) => (typeof el.className === 'string' ? el.className : el.getAttribute('class') || '');
const found = [];
for (const el of document.body ? document.body.querySelectorAll('*') : []) {
  if (el.closest(ROLE_DIALOG) || el.querySelector(ROLE_DIALOG)) continue;
  const st = getComputedStyle(el);
  const aria = el.getAttribute('aria-modal') === 'true';
  if (!aria && st.position !== 'fixed' && st.position !== 'absolute') continue;
  if (!shown(el)) continue;
  const text = norm(el.innerText);
  if (text === '') continue;
  const r = el.getBoundingClientRect();
  const cover = (Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0))) / (vw * vh);
  const z = Number.parseInt(st.zIndex, 10) || 0;
  let matchedBy = null;
  if (aria) matchedBy = 'aria-modal';
  else if (MODALISH.test(cls(el)) && !MASKISH.test(cls(el)) && (st.position === 'fixed' || z > 0)) matchedBy = 'class';
  else if (st.position === 'fixed' && cover >= 0.5 && z > 0) matchedBy = 'geometry';
  if (matchedBy) found.push({ el, matchedBy, r });
}
const outer = found.filter((f) => !found.some((o) => o !== f && o.el.contains(f.el)));
const layers = outer.map(({ el, matchedBy, r }) => {
  const heading = el.querySelector('[class*=title i],h1,h2,h3,h4,[class*=header i]');
  const buttons = [];
  for (const b of el.querySelectorAll('button,a[href],[role=button],input[type=button],input[type=submit],[class*=close i]')) {
    if (!shown(b)) continue;
    if (buttons.some((x) => x.el.contains(b))) continue;
    const name = norm(b.getAttribute('aria-label') || b.innerText || b.value || b.getAttribute('title') || '');
    buttons.push({ el: b, name });
  }
  // The content box: the largest shown child that is smaller than the layer (antd: .ant-modal inside the wrap).
  let content = null;
  for (const c of el.querySelectorAll('*')) {
    const cr = c.getBoundingClientRect();
    if (!shown(c) || cr.width * cr.height >= r.width * r.height * 0.9) continue;
    if (!content || cr.width * cr.height > content.width * content.height) content = cr;
  }
  let maskPoint = null;
  if (content && r.top < content.top - 8) maskPoint = { x: r.left + r.width / 2, y: Math.max(r.top, 0) + 4 };
  const cx = content ? content.left + content.width / 2 : r.left + r.width / 2;
  const cy = content ? content.top + content.height / 2 : r.top + r.height / 2;
  const top = cx >= 0 && cy >= 0 && cx < vw && cy < vh ? document.elementFromPoint(cx, cy) : null;
  return {
    title: heading ? norm(heading.innerText).slice(0, 120) : '',
    text: norm(el.innerText).slice(0, 300),
    buttons: buttons.map((b) => ({ name: b.name, identity: tw.call({ op: 'idOf' }, b.el) })),
    blocking: !!top && el.contains(top),
    identity: tw.call({ op: 'idOf' }, el),
    maskPoint,
    matchedBy,
  };
});
return { layers };
`;

const layersFunction = new Function(LAYERS_SOURCE) as (_: undefined) => {
  missing?: boolean;
  layers?: RawLayer[];
};

async function readLayers(frame: BackendFrame, d: Deadline): Promise<RawLayer[]> {
  return (await evaluateWithPageScript(frame, layersFunction, undefined, d))?.layers ?? [];
}

/** Modal layers of the page's main frame, as Modals (`matched_by` says how each was recognised). */
export async function modalLayers(page: Page, d: Deadline): Promise<Modal[]> {
  const frame = page.backend.frames()[0];
  if (!frame) return [];
  const registry = registryOf(page.session);
  const ref = (i: { doc: string; id: number } | null) =>
    i ? registry.refFor(page.id, frame.id, i.doc, i.id) : undefined;
  return (await readLayers(frame, d)).map((l) => {
    const buttons = l.buttons.map((b) => ({ name: b.name, element_ref: ref(b.identity), actionable: true }));
    return {
      role: 'dialog' as const,
      title: l.title,
      text: l.text,
      buttons,
      blocking: l.blocking,
      has_close: buttons.some((b) => isCloseLabel(b.name) || mentionsClose(b.name)),
      element_ref: ref(l.identity),
      matched_by: l.matchedBy,
      ...(l.maskPoint ? { mask_point: l.maskPoint } : {}),
    };
  });
}
