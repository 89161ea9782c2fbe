import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHROMIUM_INSTALL_COMMAND,
  chromiumVersion,
  findChromium,
  listChromiumCandidates,
} from '../backends/chromium/discovery.js';
import { isRoot } from '../backends/chromium/flags.js';
import { TabwrightError } from './errors.js';
import { tabwrightHome } from './home.js';

export interface BrowserFinding {
  path: string;
  source: string;
  executable: boolean;
  version: string | null;
  selected: boolean;
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
  selected_browser: string | null;
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
export function collectDiagnostics(opts: { createDirs?: boolean } = {}): Diagnostics {
  const problems: Diagnostics['problems'] = [];
  let selected: string | null = null;
  try {
    selected = findChromium()?.path ?? null;
  } catch (err) {
    if (err instanceof TabwrightError) {
      problems.push({
        code: 'browser_path_invalid',
        message: err.message,
        manual_steps: [CHROMIUM_INSTALL_COMMAND],
      });
    }
  }
  const browsers = listChromiumCandidates()
    .filter((c) => c.executable || c.source === 'TABWRIGHT_CHROMIUM')
    .map((c) => ({
      ...c,
      version: c.executable ? (chromiumVersion(c.path) ?? null) : null,
      selected: c.path === selected,
    }));
  if (!selected && problems.length === 0) {
    problems.push({
      code: 'browser_missing',
      message: `No Chromium found. Install it with: ${CHROMIUM_INSTALL_COMMAND} (as root), or set TABWRIGHT_CHROMIUM.`,
      manual_steps: [CHROMIUM_INSTALL_COMMAND],
    });
  }
  const home = tabwrightHome();
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
    root: isRoot(),
    browsers,
    selected_browser: selected,
    home,
    dirs,
    problems,
  };
}
