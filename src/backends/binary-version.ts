import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { TabwrightError } from '../engine/errors.js';
import type { BackendDiscovery, SetupProblem } from './backend.js';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `<binary> --version`'s first line ("Chromium 156…", "Mozilla Firefox 153.8.0esr"); undefined when it will not say. */
export function binaryVersion(path: string, timeoutMs = 5000): string | undefined {
  try {
    return execFileSync(path, ['--version'], {
      timeout: timeoutMs,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')[0];
  } catch {
    return undefined;
  }
}

/** A place a browser binary is looked for: the family's variable first, then the default paths. */
export interface BinaryCandidate {
  path: string;
  source: string;
  executable: boolean;
}

export function binaryCandidates(
  variable: string,
  value: string | undefined,
  paths: readonly string[],
): BinaryCandidate[] {
  const out: BinaryCandidate[] = [];
  if (value) out.push({ path: value, source: variable, executable: isExecutable(value) });
  for (const path of paths) out.push({ path, source: 'default path', executable: isExecutable(path) });
  return out;
}

/**
 * What `discover()` answers for one browser family: the candidates found (and the one set by the
 * variable even when it points nowhere), each binary once, the selected one, and the setup problems.
 * `find` throws a TabwrightError when the variable points at no executable.
 */
export function discoverBinary(opts: {
  family: string;
  variable: string;
  installCommand: string;
  candidates: BinaryCandidate[];
  find: () => string | undefined;
  version: (path: string) => string | undefined;
}): BackendDiscovery {
  const problems: SetupProblem[] = [];
  let selected: string | null = null;
  try {
    selected = opts.find() ?? null;
  } catch (err) {
    if (err instanceof TabwrightError)
      problems.push({
        code: 'browser_path_invalid',
        message: err.message,
        manual_steps: [opts.installCommand],
      });
  }
  const browsers = opts.candidates
    .filter((c) => c.executable || c.source === opts.variable)
    // One entry per binary: /usr/bin/firefox is often a link to firefox-esr's launcher, and the
    // variable may name a default path.
    .filter((c, i, all) => all.findIndex((o) => o.path === c.path) === i)
    .map((c) => ({
      ...c,
      version: c.executable ? (opts.version(c.path) ?? null) : null,
      selected: c.path === selected,
    }));
  if (!selected && problems.length === 0)
    problems.push({
      code: 'browser_missing',
      message: `No ${opts.family} found. Install it with: ${opts.installCommand} (as root), or set ${opts.variable}.`,
      manual_steps: [opts.installCommand],
    });
  return { browsers, selected, problems };
}
