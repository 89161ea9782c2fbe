import type { SnapshotNode } from '../../../snapshot/index.js';

/** One node of `aom_snapshot` (the pipe's own format over the engine's snapshot model). */
export interface AomNode {
  ref: string | null;
  role: string;
  name: string;
  value?: string;
  states?: Record<string, unknown>;
}

export const MAX_AOM_NODES = 3_000;

const SKIP_ROLES = new Set(['text', 'generic', 'none', 'presentation', 'StaticText']);

/** Flattens the snapshot model: nodes with a ref, or (not interactive_only) a meaningful role and a name. */
export function aomNodes(root: SnapshotNode, interactiveOnly: boolean): AomNode[] {
  const out: AomNode[] = [];
  const visit = (n: SnapshotNode) => {
    const keep = interactiveOnly
      ? n.interactive && !!n.element_ref
      : !!n.element_ref || (!SKIP_ROLES.has(n.role) && (n.name !== '' || n.role === 'heading'));
    if (keep && n !== root) {
      const node: AomNode = { ref: n.element_ref ?? null, role: n.role, name: n.name };
      if (n.value !== undefined) node.value = n.value;
      if (n.states && Object.keys(n.states).length) node.states = { ...n.states };
      out.push(node);
    }
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}
