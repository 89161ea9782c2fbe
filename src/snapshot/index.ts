export type { SnapshotDiff } from './diff.js';
export { type ElementEntry, INTERACTIVE_ROLES, type SnapshotNode } from './model.js';
export { evaluateOnRef, resolveRef } from './refs.js';
export { renderAgentText } from './render.js';
export {
  type Omitted,
  SNAPSHOT_DEFAULTS,
  type SnapshotOptions,
  type SnapshotResult,
  takeSnapshot,
} from './snapshot.js';
