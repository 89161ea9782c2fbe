import type { BackendPage, WaitUntil } from '../backends/backend.js';
import { evaluateOnRef, type SnapshotOptions, type SnapshotResult, takeSnapshot } from '../snapshot/index.js';
import { performAction } from './actions/perform.js';
import { type Located, locateTarget } from './actions/resolve.js';
import type { ActionOptions, ActionSpec, Receipt, Target } from './actions/types.js';
import { PageConsole } from './console.js';
import { Deadline, type OperationOptions } from './deadline.js';
import { type DialogRecord, PageDialogs } from './dialogs.js';
import type { DownloadStarted } from './downloads.js';
import { TabwrightError } from './errors.js';
import { FailSignal } from './fail-signal.js';
import { PageFileChoosers } from './file-choosers.js';
import { type FrameInfo, pageFrames } from './frames.js';
import { NetworkActivity } from './network-activity.js';
import { PageQueue } from './page-queue.js';
import { denied } from './policy.js';
import {
  captureScreenshot,
  type PageScreenshot,
  type ScreenshotRequestOptions,
  validateScreenshot,
} from './screenshots.js';
import { runScript, type ScriptResult } from './script.js';
import type { Session } from './session.js';
import { type StorageArea, storageGet, storageRemove, storageSet } from './storage.js';
import { assertNavigable } from './url-schemes.js';
import { type WaitConditions, type WaitRequestOptions, type WaitResult, waitOnPage } from './waits.js';

export const WAIT_UNTIL: readonly WaitUntil[] = ['load', 'domcontentloaded', 'networkidle'];

export interface PageInfo {
  page_id: string;
  session_id: string;
  url: string;
  title: string;
  active: boolean;
  opener_page_id: string | null;
}

export interface NavigationOutcome {
  page_id: string;
  url: string;
  title: string;
  status: number | null;
  /** The URL answered with a file instead of a page: it is being saved (Session.waitForDownload). */
  download?: DownloadStarted;
}

/** Viewport, full page, clip or element; see src/engine/screenshots.ts and docs/engine-signals.md. */
export type ScreenshotOptions = ScreenshotRequestOptions;

/**
 * One tab. Every operation goes through the page's queue, so operations on
 * one page run one at a time with a deadline that counts queueing; a dead
 * browser or a closed page fails the operation at once.
 */
export class Page {
  readonly queue = new PageQueue();
  private closedReason: 'closed' | 'crashed' | undefined;
  /** Rejects (page_not_found, reason crashed) when the renderer crashes: operations in flight fail at once. */
  /** Fails the page's pending calls when its renderer crashes (fail-signal.ts). */
  private readonly crash = new FailSignal();
  private lastTitle = '';

  /** JavaScript dialogs of this page, answered by the session's dialog policy or held for the caller. */
  readonly dialogs: PageDialogs;
  /** Requests of this page in flight (network idle waits, receipts). */
  readonly network: NetworkActivity;
  /** Console messages and uncaught errors (the last 500). */
  readonly console: PageConsole;
  /** File choosers the page opened (headless browsers; see src/engine/file-choosers.ts). */
  readonly fileChoosers: PageFileChoosers;

  constructor(
    readonly id: string,
    readonly session: Session,
    readonly backend: BackendPage,
    readonly openerPageId: string | null,
  ) {
    this.dialogs = new PageDialogs(this);
    this.network = new NetworkActivity(backend);
    this.console = new PageConsole(backend, session.secrets);
    this.fileChoosers = new PageFileChoosers(this);
    session.downloads.watch(this);
    session.requests.watch(this);
    // Registered before onClose (which a crash fires too), so the reason is "crashed".
    backend.onCrash(() => {
      this.closedReason = 'crashed';
      this.crash.fail(this.unusable());
    });
    backend.onClose(() => {
      this.closedReason ??= 'closed';
      session.forgetPage(this);
    });
  }

  /** Closed, or crashed (a crashed page is closed for every purpose but close()). */
  get closed(): boolean {
    return this.closedReason !== undefined || this.backend.isClosed();
  }

  /** The page's renderer crashed: nothing on it can be read or done; close it and open another. */
  get crashed(): boolean {
    return this.closedReason === 'crashed';
  }

  /**
   * The page's frames, main frame first, then every attached iframe in tree order, with whether the
   * session's origin policy allows each frame's document (no queueing: a plain read).
   */
  frames(): (FrameInfo & { allowed: boolean })[] {
    return pageFrames(this).map((f) => ({ ...f, allowed: this.session.policy.allowsDocument(f.url) }));
  }

  /** The URL as the browser knows it now (no queueing: a plain read). */
  url(): string {
    return this.backend.url();
  }

  info(): PageInfo {
    return {
      page_id: this.id,
      session_id: this.session.id,
      url: this.url(),
      title: this.lastTitle,
      active: this.session.activePageId === this.id,
      opener_page_id: this.openerPageId,
    };
  }

  /** info() with the title read now, bounded to 1 s and outside the queue (see Session.describePages). */
  async freshInfo(): Promise<PageInfo> {
    try {
      this.lastTitle = await this.backend.title(1000);
    } catch {
      // Keep the last known title: a busy or closing page must not fail a listing.
    }
    return this.info();
  }

  /** Runs `fn` in this page's queue under a deadline, failing fast on a dead browser or closed page. */
  async run<T>(
    name: string,
    kind: 'navigation' | 'read' | 'action',
    opts: OperationOptions | undefined,
    fn: (d: Deadline) => Promise<T>,
  ): Promise<T> {
    const deadline = Deadline.from(opts);
    this.assertUsable();
    // Once the work itself settled nothing waits on the deadline: its timer need not fire.
    const run = async (d: Deadline): Promise<T> => {
      try {
        return await fn(d);
      } finally {
        d.settle();
      }
    };
    return await this.queue.enqueue({ name, kind, run }, deadline, (work) =>
      this.session.guarded(this.crash.race(work)),
    );
  }

  assertUsable(): void {
    this.session.assertAlive();
    if (this.closed) throw this.unusable();
  }

  private unusable(): TabwrightError {
    if (this.crashed) {
      return new TabwrightError(
        'page_not_found',
        `Page ${this.id} crashed (its renderer process is gone): nothing on it can be read or done. Close it and open a new page; the session still works.`,
        { details: { page_id: this.id, reason: 'crashed' } },
      );
    }
    return new TabwrightError(
      'page_not_found',
      `Page ${this.id} is closed. List the session's pages (tab.list) and use another.`,
      { details: { page_id: this.id } },
    );
  }

  async title(opts?: OperationOptions): Promise<string> {
    return this.run('page.title', 'read', opts, (d) => this.readTitle(d));
  }

  private async readTitle(d: Deadline): Promise<string> {
    this.lastTitle = await this.backend.title(Math.max(1, d.remaining()));
    return this.lastTitle;
  }

  async open(
    url: string,
    waitUntil: WaitUntil = 'load',
    opts?: OperationOptions,
  ): Promise<NavigationOutcome> {
    const target = navigationTarget(url, this.session);
    return this.run('page.open', 'navigation', opts, async (d) => {
      const blockedBefore = this.session.network.lastSeq;
      const downloadsBefore = this.session.downloads.lastSeq;
      let download: DownloadStarted | null = null;
      const res = await this.backend
        .goto(target, waitUntil, Math.max(1, d.remaining()))
        .catch(async (err) => {
          // A redirect (or a hop of it) the origin policy stopped: say so instead of "network error".
          const refusal = this.session.network.refusalSince(this.id, blockedBefore);
          if (refusal) throw refusal;
          // A URL that is a file starts a download instead of a page: a result, not a failure.
          download = await this.session.downloads.startedBy(this.id, downloadsBefore, err);
          if (!download) throw err;
          return { url: this.backend.url(), status: null };
        });
      const outcome = await this.outcome(res.status, d);
      return download ? { ...outcome, download } : outcome;
    });
  }

  async back(waitUntil: WaitUntil = 'load', opts?: OperationOptions): Promise<NavigationOutcome> {
    return this.history('page.go_back', waitUntil, opts, (t) => this.backend.goBack(waitUntil, t));
  }

  async forward(waitUntil: WaitUntil = 'load', opts?: OperationOptions): Promise<NavigationOutcome> {
    return this.history('page.go_forward', waitUntil, opts, (t) => this.backend.goForward(waitUntil, t));
  }

  async reload(waitUntil: WaitUntil = 'load', opts?: OperationOptions): Promise<NavigationOutcome> {
    return this.run('page.reload', 'navigation', opts, async (d) => {
      const res = await this.backend.reload(waitUntil, Math.max(1, d.remaining()));
      return this.outcome(res.status, d);
    });
  }

  private async history(
    name: 'page.go_back' | 'page.go_forward',
    _waitUntil: WaitUntil,
    opts: OperationOptions | undefined,
    go: (timeoutMs: number) => Promise<{ url: string; status: number | null }>,
  ): Promise<NavigationOutcome> {
    return this.run(name, 'navigation', opts, async (d) => {
      const hasEntry = await this.backend.evaluate(
        (dir: number) => {
          // The Navigation API knows whether there is an entry to go to.
          const nav = (globalThis as { navigation?: { canGoBack: boolean; canGoForward: boolean } })
            .navigation;
          return nav ? (dir < 0 ? nav.canGoBack : nav.canGoForward) : true;
        },
        name === 'page.go_back' ? -1 : 1,
        Math.max(1, d.remaining()),
      );
      if (!hasEntry) {
        throw new TabwrightError(
          'invalid_request',
          `Cannot ${name === 'page.go_back' ? 'go back' : 'go forward'}: this page has no history entry in that direction. Open a URL instead.`,
          { details: { page_id: this.id, reason: 'no_history' } },
        );
      }
      const res = await go(Math.max(1, d.remaining()));
      return this.outcome(res.status, d);
    });
  }

  private async outcome(status: number | null, d: Deadline): Promise<NavigationOutcome> {
    const url = this.backend.url();
    const title = await this.readTitle(d).catch(() => this.lastTitle);
    return { page_id: this.id, url, title, status };
  }

  /** Viewport (default), full page (cut at 16384 px, see `truncated`), clip (document coordinates) or one element. */
  async screenshot(req: ScreenshotOptions = {}, opts?: OperationOptions): Promise<PageScreenshot> {
    validateScreenshot(req);
    return this.run('page.screenshot', 'read', opts, (d) => captureScreenshot(this, req, d));
  }

  /** Waits until the conditions hold (all, or any with mode "any"); not_ready with details at the deadline. */
  async wait(
    conditions: WaitConditions,
    req: WaitRequestOptions = {},
    opts?: OperationOptions,
  ): Promise<WaitResult> {
    return waitOnPage(this, conditions, req, opts);
  }

  /** The dialog held for the caller (dialog policy "hold"), or null. */
  pendingDialog(): DialogRecord | null {
    return this.dialogs.pending();
  }

  /** Answers the held dialog; outside the queue, because the operation that opened it may still be waiting. */
  async handleDialog(req: { accept: boolean; prompt_text?: string }): Promise<DialogRecord> {
    this.assertUsable();
    return this.dialogs.handle(req);
  }

  /**
   * Refuses with permission_denied when this page's document, or one of
   * `frameUrls` (the frame an action targets), is outside the session's
   * origin policy. Actions call it before dispatch.
   */
  assertPageAllowed(frameUrls: string[] = []): void {
    this.session.network.assertAllowed(this, frameUrls);
  }

  /** Evaluates a function in the page (engine-internal callers: snapshot, waits). */
  async evaluate<R, A>(
    name: string,
    fn: (arg: A) => R | Promise<R>,
    arg: A,
    opts?: OperationOptions,
  ): Promise<R> {
    return this.run(name, 'read', opts, (d) => this.backend.evaluate(fn, arg, Math.max(1, d.remaining())));
  }

  /**
   * One guarded action with a receipt (see src/engine/actions/): resolve
   * exactly one target, refuse with a reason or dispatch trusted input once,
   * then report what changed. `target` may be omitted for press and scroll.
   */
  async act(target: Target | undefined, spec: ActionSpec, opts?: ActionOptions): Promise<Receipt> {
    return performAction(this, target, spec, opts);
  }

  /**
   * The one element a target names (selector, text, role, ref; with `frame` / `nth` as in actions),
   * as a ref, without acting on it: for callers that read or picture the element an action would hit.
   */
  async locate(target: Target, opts?: OperationOptions): Promise<Located> {
    return this.run('page.locate', 'read', opts, (d) => locateTarget(this, target, d));
  }

  /**
   * Runs caller JavaScript in the main frame (or `frame`, an engine frame id
   * from pageFrames()): an expression, a function
   * expression (called with `args`) or a statement body using `return`.
   * Promises are awaited; page exceptions are invalid_request/script_error.
   */
  async evaluateScript(
    source: string,
    opts: OperationOptions & { args?: unknown[]; frame?: string } = {},
  ): Promise<ScriptResult> {
    // The one secret rule: values the session knows are secret do not come back through scripts either.
    const result = await this.run('page.eval', 'action', opts, (d) =>
      runScript(this, source, opts.args ?? [], d, opts.frame),
    );
    return this.session.secrets.scrub(result);
  }

  /** localStorage / sessionStorage of the current document: all keys, or one value (null when absent). */
  async storageGet(
    area: StorageArea,
    key?: string,
    opts?: OperationOptions,
  ): Promise<Record<string, string> | string | null> {
    return this.run('storage.get', 'read', opts, (d) => storageGet(this, area, key, d));
  }

  async storageSet(area: StorageArea, key: string, value: string, opts?: OperationOptions): Promise<void> {
    await this.run('storage.set', 'action', opts, (d) => storageSet(this, area, key, value, d));
  }

  /** Removes one key, or clears the area without a key. */
  async storageRemove(area: StorageArea, key?: string, opts?: OperationOptions): Promise<void> {
    await this.run('storage.remove', 'action', opts, (d) => storageRemove(this, area, key, d));
  }

  /** The page model, its agent text and elements (see src/snapshot/). */
  async snapshot(options: SnapshotOptions = {}, opts?: OperationOptions): Promise<SnapshotResult> {
    return this.run('page.snapshot', 'read', opts, (d) => takeSnapshot(this, options, d));
  }

  /** Runs fn(element, arg) on the element behind a snapshot ref; stale refs fail with element_not_found. */
  async evaluateRef<R, A>(
    ref: string,
    fn: string | ((el: Element, arg: A) => R | Promise<R>),
    arg: A,
    opts?: OperationOptions,
  ): Promise<R> {
    return this.run('page.eval_ref', 'read', opts, (d) => evaluateOnRef(this, ref, fn, arg, d));
  }

  async bringToFront(opts?: OperationOptions): Promise<void> {
    await this.run('tab.activate', 'action', opts, () => this.backend.bringToFront());
  }

  /** Closes the tab (a crashed one too: its tab stays in the browser until closed). */
  async close(): Promise<void> {
    if (this.closedReason === 'closed' || this.backend.isClosed()) return;
    this.closedReason ??= 'closed';
    this.session.forgetPage(this);
    await this.backend.close();
  }
}

/**
 * The URL `page.open` / `tab.new` go to: normalized (bare host names get a scheme), then refused
 * unless the engine opens its scheme (url-schemes.ts: file: only with allowFileUrls) and the
 * session's origin policy allows it. Throws before any tab is touched.
 */
export function navigationTarget(url: string, session: Session): string {
  const target = normalizeUrl(url);
  assertNavigable(new URL(target), { allowFileUrls: session.allowFileUrls });
  if (!session.policy.allowsDocument(target)) throw denied(target, 'Navigation');
  return target;
}

function normalizeUrl(url: string): string {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new TabwrightError(
      'invalid_request',
      'url is required: pass an absolute URL such as https://example.com.',
      {
        details: { field: 'url' },
      },
    );
  }
  const trimmed = url.trim();
  try {
    return new URL(trimmed).href;
  } catch {
    // Bare host names ("example.com/path") get https://, as a user would expect from an address bar.
    if (/^[a-z0-9.-]+\.[a-z]{2,}(:\d+)?(\/.*)?$/i.test(trimmed)) return new URL(`https://${trimmed}`).href;
    if (/^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/.*)?$/i.test(trimmed))
      return new URL(`http://${trimmed}`).href;
    throw new TabwrightError(
      'invalid_request',
      `"${trimmed}" is not a valid URL; pass an absolute URL such as https://example.com.`,
      {
        details: { field: 'url' },
      },
    );
  }
}
