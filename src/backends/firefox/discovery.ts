import { TabwrightError } from '../../engine/errors.js';
import type { BackendDiscovery, SetupProblem } from '../backend.js';
import { binaryVersion, isExecutable } from '../binary-version.js';

export const FIREFOX_INSTALL_COMMAND = 'apt-get update && apt-get install -y firefox-esr';

/** Where Firefox is looked for, after $TABWRIGHT_FIREFOX. */
const FIREFOX_PATHS = [
  '/usr/bin/firefox-esr',
  '/usr/bin/firefox',
  '/usr/lib/firefox-esr/firefox-esr',
  '/usr/lib/firefox/firefox',
  '/snap/bin/firefox',
  '/Applications/Firefox.app/Contents/MacOS/firefox',
];

function candidates(env = process.env): { path: string; source: string; executable: boolean }[] {
  const out: { path: string; source: string; executable: boolean }[] = [];
  if (env.TABWRIGHT_FIREFOX)
    out.push({
      path: env.TABWRIGHT_FIREFOX,
      source: 'TABWRIGHT_FIREFOX',
      executable: isExecutable(env.TABWRIGHT_FIREFOX),
    });
  for (const path of FIREFOX_PATHS)
    out.push({ path, source: 'default path', executable: isExecutable(path) });
  return out;
}

/** $TABWRIGHT_FIREFOX first (an error if it points nowhere), then the default paths. */
export function findFirefox(env = process.env): string | undefined {
  if (env.TABWRIGHT_FIREFOX) {
    if (!isExecutable(env.TABWRIGHT_FIREFOX))
      throw new TabwrightError(
        'setup_required',
        `TABWRIGHT_FIREFOX points to ${env.TABWRIGHT_FIREFOX}, which is not an executable file. Fix the path or unset the variable.`,
        { details: { manual_steps: ['unset TABWRIGHT_FIREFOX', FIREFOX_INSTALL_COMMAND] } },
      );
    return env.TABWRIGHT_FIREFOX;
  }
  return FIREFOX_PATHS.find(isExecutable);
}

export function requireFirefox(env = process.env): string {
  const found = findFirefox(env);
  if (found) return found;
  throw new TabwrightError(
    'setup_required',
    `No Firefox found (looked at $TABWRIGHT_FIREFOX and ${FIREFOX_PATHS.join(', ')}). Install it with: ${FIREFOX_INSTALL_COMMAND} (as root), or set TABWRIGHT_FIREFOX to a Firefox binary.`,
    { details: { manual_steps: [FIREFOX_INSTALL_COMMAND, 'or: export TABWRIGHT_FIREFOX=/path/to/firefox'] } },
  );
}

/** "Mozilla Firefox 153.8.0esr"; undefined when the binary will not say. */
export function firefoxVersion(path: string): string | undefined {
  return binaryVersion(path, 10_000);
}

export function discoverFirefox(env = process.env): BackendDiscovery {
  const problems: SetupProblem[] = [];
  let selected: string | null = null;
  try {
    selected = findFirefox(env) ?? null;
  } catch (err) {
    if (err instanceof TabwrightError)
      problems.push({
        code: 'browser_path_invalid',
        message: err.message,
        manual_steps: [FIREFOX_INSTALL_COMMAND],
      });
  }
  const browsers = candidates(env)
    .filter((c) => c.executable || c.source === 'TABWRIGHT_FIREFOX')
    // One entry per binary: /usr/bin/firefox is often a link to firefox-esr's launcher.
    .filter((c, i, all) => all.findIndex((o) => o.path === c.path) === i)
    .map((c) => ({
      ...c,
      version: c.executable ? (firefoxVersion(c.path) ?? null) : null,
      selected: c.path === selected,
    }));
  if (!selected && problems.length === 0)
    problems.push({
      code: 'browser_missing',
      message: `No Firefox found. Install it with: ${FIREFOX_INSTALL_COMMAND} (as root), or set TABWRIGHT_FIREFOX.`,
      manual_steps: [FIREFOX_INSTALL_COMMAND],
    });
  return { browsers, selected, problems };
}
