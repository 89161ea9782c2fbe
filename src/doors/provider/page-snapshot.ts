import type { SnapshotNode } from '../../snapshot/model.js';

/**
 * `jcode.page_snapshot.v1`, the provider protocol's snapshot form, built from the engine's
 * protocol-neutral page model (SnapshotResult.model): a flat node list linked by ids.
 */

export interface PageSnapshotV1Node {
  node_id: string;
  role: string;
  name: string;
  text: string;
  element_ref: string | null;
  actionable: boolean;
  children?: string[];
  value?: string;
  states?: SnapshotNode['states'];
  tag?: string;
  attrs?: Record<string, string>;
  frame?: string;
  url?: string;
  bbox?: [number, number, number, number];
  clickable?: boolean;
}

export interface PageSnapshotV1 {
  format: 'jcode.page_snapshot.v1';
  root: { node_id: string; role: string; name: string; children: string[] };
  nodes: PageSnapshotV1Node[];
  truncated?: boolean;
}

/**
 * The model as `jcode.page_snapshot.v1`. Each node has the draft's fields plus its live state
 * (`value`, `states`) and what the snapshot options asked for (frame, url, bbox). The DOM-derived
 * extras (`tag`, the whitelisted `attrs`) come only with `dom: true`: they are not the draft's and
 * on a large page they are a tenth of the bytes. At most `maxNodes` nodes (then `truncated`).
 */
export function toPageSnapshotV1(
  model: SnapshotNode,
  maxNodes?: number,
  { dom = false }: { dom?: boolean } = {},
): PageSnapshotV1 {
  const nodes: PageSnapshotV1Node[] = [];
  const limit = maxNodes ?? Number.POSITIVE_INFINITY;
  let truncated = false;
  const add = (n: SnapshotNode): string | null => {
    if (nodes.length >= limit) {
      truncated = true;
      return null;
    }
    const out: PageSnapshotV1Node = {
      node_id: n.node_id,
      role: n.role,
      name: n.name,
      text: n.text ?? (n.role === 'text' ? '' : n.name),
      element_ref: n.element_ref ?? null,
      actionable: n.actionable,
    };
    if (dom) out.tag = n.tag;
    if (n.value !== undefined) out.value = n.value;
    if (n.states) out.states = n.states;
    if (dom && n.attrs) out.attrs = n.attrs;
    if (n.frame) out.frame = n.frame;
    if (n.url) out.url = n.url;
    if (n.bbox) out.bbox = n.bbox;
    if (n.clickable) out.clickable = true;
    nodes.push(out);
    if (n.children.length) {
      const ids: string[] = [];
      for (const c of n.children) {
        const id = add(c);
        if (id) ids.push(id);
      }
      out.children = ids;
    }
    return n.node_id;
  };
  const rootChildren: string[] = [];
  for (const c of model.children) {
    const id = add(c);
    if (id) rootChildren.push(id);
  }
  const snapshot: PageSnapshotV1 = {
    format: 'jcode.page_snapshot.v1',
    root: { node_id: model.node_id, role: model.role, name: model.name, children: rootChildren },
    nodes,
  };
  if (truncated) snapshot.truncated = true;
  return snapshot;
}

/** The draft's shape with nothing in it but the root: for callers that asked to leave the nodes out. */
export function rootOnly(model: SnapshotNode): PageSnapshotV1 {
  return {
    format: 'jcode.page_snapshot.v1',
    root: { node_id: model.node_id, role: model.role, name: model.name, children: [] },
    nodes: [],
  };
}
