// Every engine operation (and nothing else: shared schemas live in ../schemas.ts), for the
// `ops` namespace of the engine's surface (../api.ts) and the registry (./index.ts).
export * from './actions.js';
export * from './candidates.js';
export * from './cursors.js';
export * from './dialogs.js';
export * from './files.js';
export * from './human.js';
export * from './input.js';
export * from './media.js';
export * from './navigation.js';
export * from './network.js';
export * from './raw.js';
export * from './reads.js';
export * from './scripts.js';
export * from './sessions.js';
export * from './tabs.js';
export * from './understanding.js';
export * from './waits.js';
