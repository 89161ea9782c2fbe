/**
 * A small reader of V8 .heapsnapshot files (the JSON that node:v8 writeHeapSnapshot writes): its
 * flat nodes/edges/strings arrays turned into per-node accessors, and the first retainers of a node.
 * Enough to diff two snapshots by constructor and to print why a kind of object is alive.
 */

import { readFileSync } from 'node:fs';

export function readSnapshot(file) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  const meta = json.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const nodes = json.nodes;
  const edges = json.edges;
  const strings = json.strings;
  const iType = nf.indexOf('type');
  const iName = nf.indexOf('name');
  const iId = nf.indexOf('id');
  const iSize = nf.indexOf('self_size');
  const iEdges = nf.indexOf('edge_count');
  const eType = ef.indexOf('type');
  const eName = ef.indexOf('name_or_index');
  const eTo = ef.indexOf('to_node');
  const count = nodes.length / N;
  // First edge of each node (edges are stored in node order).
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * N + iEdges] * E;
  }
  firstEdge[count] = edges.length;
  // Retainers: reverse edges, as (from node, edge offset) pairs, built lazily.
  let retainers;
  const buildRetainers = () => {
    const counts = new Uint32Array(count + 1);
    for (let e = 0; e < edges.length; e += E) counts[edges[e + eTo] / N]++;
    const start = new Uint32Array(count + 1);
    for (let i = 0; i < count; i++) start[i + 1] = start[i] + counts[i];
    const fill = start.slice();
    const from = new Uint32Array(edges.length / E);
    const via = new Uint32Array(edges.length / E);
    for (let i = 0; i < count; i++)
      for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E) {
        const t = edges[e + eTo] / N;
        from[fill[t]] = i;
        via[fill[t]++] = e;
      }
    retainers = { start, from, via };
  };
  const type = (i) => nodeTypes[nodes[i * N + iType]];
  const name = (i) => strings[nodes[i * N + iName]];
  const edgeName = (e) => {
    const t = edgeTypes[edges[e + eType]];
    const v = edges[e + eName];
    return t === 'element' || t === 'hidden' ? `[${v}]` : String(strings[v]);
  };
  return {
    count,
    type,
    name,
    id: (i) => nodes[i * N + iId],
    selfSize: (i) => nodes[i * N + iSize],
    /** What a node is grouped by: constructor for objects, the type for strings, code, arrays… */
    kind(i) {
      const t = type(i);
      if (t === 'object' || t === 'closure' || t === 'native') return `${t}:${name(i)}`;
      if (t === 'hidden' || t === 'synthetic') return `${t}:${name(i)}`;
      return t;
    },
    children(i) {
      const out = [];
      for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E)
        out.push({ edgeType: edgeTypes[edges[e + eType]], name: edgeName(e), to: edges[e + eTo] / N });
      return out;
    },
    retainersOf(i) {
      if (!retainers) buildRetainers();
      const out = [];
      for (let r = retainers.start[i]; r < retainers.start[i + 1]; r++) {
        const e = retainers.via[r];
        out.push({ edgeType: edgeTypes[edges[e + eType]], name: edgeName(e), from: retainers.from[r] });
      }
      return out;
    },
  };
}
