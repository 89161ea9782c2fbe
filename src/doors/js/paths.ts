import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * Where a daemon lives: one per user and --name, in the user's runtime dir
 * ($XDG_RUNTIME_DIR/tabwright, else /tmp/tabwright-<uid>, both 0700). The
 * socket is 0600, so only the user can talk to it.
 */
export interface DaemonPaths {
  name: string;
  dir: string;
  socket: string;
  log: string;
  pid: string;
}

export const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function checkName(name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new Error(`--name "${name}" is not valid: use 1-64 letters, digits, "_" or "-".`);
  }
  return name;
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** The runtime dir, created 0700 and checked to be ours (a directory we own, not a symlink). */
export function runtimeDir(): string {
  const xdg = process.env.XDG_RUNTIME_DIR;
  const dir =
    xdg && isAbsolute(xdg) && existsSync(xdg) ? join(xdg, 'tabwright') : join(tmpdir(), `tabwright-${uid()}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.isSymbolicLink() || st.uid !== uid()) {
    throw new Error(
      `${dir} is not a directory owned by you; remove it or set XDG_RUNTIME_DIR to a private directory.`,
    );
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

export function daemonPaths(name: string): DaemonPaths {
  checkName(name);
  const dir = runtimeDir();
  return {
    name,
    dir,
    socket: join(dir, `js-${name}.sock`),
    log: join(dir, `js-${name}.log`),
    pid: join(dir, `js-${name}.pid`),
  };
}

/**
 * Identifies the code on disk: the package version plus the newest mtime of
 * the built files. The daemon records it at boot; the CLI compares it with
 * the files now on disk to say when the daemon runs older code.
 */
export function codeStamp(version: string): string {
  // Tests (and packagers) may pin the stamp; the daemon inherits it from the CLI that started it.
  if (process.env.TABWRIGHT_JS_CODE_STAMP) return process.env.TABWRIGHT_JS_CODE_STAMP;
  let newest = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > 6 || !existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, depth + 1);
      else if (e.name.endsWith('.js')) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(join(PACKAGE_ROOT, 'dist'), 0);
  return `${version}+${Math.floor(newest)}`;
}
