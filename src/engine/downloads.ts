import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { BackendDownload } from '../backends/backend.js';
import { Deadline, type OperationOptions } from './deadline.js';
import { firstLine, TabwrightError } from './errors.js';
import { IdSource } from './ids.js';
import { log } from './log.js';
import type { Page } from './page.js';

export interface DownloadRecord {
  download_id: string;
  /** Increases per session; receipts ask for the downloads after the seq they saw last. */
  seq: number;
  page_id: string;
  url: string;
  suggested_filename: string;
  /** Where the file is (or will be) saved, inside the session's download folder. */
  path: string;
  state: 'in_progress' | 'completed' | 'failed';
  /** Bytes on disk once completed. */
  size: number | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** What a navigation that became a download reports. */
export interface DownloadStarted {
  download_id: string;
  suggested_filename: string;
  url: string;
}

const ids = new IdSource('dl');

/** Download records kept per session (a bound for sessions that live for hours). */
export const KEEP = 500;

/** The downloads of one session, saved under `<home>/downloads/<session_id>/`. */
export class SessionDownloads {
  private seq = 0;
  private readonly records: DownloadRecord[] = [];
  private readonly listeners = new Set<(r: DownloadRecord) => void>();
  private readonly reserved = new Set<string>();
  /** Downloads already handed out by a wait. */
  private readonly claimed = new Set<string>();

  constructor(readonly dir: string) {}

  /** Records kept now (at most KEEP, oldest finished ones dropped first). */
  get size(): number {
    return this.records.length;
  }

  /** Starts saving the downloads a page begins. */
  watch(page: Page): void {
    page.backend.onDownload((d) => this.begin(page, d));
  }

  private begin(page: Page, d: BackendDownload): void {
    const name = safeFilename(d.suggestedFilename);
    const path = this.reservePath(name);
    const rec: DownloadRecord = {
      download_id: ids.next(),
      seq: ++this.seq,
      page_id: page.id,
      url: d.url,
      suggested_filename: d.suggestedFilename,
      path,
      state: 'in_progress',
      size: null,
      error: null,
      started_at: new Date().toISOString(),
      finished_at: null,
    };
    this.records.push(rec);
    this.trim();
    this.emit(rec);
    log.info({ download_id: rec.download_id, url: rec.url, path }, 'download started');
    const done = (state: 'completed' | 'failed', error: string | null) => {
      rec.state = state;
      rec.error = error;
      rec.finished_at = new Date().toISOString();
      rec.size = state === 'completed' && existsSync(path) ? statSync(path).size : null;
      this.emit(rec);
    };
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (err) {
      done('failed', `cannot create ${this.dir}: ${firstLine(String(err))}`);
      return;
    }
    d.saveAs(path).then(
      () => done('completed', null),
      async (err: unknown) => done('failed', (await d.failure().catch(() => null)) ?? firstLine(String(err))),
    );
  }

  /** Keeps the last KEEP records: the oldest finished ones go first (their files stay on disk). */
  private trim(): void {
    let excess = this.records.length - KEEP;
    for (let i = 0; excess > 0 && i < this.records.length; ) {
      const r = this.records[i]!;
      if (r.state === 'in_progress') {
        i++;
        continue;
      }
      this.records.splice(i, 1);
      this.claimed.delete(r.download_id);
      // A saved file keeps its name taken on disk (reservePath checks); a failed one frees it.
      this.reserved.delete(r.path);
      excess--;
    }
  }

  private emit(rec: DownloadRecord): void {
    for (const l of this.listeners) l(rec);
  }

  /** A free path in the folder for `name`: "report.pdf", then "report (1).pdf", … */
  private reservePath(name: string): string {
    const ext = extname(name);
    const stem = name.slice(0, name.length - ext.length);
    for (let i = 0; ; i++) {
      const candidate = join(this.dir, i === 0 ? name : `${stem} (${i})${ext}`);
      if (!this.reserved.has(candidate) && !existsSync(candidate)) {
        this.reserved.add(candidate);
        return candidate;
      }
    }
  }

  /**
   * The download a navigation of `pageId` turned into ("Download is starting"
   * / net::ERR_ABORTED), waiting up to 1 s for its event; null when `err` is
   * another failure or no download of that page started after `sinceSeq`.
   */
  async startedBy(pageId: string, sinceSeq: number, err: unknown): Promise<DownloadStarted | null> {
    const text =
      err instanceof TabwrightError ? `${err.message} ${String(err.details.cause ?? '')}` : String(err);
    if (!/Download is starting|ERR_ABORTED/i.test(text)) return null;
    const find = () => this.records.find((r) => r.seq > sinceSeq && r.page_id === pageId);
    const end = Date.now() + 1000;
    while (!find() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const rec = find();
    return rec
      ? { download_id: rec.download_id, suggested_filename: rec.suggested_filename, url: rec.url }
      : null;
  }

  /** Every download of the session, oldest first, optionally after a seq. */
  list(sinceSeq = 0): DownloadRecord[] {
    return this.records.filter((r) => r.seq > sinceSeq).map((r) => ({ ...r }));
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Calls `listener` when a download starts and when it completes or fails; returns an unsubscribe. */
  onChange(listener: (r: DownloadRecord) => void): () => void {
    const l = (r: DownloadRecord) => listener({ ...r });
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /**
   * Waits until a download is completed or failed and returns it (a failed
   * download is returned, not thrown: read `state` and `error`). With an id:
   * that download. Without: the newest download still in progress, else the
   * next one to start.
   */
  async wait(
    req: { download_id?: string } = {},
    opts?: OperationOptions,
    guard?: () => Promise<never>,
  ): Promise<DownloadRecord> {
    const d = Deadline.from(opts);
    let target: DownloadRecord | undefined;
    if (req.download_id !== undefined) {
      target = this.records.find((r) => r.download_id === req.download_id);
      if (!target) {
        throw new TabwrightError(
          'invalid_request',
          `No download ${req.download_id} in this session. List them with download.list.`,
          { details: { download_id: req.download_id } },
        );
      }
    } else {
      // The newest one in progress; else the newest one no earlier wait has returned
      // (a fast download may finish between the click and this call); else the next to start.
      target =
        [...this.records].reverse().find((r) => r.state === 'in_progress') ??
        [...this.records].reverse().find((r) => !this.claimed.has(r.download_id));
    }
    const claim = (r: DownloadRecord): DownloadRecord => {
      this.claimed.add(r.download_id);
      return { ...r };
    };
    if (target && target.state !== 'in_progress') return claim(target);
    let unsubscribe = () => {};
    const finished = new Promise<DownloadRecord>((resolve) => {
      const listener = (r: DownloadRecord) => {
        if (!target && r.state === 'in_progress') target = r;
        if (target && r === target && r.state !== 'in_progress') resolve(claim(r));
      };
      this.listeners.add(listener);
      unsubscribe = () => this.listeners.delete(listener);
    });
    try {
      const racers: Promise<DownloadRecord>[] = [finished, d.expired()];
      if (guard) racers.push(guard());
      return await Promise.race(racers);
    } catch (err) {
      if (err instanceof TabwrightError) throw err;
      const t = target as DownloadRecord | undefined;
      throw new TabwrightError(
        'not_ready',
        t
          ? `Download ${t.download_id} was still in progress after ${d.timeoutMs} ms. Wait again with its download_id, or raise timeout_ms.`
          : `No download started within ${d.timeoutMs} ms. Trigger the download first, or raise timeout_ms.`,
        {
          retryable: true,
          details: {
            download_id: t?.download_id ?? null,
            state: t?.state ?? null,
            timeout_ms: d.timeoutMs,
            aborted: d.callerAborted(),
          },
        },
      );
    } finally {
      unsubscribe();
    }
  }
}

/** A file name that stays inside the folder: no separators, no leading dots, no control characters. */
export function safeFilename(suggested: string): string {
  const name = basename(suggested.replace(/\\/g, '/'))
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we strip.
    .replace(/[\u0000-\u001f\u007f/:*?"<>|]/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  return name === '' ? 'download' : name;
}
