import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchedProcess } from '../backends/backend.js';
import { isAlive as alive, killGroup } from '../backends/process-tree.js';
import { log } from './log.js';

/**
 * What this process launched, on disk under `<home>/run/` while it runs: each browser's pid, its
 * temporary profile and its work directory (`browser-<owner pid>-<n>/`, the scratch space the engine
 * hands the backend). When a browser is gone its directories are removed; when the engine closes,
 * everything it launched is; and when a tabwright process dies without closing (SIGKILL, a crash),
 * the next engine to launch in the same home kills what is left of it and removes its directories.
 */
interface LaunchRecord {
  owner_pid: number;
  browser_pid: number;
  temporary_profile: string | null;
  work_dir: string | null;
  started_at: string;
}

/** Whether `pid` is still the browser we launched (pids are reused): its command line names the profile. */
function sameBrowser(r: LaunchRecord): boolean {
  if (!alive(r.browser_pid) || !r.temporary_profile) return false;
  try {
    return readFileSync(`/proc/${r.browser_pid}/cmdline`, 'utf8').includes(r.temporary_profile);
  } catch {
    return false;
  }
}

/**
 * Removes a browser's directories. A browser that is still exiting may write into its profile while
 * it goes: a failed removal is tried again a little later instead of failing anything.
 */
function removeDirs(r: Pick<LaunchRecord, 'temporary_profile' | 'work_dir'>, attempt = 0): void {
  for (const dir of [r.temporary_profile, r.work_dir]) {
    if (!dir) continue;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      if (attempt < 5)
        setTimeout(() => removeDirs({ temporary_profile: dir, work_dir: null }, attempt + 1), 500).unref();
      else log.warn({ dir, err: String(err) }, 'could not remove a browser directory');
    }
  }
}

/**
 * Cleanups waiting for a browser that had disconnected but not yet exited. Their timers do not keep
 * the process alive, so a process that exits first runs them at exit (synchronously: killGroup and
 * rmSync), instead of leaving the work directory to the next engine in the same home.
 */
const pendingAtExit = new Set<() => void>();
let exitHookInstalled = false;
function finishAtExit(finish: () => void): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const f of [...pendingAtExit]) f();
    });
  }
  pendingAtExit.add(finish);
  return () => pendingAtExit.delete(finish);
}

/** The longest `<work dir>/tmp` whose browser sockets fit a Unix socket path (see newWorkDir). */
const MAX_WORK_TMP_BYTES = 56;

export class LaunchRecords {
  private readonly dir: string;
  private swept = false;
  private workDirs = 0;
  /** Records of this process, by file. */
  private readonly mine = new Map<string, LaunchRecord>();

  constructor(home: string) {
    this.dir = join(home, 'run');
  }

  /**
   * A fresh work directory for the next launch (removed with the browser): under `<home>/run/`, or
   * under the system's temporary directory when the home's path is too long for a socket in it.
   * The browser's TMPDIR is `<work dir>/tmp`, and Chromium's first socket there
   * (`.org.chromium.Chromium.XXXXXX/SingletonSocket`, 46 characters more) must fit the 107 bytes
   * of a Unix socket path: with a longer home, Chromium died at launch ("Socket path too long").
   * Where it is makes no difference to the cleanup: the launch record names the directory.
   */
  newWorkDir(): string {
    this.sweep();
    const name = `browser-${process.pid}-${++this.workDirs}`;
    const dir = join(this.dir, name);
    if (Buffer.byteLength(join(dir, 'tmp')) <= MAX_WORK_TMP_BYTES) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    }
    // `tw-XXXXXX`: the system's temporary directory may itself be long; /tmp is the last resort.
    const base =
      Buffer.byteLength(join(tmpdir(), 'tw-XXXXXX', 'tmp')) <= MAX_WORK_TMP_BYTES ? tmpdir() : '/tmp';
    return mkdtempSync(join(base, 'tw-'));
  }

  /** Records a launched browser; `closed()` removes its directories and the record once it is gone. */
  add(p: LaunchedProcess): { closed(): void } {
    this.sweep();
    const file = join(this.dir, `${process.pid}-${p.pid}.json`);
    const record: LaunchRecord = {
      owner_pid: process.pid,
      browser_pid: p.pid,
      temporary_profile: p.temporaryProfile,
      work_dir: p.workDir,
      started_at: new Date().toISOString(),
    };
    this.mine.set(file, record);
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      // Written aside and renamed into place: another engine sweeping this home never reads half a
      // record (it would take it for garbage and drop it, and a crash of ours would then leave the browser).
      const partial = `${file}.partial`;
      writeFileSync(partial, JSON.stringify(record), { mode: 0o600 });
      renameSync(partial, file);
    } catch (err) {
      log.warn(
        { err: String(err), dir: this.dir },
        'cannot record a launched browser (a crash would leave it)',
      );
    }
    return {
      closed: () => {
        // The disconnect can come a moment before the process has exited: remove once it is gone.
        const finish = () => this.finish(file);
        if (!alive(p.pid)) return finish();
        const forget = finishAtExit(finish);
        setTimeout(() => {
          forget();
          finish();
        }, 1000).unref();
      },
    };
  }

  private finish(file: string): void {
    const r = this.mine.get(file);
    if (!r) return;
    this.mine.delete(file);
    if (alive(r.browser_pid) && sameBrowser(r)) killGroup(r.browser_pid);
    removeDirs(r);
    rmSync(file, { force: true });
  }

  /** At engine close: every browser this process launched is gone or being killed; remove what is left. */
  removeAll(): void {
    for (const file of [...this.mine.keys()]) this.finish(file);
    try {
      for (const f of readdirSync(this.dir))
        if (f.startsWith(`browser-${process.pid}-`))
          rmSync(join(this.dir, f), { recursive: true, force: true });
    } catch {}
  }

  /** Once per process: cleans up after owners that are gone. */
  sweep(): void {
    if (this.swept) return;
    this.swept = true;
    let files: string[];
    try {
      files = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const f of files) {
      const path = join(this.dir, f);
      const orphanDir = /^browser-(\d+)-\d+$/.exec(f);
      if (orphanDir) {
        if (!alive(Number(orphanDir[1]))) removeDirs({ temporary_profile: null, work_dir: path });
        continue;
      }
      // `<owner pid>-<browser pid>.json`, or `….json.partial` while its owner writes it.
      const named = /^(\d+)-\d+\.json(\.partial)?$/.exec(f);
      if (!named) continue;
      if (named[2]) {
        if (!alive(Number(named[1]))) rmSync(path, { force: true });
        continue;
      }
      let r: LaunchRecord;
      try {
        r = JSON.parse(readFileSync(path, 'utf8')) as LaunchRecord;
      } catch {
        // Unreadable: dropped only when its owner is gone (a live owner's record is never dropped).
        if (!alive(Number(named[1]))) rmSync(path, { force: true });
        continue;
      }
      if (alive(r.owner_pid)) continue;
      if (sameBrowser(r)) killGroup(r.browser_pid);
      removeDirs(r);
      rmSync(path, { force: true });
      log.info(
        { owner_pid: r.owner_pid, browser_pid: r.browser_pid },
        'cleaned up after a tabwright process that did not close',
      );
    }
  }
}
