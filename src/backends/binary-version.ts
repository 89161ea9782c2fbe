import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

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
