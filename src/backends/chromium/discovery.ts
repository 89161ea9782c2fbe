import { TabwrightError } from '../../engine/errors.js';
import { binaryVersion, isExecutable } from '../binary-version.js';
import candidates from './candidates.json' with { type: 'json' };

export const CHROMIUM_INSTALL_COMMAND = candidates.installCommand;

export interface FoundBrowser {
  path: string;
  source: 'TABWRIGHT_CHROMIUM' | 'default path';
}

/**
 * The default search paths, or $TABWRIGHT_BROWSER_PATHS (colon-separated)
 * when set: lets a machine with an unusual layout, and the setup tests,
 * replace the list.
 */
export function searchPaths(env = process.env): string[] {
  return env.TABWRIGHT_BROWSER_PATHS
    ? env.TABWRIGHT_BROWSER_PATHS.split(':').filter(Boolean)
    : candidates.paths;
}

/** Every candidate with whether it exists; used by `tabwright doctor`. */
export function listChromiumCandidates(
  env = process.env,
): { path: string; source: string; executable: boolean }[] {
  const out: { path: string; source: string; executable: boolean }[] = [];
  if (env.TABWRIGHT_CHROMIUM) {
    out.push({
      path: env.TABWRIGHT_CHROMIUM,
      source: 'TABWRIGHT_CHROMIUM',
      executable: isExecutable(env.TABWRIGHT_CHROMIUM),
    });
  }
  for (const path of searchPaths(env))
    out.push({ path, source: 'default path', executable: isExecutable(path) });
  return out;
}

/** The vendors' Chromium-based builds installed here (chrome, edge), each by its first path found. */
export function findChromiumProducts(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [product, paths] of Object.entries(candidates.products as Record<string, string[]>)) {
    const found = paths.find(isExecutable);
    if (found) out[product] = found;
  }
  return out;
}

/** $TABWRIGHT_CHROMIUM first (an error if it points nowhere), then the default paths. */
export function findChromium(env = process.env): FoundBrowser | undefined {
  if (env.TABWRIGHT_CHROMIUM) {
    if (!isExecutable(env.TABWRIGHT_CHROMIUM)) {
      throw new TabwrightError(
        'setup_required',
        `TABWRIGHT_CHROMIUM points to ${env.TABWRIGHT_CHROMIUM}, which is not an executable file. Fix the path or unset the variable.`,
        { details: { manual_steps: [`unset TABWRIGHT_CHROMIUM`, CHROMIUM_INSTALL_COMMAND] } },
      );
    }
    return { path: env.TABWRIGHT_CHROMIUM, source: 'TABWRIGHT_CHROMIUM' };
  }
  for (const path of searchPaths(env)) if (isExecutable(path)) return { path, source: 'default path' };
  return undefined;
}

export function requireChromium(env = process.env): FoundBrowser {
  const found = findChromium(env);
  if (found) return found;
  throw new TabwrightError(
    'setup_required',
    `No Chromium found (looked at $TABWRIGHT_CHROMIUM and ${searchPaths(env).join(', ')}). Install it with: ${CHROMIUM_INSTALL_COMMAND} (as root), or set TABWRIGHT_CHROMIUM to a Chromium or Chrome binary.`,
    {
      details: { manual_steps: [CHROMIUM_INSTALL_COMMAND, 'or: export TABWRIGHT_CHROMIUM=/path/to/chrome'] },
    },
  );
}

/** "Chromium 156.0.8078.108 built on Debian…" → first line; undefined when the binary will not say. */
export function chromiumVersion(path: string): string | undefined {
  return binaryVersion(path);
}
