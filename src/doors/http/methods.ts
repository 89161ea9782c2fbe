import type { MethodDef } from './methods/common.js';
import { DIALOGS } from './methods/dialogs.js';
import { INDEX_ACTIONS } from './methods/index-actions.js';
import { LIFECYCLE } from './methods/lifecycle.js';
import { NAVIGATION } from './methods/navigation.js';
import { NETWORK } from './methods/network.js';
import { SCREENSHOTS } from './methods/screenshots.js';
import { STATE } from './methods/state.js';
import { TABS } from './methods/tabs.js';

export type { MethodContext, MethodDef, TaskMode } from './methods/common.js';

/** Every implemented method, by wire name (one zod schema and one thin handler each, in methods/<family>.ts). */
export const METHODS: ReadonlyMap<string, MethodDef> = new Map(
  [
    ...LIFECYCLE,
    ...NAVIGATION,
    ...STATE,
    ...INDEX_ACTIONS,
    ...SCREENSHOTS,
    ...TABS,
    ...DIALOGS,
    ...NETWORK,
  ].map((m) => [m.name, m]),
);
