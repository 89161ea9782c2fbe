import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TabwrightError } from '../../engine/errors.js';
import { isAlive } from '../process-tree.js';
import { writeProfilePrefs } from './prefs.js';

export interface StartedFirefox {
  child: ChildProcess;
  /** ws://127.0.0.1:PORT (append /session for a BiDi session). */
  endpoint: string;
  profileDir: string;
  /** The profile was created for this process alone (removed with it). */
  temporaryProfile: boolean;
}

export interface FirefoxStart {
  executablePath: string;
  headless: boolean;
  args?: string[];
  workDir?: string;
  /** A persistent profile; absent: a temporary one. */
  profileDir?: string;
  proxyServer?: string;
  timeoutMs?: number;
}

const ENDPOINT_LINE = /WebDriver BiDi listening on (ws:\/\/\S+)/;

/** Firefox holds a profile with a `lock` link naming the host and pid of the process that has it. */
export function profileLockedBy(profileDir: string): number | null {
  const lock = join(profileDir, 'lock');
  try {
    const target = readlinkSync(lock);
    const pid = Number(/\+(\d+)$/.exec(target)?.[1]);
    return pid && isAlive(pid) ? pid : null;
  } catch {
    return existsSync(join(profileDir, 'parent.lock')) ? null : null;
  }
}

/** util-linux's setpriv (Debian's essential util-linux package has it); absent elsewhere. */
const SETPRIV = '/usr/bin/setpriv';

/**
 * The command that starts Firefox so that it ends with this process, however this process ends.
 * Chromium does by itself (playwright-core drives it over a pipe, and it quits when the pipe
 * closes), but Firefox's remote agent listens on a socket and outlives a provider killed with
 * SIGKILL, or one whose client gave up waiting while the browser was still starting: the orphan
 * ran on, parented to init, until the next launch in the same home swept it (launch-records.ts).
 * `setpriv --pdeathsig TERM` asks the kernel to send SIGTERM (Firefox quits cleanly on it and
 * writes a persistent profile) when the thread that spawned it dies; spawns happen on Node's main
 * thread, which lives as long as the process. setpriv execs Firefox in place: same pid, same
 * process group. Without setpriv, Firefox is started directly and the sweep stays the only net.
 */
export function diesWithUs(executable: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux' || !existsSync(SETPRIV)) return [executable, args];
  return [SETPRIV, ['--pdeathsig', 'TERM', '--', executable, ...args]];
}

/**
 * Starts Firefox with its remote agent on a free loopback port and waits for the endpoint it
 * prints on stderr. The preferences are in the profile before the process reads it (prefs.ts).
 */
export function startFirefox(opts: FirefoxStart): Promise<StartedFirefox> {
  const temporaryProfile = !opts.profileDir;
  const base = opts.workDir ?? tmpdir();
  mkdirSync(base, { recursive: true });
  const profileDir = opts.profileDir ?? mkdtempSync(join(base, 'firefox-profile-'));
  const downloadsDir = join(opts.workDir ?? profileDir, 'downloads');
  mkdirSync(downloadsDir, { recursive: true });
  writeProfilePrefs(profileDir, { downloadsDir, proxyServer: opts.proxyServer });
  const args = [
    '--remote-debugging-port=0',
    '--remote-allow-hosts=127.0.0.1,localhost',
    '--profile',
    profileDir,
    '--no-remote',
    '--new-instance',
    ...(opts.headless ? ['--headless'] : []),
    ...(opts.args ?? []),
    'about:blank',
  ];
  const tmp = opts.workDir ? join(opts.workDir, 'tmp') : undefined;
  if (tmp) mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const [command, commandArgs] = diesWithUs(opts.executablePath, args);
  const child = spawn(command, commandArgs, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      // ESR reads services.settings.server only with this set: without it, remote settings call home.
      MOZ_REMOTE_SETTINGS_DEVTOOLS: '1',
      MOZ_CRASHREPORTER_DISABLE: '1',
      MOZ_DISABLE_AUTO_SAFE_MODE: '1',
      ...(tmp ? { TMPDIR: tmp } : {}),
    },
  });
  child.unref();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    let stderr = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stderr?.removeAllListeners('data');
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {}
      reject(
        new TabwrightError(
          'browser_not_running',
          `Firefox at ${opts.executablePath} failed to start: ${why}. Run \`tabwright doctor\` to check the browser, or set TABWRIGHT_FIREFOX.`,
          { retryable: true, details: { executable: opts.executablePath, cause: stderr.trim().slice(-500) } },
        ),
      );
    };
    const timer = setTimeout(() => fail(`no WebDriver BiDi endpoint within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`it exited (${signal ?? code}) before its endpoint was up`));
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += String(chunk);
      if (stderr.length > 64_000) stderr = stderr.slice(-32_000);
      const m = ENDPOINT_LINE.exec(stderr);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      // Keep draining stderr so the browser never blocks on a full pipe; its chatter is not ours to print.
      child.stderr?.removeAllListeners('data');
      child.stderr?.on('data', () => {});
      resolve({ child, endpoint: m[1]!.replace(/\/$/, ''), profileDir, temporaryProfile });
    });
  });
}
