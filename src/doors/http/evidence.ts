import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ops, TabwrightError } from '../../engine/api.js';
import type { Page } from '../../engine/page.js';
import { type Data, invalidArgument } from './envelope.js';
import { mapEngineError } from './error-map.js';
import type { Task } from './tasks.js';

/**
 * Evidence files (reference §7): the automatic screenshot after a successful
 * page-changing command (the rows with `meta.evidence`, methods.ts), and the
 * `.png`/`.txt` pair of get_browser_state, numbered by a per-task `seq` and
 * served under GET /data/<id>/.
 */

/** Capture budget (reference §7.4 browser.capture.timeoutMs). */
const CAPTURE_TIMEOUT_MS = 8_000;
/** Best-effort DOMContentLoaded wait before capturing (§7.1). */
const DCL_WAIT_MS = 1_500;

export function taskDir(dataDir: string, id: string): string {
  return join(dataDir, id);
}

/** The GET-able `/data/...` URL of a file under the data directory, or undefined when it is elsewhere. */
export function dataUrl(dataDir: string, file: string): string | undefined {
  const rel = relative(resolve(dataDir), file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return `/data/${rel.split(sep).map(encodeURIComponent).join('/')}`;
}

/** Highest `<prefix>N.<ext>` number already in the task directory (a restarted id never overwrites). */
export async function lastNumber(dir: string, pattern: RegExp): Promise<number> {
  try {
    let max = 0;
    for (const name of await readdir(dir)) {
      const m = pattern.exec(name);
      if (m) max = Math.max(max, Number(m[1]));
    }
    return max;
  } catch {
    return 0;
  }
}

export const SHOT_PATTERN = /^shot-(\d+)\.(?:png|jpe?g)$/;
export const SEQ_PATTERN = /^(\d+)\.(?:png|txt)$/;

/**
 * Evidence numbers kept per task (each a `<seq>.png` and, from get_browser_state, a `<seq>.txt`):
 * upstream never removes them, so a task that runs for hours filled the disk. Taking a new number
 * removes the files of the one `keep` numbers older; the answer being built names the newest.
 */
export const EVIDENCE_KEEP = 200;

/** Next evidence number of the task; the oldest numbers beyond `keep` are removed from its directory. */
export async function nextSeq(dataDir: string, task: Task, keep = EVIDENCE_KEEP): Promise<number> {
  const dir = taskDir(dataDir, task.id);
  if (task.seq === undefined) {
    task.seq = await lastNumber(dir, SEQ_PATTERN);
    // A restarted id: what its earlier tasks left beyond the bound goes now.
    await removeSeqsUpTo(dir, task.seq + 1 - keep);
  }
  task.seq += 1;
  await removeSeq(dir, task.seq - keep);
  return task.seq;
}

async function removeSeqsUpTo(dir: string, last: number): Promise<void> {
  if (last < 1) return;
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.map((name) => {
      const m = SEQ_PATTERN.exec(name);
      return m && Number(m[1]) <= last ? rm(join(dir, name), { force: true }) : undefined;
    }),
  );
}

async function removeSeq(dir: string, seq: number): Promise<void> {
  if (seq < 1) return;
  await Promise.all(['png', 'txt'].map((ext) => rm(join(dir, `${seq}.${ext}`), { force: true })));
}

/**
 * Where a user-named output file goes. No path: `<dataDir>/<id>/<fallback>`. A relative path stays
 * inside the task directory; an absolute path is used as given (upstream behaviour).
 */
export function outputPath(
  method: string,
  dir: string,
  requested: string | undefined,
  fallbackName: () => string,
): string {
  if (requested === undefined) return join(dir, fallbackName());
  if (requested.includes('\0'))
    throw invalidArgument(`${method} 失败：参数 path 无效：包含 NUL 字符`, { field: 'path' });
  if (isAbsolute(requested)) return resolve(requested);
  const file = resolve(dir, requested);
  const rel = relative(dir, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw invalidArgument(
      `${method} 失败：参数 path 无效：相对路径不能离开任务目录（要写到别处请传绝对路径）`,
      { field: 'path' },
    );
  }
  return file;
}

export async function writeEvidence(file: string, data: Buffer | string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, data);
}

/** One capture of the page as `<seq>.png`; never throws (a failed capture never fails the command). */
export async function captureSeq(
  dataDir: string,
  task: Task,
  page: Page | undefined,
  seq: number,
): Promise<Data> {
  const file = join(taskDir(dataDir, task.id), `${seq}.png`);
  try {
    // Without a page, the session says why (no open tab, browser gone) in its own normalized error.
    const target = page ?? task.session?.page();
    if (!target)
      throw new TabwrightError('session_not_found', 'The task has no session yet to capture.', {
        details: { task_id: task.id },
      });
    await ops.wait
      .call(target, { conditions: { navigation_complete: 'domcontentloaded' } }, { timeoutMs: DCL_WAIT_MS })
      .catch(() => undefined);
    const shot = await ops.screenshot.call(target, {}, { timeoutMs: CAPTURE_TIMEOUT_MS });
    await writeEvidence(file, shot.data);
    return { seq, screenshot: dataUrl(dataDir, file), screenshot_path: file };
  } catch (err) {
    return { seq, screenshot_error: captureError(err) };
  }
}

/**
 * Why an automatic capture failed, in this door's words like every other failure it reports (the
 * engine's English text, e.g. of a page that closed during the command, is not the door's language).
 */
export function captureError(err: unknown): string {
  return mapEngineError('screenshot', err).message;
}

/** The automatic screenshot after a successful page-changing command (§7.1). */
export async function autoCapture(dataDir: string, task: Task, page: Page | undefined): Promise<Data> {
  const seq = await nextSeq(dataDir, task);
  return captureSeq(dataDir, task, page, seq);
}
