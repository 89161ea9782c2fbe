import type { SnapshotNode } from '../../snapshot/model.js';

/**
 * DOM modals of a page model: elements with role dialog or alertdialog (native <dialog>, aria-modal
 * layers, framework modals that declare their role), in document order, with their buttons. A modal
 * that is itself covered (by a later one) is not blocking.
 */

/** Labels of buttons that close a modal without submitting it (English and Chinese, as pages write them). */
const CLOSE_LABELS = /^(×|✕|x|close|cancel|dismiss|got it|ok|accept|关闭|取消|知道了|我知道了|确定|好的)$/i;

export function isCloseLabel(label: string): boolean {
  return CLOSE_LABELS.test(label.trim());
}

/** A button name that says close somewhere in it ("Close dialog", "关闭窗口"): the fallback after isCloseLabel. */
export function mentionsClose(label: string): boolean {
  return /close|关闭/i.test(label);
}

export interface ModalButton {
  /** Its accessible name, or its visible text. */
  name: string;
  element_ref?: string;
  actionable: boolean;
}

export interface Modal {
  role: 'dialog' | 'alertdialog';
  /** The modal's accessible name. */
  title: string;
  /** Its visible text on one line (at most 300 characters). */
  text: string;
  buttons: ModalButton[];
  /** Not covered by anything: the modal the user faces. */
  blocking: boolean;
  /** Whether one of its buttons closes it without submitting (×, Close, Cancel, 知道了, …). */
  has_close: boolean;
  /** The engine frame id when the modal is inside an iframe. */
  frame?: string;
  /** Its element ref, when the modal element has one. */
  element_ref?: string;
  /** How it was recognised: its role (default), or as a layer (modal-layers.ts). */
  matched_by?: 'role' | 'aria-modal' | 'class' | 'geometry';
  /** Layers: a point on the mask around the content (closing by the mask). */
  mask_point?: { x: number; y: number };
}

function modalText(n: SnapshotNode): string {
  if (n.role === 'text') return n.text ?? '';
  const own = [n.children.length === 0 ? n.name : '', n.text ?? ''].filter(Boolean).join(' ');
  return [own, ...n.children.map(modalText)].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

export function findModals(root: SnapshotNode): Modal[] {
  const out: Modal[] = [];
  const walk = (n: SnapshotNode) => {
    if (n.role === 'dialog' || n.role === 'alertdialog') {
      const buttons: ModalButton[] = [];
      const collect = (c: SnapshotNode) => {
        if ((c.role === 'button' || (c.clickable && c.tag !== 'div')) && c.element_ref)
          buttons.push({
            name: c.name || modalText(c),
            element_ref: c.element_ref,
            actionable: c.actionable,
          });
        for (const k of c.children) collect(k);
      };
      collect(n);
      out.push({
        role: n.role,
        title: n.name,
        text: modalText(n).slice(0, 300),
        buttons,
        blocking: !n.covered,
        has_close: buttons.some((b) => isCloseLabel(b.name)),
        ...(n.frame ? { frame: n.frame } : {}),
        ...(n.element_ref ? { element_ref: n.element_ref } : {}),
      });
    }
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

/** The modal the user faces: the last blocking one, else the last one. */
export function topModal(modals: readonly Modal[]): Modal | undefined {
  return modals.filter((m) => m.blocking).pop() ?? modals[modals.length - 1];
}

/**
 * Which modal to close: the first whose title or text contains `title`; `first`; else the top one.
 * Which button: the one named `button` (exactly, else containing it); else a closing one.
 */
export function pickModalButton(
  modals: readonly Modal[],
  want: { title?: string; which?: 'top' | 'first'; button?: string },
): { modal?: Modal; button?: ModalButton } {
  let modal: Modal | undefined;
  if (want.title) modal = modals.find((m) => m.title.includes(want.title!) || m.text.includes(want.title!));
  else if (want.which === 'first') modal = modals[0];
  else modal = topModal(modals);
  if (!modal) return {};
  const button = want.button
    ? (modal.buttons.find((b) => b.name.trim() === want.button) ??
      modal.buttons.find((b) => b.name.includes(want.button!)))
    : (modal.buttons.find((b) => isCloseLabel(b.name)) ?? modal.buttons.find((b) => mentionsClose(b.name)));
  return { modal, button };
}
