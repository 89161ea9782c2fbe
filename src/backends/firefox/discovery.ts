import { TabwrightError } from '../../engine/errors.js';
import type { BackendDiscovery } from '../backend.js';
import { binaryCandidates, binaryVersion, discoverBinary, isExecutable } from '../binary-version.js';

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
  return discoverBinary({
    family: 'Firefox',
    variable: 'TABWRIGHT_FIREFOX',
    installCommand: FIREFOX_INSTALL_COMMAND,
    candidates: binaryCandidates('TABWRIGHT_FIREFOX', env.TABWRIGHT_FIREFOX, FIREFOX_PATHS),
    find: () => findFirefox(env),
    version: firefoxVersion,
  });
}
