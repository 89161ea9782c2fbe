import { readFileSync, rmSync } from 'node:fs';

/**
 * What a backend knows of a browser process it launched, and the last resort for it: a forced close
 * that kills the process group and removes the temporary profile, synchronously (it must work in a
 * process that is about to exit). Driver-neutral: any backend that launches a process uses it.
 */
export interface LaunchedProcess {
  pid: number;
  /** A profile directory the launch created for this process alone (removed with it), or null. */
  temporaryProfile: string | null;
  /** LaunchSettings.workDir, removed with the process. */
  workDir: string | null;
}

/** The value of `--<flag>=…` on a process's command line (Linux /proc); null when unknown. */
export function commandLineFlag(pid: number, flag: string): string | null {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const prefix = `--${flag}=`;
    const hit = args.find((a) => a.startsWith(prefix));
    return hit ? hit.slice(prefix.length) : null;
  } catch {
    return null;
  }
}

/**
 * Whether process `pid` still runs. A process that exited but was not reaped yet (a zombie, e.g. a
 * daemon whose new parent is a container's PID 1 that never waits) counts as gone: it holds nothing
 * and can take no signal. The one liveness rule of the code base (browsers, daemons, a door's parent).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state is the field after the command's ")" (the command may itself hold parentheses).
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    // No /proc here, or it exited between the two reads: the signal said it ran; the next check sees.
    return true;
  }
}

/** SIGKILL to the process group (browsers are started as group leaders), else to the process. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
    return;
  } catch {}
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
}

/** Kills the process (group) if it still runs and removes its temporary directories; safe to call twice. */
export function forceClose(p: LaunchedProcess): void {
  if (isAlive(p.pid)) killGroup(p.pid);
  removeDirectories(p);
}

/**
 * Resolves once the process is gone (killed and reaped, so its profile lock names no live process),
 * or after `ms`: true when it is gone.
 */
export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** Removes the temporary profile and work directory of a process that is gone. */
export function removeDirectories(p: LaunchedProcess): void {
  for (const dir of [p.temporaryProfile, p.workDir]) {
    if (!dir) continue;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A process that is still exiting may write into it: the engine's launch records try again.
    }
  }
}
