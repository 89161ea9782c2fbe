import type { SnapshotNode } from '../../snapshot/model.js';

/**
 * Form fields of a page model: inputs, textareas, selects, and checkbox / radio / switch controls
 * that are not native inputs, with their label, type, value and states. Values come from the model,
 * where secret fields are already redacted; a password is reported as "[redacted]" whatever it holds.
 */

const FIELD_TAGS = new Set(['input', 'textarea', 'select']);
const TOGGLE_ROLES = new Set(['checkbox', 'radio', 'switch']);

/** The DOM attributes form fields are read with (snapshot option `attributes`). */
export const FIELD_ATTRIBUTES = ['type', 'name', 'placeholder'];

export interface FormField {
  /** The accessible name (label, aria-label, …). */
  label?: string;
  /** The element id, when the field has one. */
  id?: string;
  name?: string;
  /** The input type ("text", "password", "checkbox", …), or the tag for textarea / select. */
  type: string;
  /** The live value; absent for checkboxes and radios (see checked). */
  value?: string;
  checked?: boolean;
  disabled: boolean;
  readonly: boolean;
  required: boolean;
  invalid: boolean;
  placeholder?: string;
  element_ref?: string;
  frame?: string;
}

function* fieldNodes(n: SnapshotNode): Generator<SnapshotNode> {
  if (FIELD_TAGS.has(n.tag) || (n.interactive && TOGGLE_ROLES.has(n.role))) {
    yield n;
    return;
  }
  for (const c of n.children) yield* fieldNodes(c);
}

export function formFields(root: SnapshotNode): FormField[] {
  const out: FormField[] = [];
  for (const n of fieldNodes(root)) {
    const a = n.attrs ?? {};
    const type = (a.type ?? (n.tag === 'input' ? 'text' : n.tag)).toLowerCase();
    const st = n.states ?? {};
    const toggle = st.checked !== undefined;
    out.push({
      label: n.name || undefined,
      id: n.selector_hint?.startsWith('#') ? n.selector_hint.slice(1) : undefined,
      name: a.name,
      type,
      value: type === 'password' && n.value ? '[redacted]' : (n.value ?? (toggle ? undefined : '')),
      checked: toggle ? st.checked === true : undefined,
      disabled: st.disabled === true,
      readonly: st.readonly === true,
      required: st.required === true,
      invalid: st.invalid === true,
      placeholder: a.placeholder,
      element_ref: n.element_ref,
      frame: n.frame,
    });
  }
  return out;
}
