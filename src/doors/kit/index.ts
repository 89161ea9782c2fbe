// The kit every door is built from: one method definition, one table and dispatch path, one
// wire-target mapper. A door adds only its wire format (envelope, renames, reply shapes, errors).

export { DOM_ATTRIBUTES } from './dom-attributes.js';
export { LineFramer } from './line-framer.js';
export { InvalidParams, invalidRequest, type Method, type MethodSpec, methodKit } from './method.js';
export type { MountedRoutes, Refusal, RefusalReason } from './routes.js';
export { type DispatchHooks, dispatch, MethodTable } from './table.js';
export { type TargetFields, targetFrom } from './targets.js';
export { opWords, refWords, rewrite, type WordTable } from './words.js';
