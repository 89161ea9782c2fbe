/**
 * The normalized page model: one per snapshot, consumed by every rendering
 * (agent text, diffs, and the doors' own forms: jcode.page_snapshot.v1 in the
 * provider door, the HTTP door's indexed browser state, the pipe's AOM list).
 */

export interface NodeStates {
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  pressed?: boolean | 'mixed';
  disabled?: boolean;
  readonly?: boolean;
  required?: boolean;
  invalid?: boolean;
  focused?: boolean;
  level?: number;
}

export interface SnapshotNode {
  node_id: string;
  /** ARIA role (explicit or implicit); 'text' for a text run; 'generic' for a promoted clickable. */
  role: string;
  /** Accessible name (accname, approximated). */
  name: string;
  /** Visible text not already carried by the name. */
  text?: string;
  /** Live value (DOM property); secrets are '[redacted]'. */
  value?: string;
  states?: NodeStates;
  element_ref?: string;
  /** Interactive: a control, link, promoted clickable or a label standing for a hidden control. */
  interactive: boolean;
  /** Can be acted on now: rendered, enabled, not covered by a modal or overlay. */
  actionable: boolean;
  /** Covered at its centre by another element (modal, overlay). */
  covered?: boolean;
  /** Non-semantic clickable promoted because of cursor:pointer, onclick or tabindex. */
  clickable?: boolean;
  /** HTML tag ('#text' for text runs). */
  tag: string;
  /** The DOM attributes the snapshot was asked for (SnapshotOptions.attributes), on interactive nodes. */
  attrs?: Record<string, string>;
  /** Frame id for nodes inside an iframe (absent in the main frame). */
  frame?: string;
  /** Link target, only with include_urls. */
  url?: string;
  /** x, y, width, height in CSS pixels relative to the top-level viewport, only with include_boxes. */
  bbox?: [number, number, number, number];
  selector_hint?: string;
  /** Shadow root host. */
  shadow?: 'open' | 'closed';
  /** Set on an iframe node whose content could not be read. */
  frame_error?: string;
  children: SnapshotNode[];
  /**
   * Inline semantic elements (strong, emphasis, code, time, term, definition, caption, …) whose
   * text flows into this node's text in the agent rendering: the model keeps each one's role and
   * ref here, outside `children`, so every rendering stays as it was. Absent when there are none.
   */
  inline?: SnapshotNode[];
}

export interface ElementEntry {
  element_ref: string;
  role: string;
  name: string;
  text: string;
  actionable: boolean;
  enabled: boolean;
  selector_hint: string;
  frame?: string;
}

export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  'link',
  'button',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'switch',
  'slider',
  'spinbutton',
  'treeitem',
]);

/** Depth-first visit of the model. */
export function* walkModel(node: SnapshotNode): Generator<SnapshotNode> {
  yield node;
  for (const c of node.children) yield* walkModel(c);
}

export function elementsOf(root: SnapshotNode): ElementEntry[] {
  const out: ElementEntry[] = [];
  // Plain recursion: a generator nested as deep as the page costs a resumption per level per node.
  const visit = (n: SnapshotNode) => {
    if (n.interactive && n.element_ref) {
      const e: ElementEntry = {
        element_ref: n.element_ref,
        role: n.role,
        name: n.name,
        text: n.text ?? n.name,
        actionable: n.actionable,
        enabled: !n.states?.disabled,
        selector_hint: n.selector_hint ?? n.tag,
      };
      if (n.frame) e.frame = n.frame;
      out.push(e);
    }
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}
