import { commands } from './batch.js';
import type { MethodDef } from './methods/common.js';
import { DIALOGS } from './methods/dialogs.js';
import { EXTRACT } from './methods/extract.js';
import { FILES } from './methods/files.js';
import { HUMAN } from './methods/human.js';
import { INDEX_ACTIONS } from './methods/index-actions.js';
import { JOBS } from './methods/jobs.js';
import { LIFECYCLE } from './methods/lifecycle.js';
import { LOCATE } from './methods/locate.js';
import { META, registry } from './methods/meta.js';
import { MODALS } from './methods/modals.js';
import { MOUSE } from './methods/mouse.js';
import { NAVIGATION } from './methods/navigation.js';
import { NETWORK } from './methods/network.js';
import { READS } from './methods/reads.js';
import { RECIPES } from './methods/recipes.js';
import { SCREENSHOTS } from './methods/screenshots.js';
import { SETTINGS } from './methods/settings.js';
import { STATE } from './methods/state.js';
import { STORAGE } from './methods/storage.js';
import { TABS } from './methods/tabs.js';
import { WAITS } from './methods/waits.js';

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
    ...MODALS,
    ...NETWORK,
    ...HUMAN,
    ...JOBS,
    ...RECIPES,
    ...LOCATE,
    ...READS,
    ...WAITS,
    ...MOUSE,
    ...STORAGE,
    ...EXTRACT,
    ...FILES,
    ...META,
    ...SETTINGS,
    commands,
  ].map((m) => [m.name, m]),
);

// list_methods lists the command table; `commands` is the batch entry, outside the table (§8).
registry.names = () => [...METHODS.keys()].filter((n) => n !== 'commands');
