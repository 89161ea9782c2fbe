import { homedir } from 'node:os';
import { join } from 'node:path';
import { TabwrightError } from './errors.js';

/** $TABWRIGHT_HOME, else $XDG_DATA_HOME/tabwright, else ~/.local/share/tabwright. */
export function tabwrightHome(env = process.env): string {
  if (env.TABWRIGHT_HOME) return env.TABWRIGHT_HOME;
  const xdg = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(xdg, 'tabwright');
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The directory of a named persistent profile; names cannot escape the profile root. */
export function profileDir(home: string, name: string): string {
  if (!PROFILE_NAME.test(name) || name.includes('..')) {
    throw new TabwrightError(
      'invalid_request',
      `Profile name "${name}" is not allowed: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
      { details: { field: 'profile' } },
    );
  }
  return join(home, 'profiles', name);
}
