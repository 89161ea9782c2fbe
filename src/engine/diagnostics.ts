import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type {
  Backend,
  BrowserFinding as BackendFinding,
  BrowserFamily,
  PlacementStatus,
} from '../backends/backend.js';
import { tabwrightHome } from './home.js';

export interface BrowserFinding extends BackendFinding {
  family: BrowserFamily;
}

export interface DirFinding {
  role: string;
  path: string;
  exists: boolean;
  writable: boolean;
}

export interface Diagnostics {
  node: string;
  platform: string;
  root: boolean;
  browsers: BrowserFinding[];
  /** The default family's binary. */
  selected_browser: string | null;
  /** Families with a usable browser, the default first. */
  browser_families: BrowserFamily[];
  /** Vendor builds installed here (chrome, edge, …) by path, whichever binary a launch selects. */
  products: Record<string, string>;
  home: string;
  dirs: DirFinding[];
  problems: { code: string; message: string; manual_steps: string[] }[];
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * What this machine offers tabwright: browsers and versions, the profile
 * root and whether the directories we write to are writable. Used by
 * `tabwright doctor` and, later, provider.status.
 */
export function collectDiagnostics(
  backends: readonly Backend[],
  opts: { createDirs?: boolean; home?: string } = {},
): Diagnostics {
  const problems: Diagnostics['problems'] = [];
  const browsers: BrowserFinding[] = [];
  const families: BrowserFamily[] = [];
  let selected: string | null = null;
  const products: Record<string, string> = {};
  backends.forEach((backend, i) => {
    const found = backend.discover();
    Object.assign(products, found.products);
    for (const b of found.browsers) browsers.push({ ...b, family: backend.name });
    if (found.selected) families.push(backend.name);
    if (i === 0) {
      selected = found.selected;
      problems.push(...found.problems);
    }
  });
  const home = opts.home ?? tabwrightHome();
  const dirs: DirFinding[] = [
    { role: 'home', path: home },
    { role: 'profiles', path: join(home, 'profiles') },
    { role: 'downloads', path: join(home, 'downloads') },
  ].map(({ role, path }) => {
    if (opts.createDirs && !existsSync(path)) {
      try {
        mkdirSync(path, { recursive: true });
      } catch {}
    }
    const exists = existsSync(path);
    return { role, path, exists, writable: exists && writable(path) };
  });
  for (const d of dirs) {
    if (d.exists && !d.writable) {
      problems.push({
        code: 'dir_not_writable',
        message: `${d.role} directory ${d.path} is not writable; fix its permissions or set TABWRIGHT_HOME.`,
        manual_steps: [`chmod u+w ${d.path}`],
      });
    }
  }
  return {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    root: typeof process.getuid === 'function' && process.getuid() === 0,
    browsers,
    selected_browser: selected,
    browser_families: families,
    products,
    home,
    dirs,
    problems,
  };
}

/**
 * What stands between a Grid and a session (`provider.status`, `tabwright doctor`). On a Grid the
 * browsers are the nodes': a local Chromium does not matter there, the Grid's state does.
 */
export function placementProblems(grid: PlacementStatus): Diagnostics['problems'] {
  if (!grid.reachable)
    return [
      {
        code: 'grid_unreachable',
        message: `${grid.message} Start the Grid, or fix --grid / TABWRIGHT_GRID_URL.`,
        manual_steps: [`curl ${grid.url}/status`],
      },
    ];
  if (grid.nodes_up === 0)
    return [
      {
        code: 'grid_no_nodes',
        message: `The Selenium Grid at ${grid.url} has no node up: sessions would wait in its queue. Start a node (java -jar selenium-server.jar node --hub ${grid.url}).`,
        manual_steps: [],
      },
    ];
  return [];
}
