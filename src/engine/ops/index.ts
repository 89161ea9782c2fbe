import * as all from './all.js';
import type { OperationInfo } from './define.js';

/**
 * The registry: every engine operation by name. Doors call `ops.<export>.call(subject, input,
 * opts)` (the `ops` namespace of ../api.ts) and build their listings from `OPERATIONS`.
 */
export const OPERATIONS: ReadonlyMap<string, OperationInfo> = (() => {
  const byName = new Map<string, OperationInfo>();
  for (const op of Object.values(all) as OperationInfo[]) {
    if (byName.has(op.name)) throw new Error(`two engine operations are named ${op.name}`);
    byName.set(op.name, op);
  }
  return byName;
})();

export {
  EFFECTS,
  type Effect,
  type EffectFacts,
  type InputOf,
  type Operation,
  type OperationInfo,
  type OutputOf,
  type Scope,
  type Subjects,
} from './define.js';
