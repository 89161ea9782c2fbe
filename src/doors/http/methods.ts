import { MethodTable } from '../kit/index.js';
import { commands } from './batch.js';
import type { HttpMethod, HttpTable } from './methods/common.js';
import { DIALOGS } from './methods/dialogs.js';
import { EXTRACT } from './methods/extract.js';
import { FILES } from './methods/files.js';
import { HUMAN } from './methods/human.js';
import { INDEX_ACTIONS } from './methods/index-actions.js';
import { JOBS } from './methods/jobs.js';
import { LIFECYCLE } from './methods/lifecycle.js';
import { LOCATE } from './methods/locate.js';
import { META } from './methods/meta.js';
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

export type { Call, HttpMeta, HttpMethod, HttpTable, MethodContext, TaskMode } from './methods/common.js';

/**
 * The HTTP door's table: every wire method, one kit row each (methods/<family>.ts), over engine
 * operations. list_methods, describe_method, the evidence set and docs/http-api.md's method
 * reference are generated from it; `commands` is the batch entry, outside list_methods (§8).
 */
export const HTTP_METHODS: readonly HttpMethod[] = [
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
];

export const HTTP_TABLE: HttpTable = new MethodTable(HTTP_METHODS);

/** The page-changing methods (reference §7.1): a successful run gets the automatic screenshot. */
export function pageChanging(table: HttpTable = HTTP_TABLE): string[] {
  return table
    .list()
    .filter((m) => m.meta.evidence === true)
    .map((m) => m.name)
    .sort();
}
