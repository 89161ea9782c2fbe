import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendBrowser, BackendContext, BackendPage } from '../backends/backend.js';
import { waitGone } from '../backends/process-tree.js';
import { Deadline, type OperationOptions, settlesWithin } from './deadline.js';
import {
  DEFAULT_DIALOG_POLICY,
  type DialogPolicy,
  type DialogPolicyInput,
  parseDialogPolicy,
} from './dialogs.js';
import { type DownloadRecord, SessionDownloads } from './downloads.js';
import { TabwrightError } from './errors.js';
import { FailSignal } from './fail-signal.js';
import {
  type HttpCredentialsInput,
  type HttpCredentialsScope,
  setHttpCredentials,
} from './http-credentials.js';
import type { IdSource } from './ids.js';
import { log } from './log.js';
import { NetworkLog } from './network-log.js';
import { type BlockedRequest, NetworkPolicy } from './network-policy.js';
import { navigationTarget, Page, type PageInfo } from './page.js';
import type { OriginPolicy } from './policy.js';
import type { PolicyProxy } from './policy-proxy.js';
import { SessionRoutes } from './routes.js';
import { SecretRegistry } from './semantics/secret-registry.js';
import type { Cookie } from './storage.js';

export type SessionKind = 'ephemeral' | 'persistent' | 'attach' | 'remote';

export interface SessionInfo {
  session_id: string;
  kind: SessionKind;
  browser_family: string;
  browser_label: string;
  browser_version: string;
  attached_to_existing_browser: boolean;
  profile: string | null;
  endpoint: string | null;
  default_page_id: string | null;
  page_count: number;
  alive: boolean;
}

export interface SessionParts {
  id: string;
  kind: SessionKind;
  browser: BackendBrowser;
  context: BackendContext;
  /** Whether closing the session closes the browser (persistent, remote) or leaves it (ephemeral: shared; attach: the user's). */
  ownsBrowser: boolean;
  profile?: string;
  /** Persistent: whether the profile's directory was there before this session (false: created now, no logins). */
  profileExisted?: boolean;
  endpoint?: string;
  policy: OriginPolicy;
  pageIds: IdSource;
  /** Where downloads are saved (`<home>/downloads/<session_id>`); default under the OS temp dir. */
  downloadsDir?: string;
  /** Record every request (network.list / bodies). Default true. */
  networkRecording?: boolean;
  /** EngineOptions.allowFileUrls: page.open and fetches may use file: URLs (url-schemes.ts). Default false. */
  allowFileUrls?: boolean;
  /** The policy proxy the context sends everything through (restricted sessions in launched browsers). */
  proxy?: PolicyProxy;
  /**
   * Called when the session's close did not finish within its deadline (what Session.close did about
   * it is in `stuck`): the engine reports it and, for a shared browser, retires that browser.
   */
  onStuckClose?: (session: Session, stuck: StuckClose) => Promise<void>;
}

/** What a close that did not finish in time left to its owner (SessionParts.onStuckClose). */
export interface StuckClose {
  /** The step that did not finish: closing the context, or the browser (attach: disconnecting). */
  step: 'context' | 'browser';
  /** The browser was the session's own and was closed, or killed with its temporary profile removed. */
  browserClosed: boolean;
  timeoutMs: number;
}

/** How long a browser-level close may take after a context did not close in time, before a kill. */
const BROWSER_CLOSE_GRACE_MS = 2_000;
/**
 * A close's deadline when the caller gives none: longer than other operations' 10 s, because a
 * close that runs out kills a browser of the session's own, and a persistent profile's last writes
 * (cookies) may then be lost; a busy machine can take more than 10 s to close Firefox.
 */
const CLOSE_TIMEOUT_MS = 30_000;

/**
 * A session: one browser context and its tabs. Pages opened by the page
 * itself (window.open, target=_blank) are adopted with their own ids.
 */
export class Session {
  readonly id: string;
  readonly kind: SessionKind;
  readonly browser: BackendBrowser;
  readonly context: BackendContext;
  readonly policy: OriginPolicy;
  /** Whether file: URLs may be opened and fetched (off unless the Engine was created with allowFileUrls). */
  readonly allowFileUrls: boolean;
  readonly profile: string | null;
  /** Persistent: whether its profile directory existed before this session started; null otherwise. */
  readonly profileExisted: boolean | null;
  readonly endpoint: string | null;
  private readonly ownsBrowser: boolean;
  private readonly pageIds: IdSource;
  private readonly proxy: PolicyProxy | undefined;
  private readonly onStuckClose: SessionParts['onStuckClose'];
  private readonly pagesById = new Map<string, Page>();
  private readonly pagesByBackend = new Map<BackendPage, Page>();
  private closed = false;
  private browserGone = false;
  /** Fails the session's pending calls when its browser dies or it closes (fail-signal.ts). */
  private readonly death = new FailSignal();
  activePageId: string | null = null;
  /** Enforces `policy` on the context's requests (see network-policy.ts). */
  readonly network: NetworkPolicy;
  readonly downloads: SessionDownloads;
  /** Secret values the session's pages got or hold, scrubbed from every output (semantics/secret-registry.ts). */
  readonly secrets = new SecretRegistry();
  /** Every request of the session's pages, with xhr/fetch bodies (see network-log.ts). */
  readonly requests: NetworkLog;
  /** Abort / mock routes of the session's context (see routes.ts). */
  readonly routes: SessionRoutes;
  /** How JavaScript dialogs are answered; see dialogs.ts for the default. */
  dialogPolicy: DialogPolicy = DEFAULT_DIALOG_POLICY;

  constructor(parts: SessionParts) {
    this.id = parts.id;
    this.kind = parts.kind;
    this.browser = parts.browser;
    this.context = parts.context;
    this.policy = parts.policy;
    this.allowFileUrls = parts.allowFileUrls ?? false;
    this.profile = parts.profile ?? null;
    this.profileExisted = parts.profileExisted ?? null;
    this.endpoint = parts.endpoint ?? null;
    this.ownsBrowser = parts.ownsBrowser;
    this.pageIds = parts.pageIds;
    this.network = new NetworkPolicy(parts.policy, (bp) => this.pagesByBackend.get(bp));
    this.proxy = parts.proxy;
    this.onStuckClose = parts.onStuckClose;
    if (this.proxy) this.proxy.judge = (attempt) => this.network.judgeProxied(attempt);
    this.downloads = new SessionDownloads(
      parts.downloadsDir ?? join(tmpdir(), 'tabwright-downloads', parts.id),
    );
    this.requests = new NetworkLog(parts.networkRecording ?? true, this.secrets);
    this.routes = new SessionRoutes(parts.context);
    parts.browser.onDisconnected(() => this.markBrowserGone());
    parts.context.onPage((bp) => {
      void this.adopt(bp);
    });
    for (const bp of parts.context.pages()) void this.adopt(bp);
  }

  /** close() has begun (its options were valid): the session takes no more calls. */
  get closeStarted(): boolean {
    return this.closed;
  }

  get alive(): boolean {
    return !this.closed && !this.browserGone && this.browser.isConnected();
  }

  private markBrowserGone(): void {
    if (this.browserGone) return;
    this.browserGone = true;
    void this.proxy?.close();
    if (this.closed) return;
    log.warn({ session_id: this.id, kind: this.kind }, 'browser disconnected; session is dead');
    this.death.fail(this.notRunning());
  }

  private notRunning(): TabwrightError {
    return new TabwrightError(
      'browser_not_running',
      `The browser of session ${this.id} is no longer running (it crashed, was killed or disconnected). Start a new session; tabwright relaunches the browser.`,
      { retryable: true, details: { session_id: this.id } },
    );
  }

  assertAlive(): void {
    if (this.closed) {
      throw new TabwrightError('session_not_found', `Session ${this.id} was closed. Start a new session.`, {
        details: { session_id: this.id },
      });
    }
    if (this.browserGone || !this.browser.isConnected()) {
      this.markBrowserGone();
      throw this.notRunning();
    }
  }

  /**
   * A promise that rejects when the browser dies. Its listener stays until then: for a call that
   * can use a plain race, prefer guarded(), which keeps nothing once the call settles.
   */
  deathGuard(): Promise<never> {
    if (this.browserGone) return Promise.reject(this.notRunning());
    return this.death.rejection();
  }

  /** `work`, failed at once with browser_not_running if the browser dies first (session_not_found on close). */
  guarded<T>(work: Promise<T>): Promise<T> {
    if (this.browserGone) {
      work.catch(() => {});
      return Promise.reject(this.notRunning());
    }
    return this.death.race(work);
  }

  /** Calls waiting on the session's death guard now: bounded by the calls in flight. */
  get pendingGuards(): number {
    return this.death.size;
  }

  /** Registers a backend page (ours, or opened by the page) and returns its engine Page. */
  adoptSync(bp: BackendPage, openerPageId: string | null): Page {
    const existing = this.pagesByBackend.get(bp);
    if (existing) return existing;
    const page = new Page(this.pageIds.next(), this, bp, openerPageId);
    this.pagesById.set(page.id, page);
    this.pagesByBackend.set(bp, page);
    if (!this.activePageId) this.activePageId = page.id;
    for (const l of this.pageListeners) l(page);
    return page;
  }

  private readonly pageListeners = new Set<(page: Page) => void>();

  /** Calls `listener` with every page the session adopts from now on (ours and popups); returns an unsubscribe. */
  onPageAdded(listener: (page: Page) => void): () => void {
    this.pageListeners.add(listener);
    return () => this.pageListeners.delete(listener);
  }

  private async adopt(bp: BackendPage): Promise<void> {
    if (this.pagesByBackend.has(bp) || bp.isClosed()) return;
    // Register first (so the page has an id at once), then fill in the opener.
    const page = this.adoptSync(bp, null);
    const opener = await bp.opener();
    if (opener) {
      const op = this.pagesByBackend.get(opener);
      if (op) (page as { openerPageId: string | null }).openerPageId = op.id;
    }
  }

  forgetPage(page: Page): void {
    this.pagesById.delete(page.id);
    this.pagesByBackend.delete(page.backend);
    if (this.activePageId === page.id) this.activePageId = this.pagesById.keys().next().value ?? null;
  }

  pages(): Page[] {
    return [...this.pagesById.values()].filter((p) => !p.closed);
  }

  /** Open pages with the titles last read (no browser round trip). */
  listPages(): PageInfo[] {
    return this.pages().map((p) => p.info());
  }

  /**
   * Open pages with fresh titles. Titles are read outside the page queues
   * (a busy page answers with its last known title after ~1 s), so listing
   * tabs never waits behind a slow navigation.
   */
  async describePages(): Promise<PageInfo[]> {
    this.assertAlive();
    return Promise.all(this.pages().map((p) => p.freshInfo()));
  }

  /** The named page, or the active one when no id is given. */
  page(pageId?: string | null): Page {
    this.assertAlive();
    const id = pageId ?? this.activePageId;
    const page = id ? this.pagesById.get(id) : undefined;
    if (!page || page.closed) {
      throw new TabwrightError(
        'page_not_found',
        id
          ? `Page ${id} is not open in session ${this.id}. Call tab.list for the open pages.`
          : `Session ${this.id} has no open page. Open one with tab.new or page.open.`,
        { details: { session_id: this.id, page_id: id ?? null } },
      );
    }
    return page;
  }

  hasPage(pageId: string): boolean {
    return this.pagesById.has(pageId);
  }

  async newPage(opts?: OperationOptions & { url?: string; activate?: boolean }): Promise<Page> {
    this.assertAlive();
    // A refused URL fails before a tab is opened for it.
    if (opts?.url) navigationTarget(opts.url, this);
    const bp = await this.guarded(this.context.newPage());
    const page = this.adoptSync(bp, null);
    if (opts?.activate !== false) this.activePageId = page.id;
    if (opts?.url) await page.open(opts.url, 'load', opts);
    return page;
  }

  async activate(pageId: string, opts?: OperationOptions): Promise<Page> {
    const page = this.page(pageId);
    this.activePageId = page.id;
    await page.bringToFront(opts);
    return page;
  }

  async closePage(pageId: string): Promise<void> {
    const page = this.page(pageId);
    await page.close();
  }

  /** Installs the origin policy's request filter (nothing for an unrestricted policy). */
  async enforcePolicy(): Promise<void> {
    await this.network.install(this.context);
  }

  /** Sets the dialog policy: one action for all types or per type; returns the policy now in force. */
  setDialogPolicy(input: DialogPolicyInput): DialogPolicy {
    this.dialogPolicy = parseDialogPolicy(input, this.dialogPolicy);
    return this.dialogPolicy;
  }

  /**
   * HTTP authentication for every tab of the session, live (http-credentials.ts): answered only on a
   * 401 challenge and only for the scoped origins; null clears. Returns the origins (null = any).
   */
  async setHttpCredentials(input: HttpCredentialsInput | null): Promise<HttpCredentialsScope> {
    return setHttpCredentials(this, input);
  }

  /** Requests the origin policy blocked (the last 200), optionally after a seq and for one page. */
  blockedRequests(filter: { since_seq?: number; page_id?: string } = {}): BlockedRequest[] {
    return this.secrets.scrubRecord(this.network.blocked(filter));
  }

  /** Cookies of the session's browser context, optionally only those sent to `urls`. */
  async cookies(opts: { urls?: string[] } = {}): Promise<Cookie[]> {
    this.assertAlive();
    return this.guarded(this.context.cookieJar.cookies(opts.urls));
  }

  /** Adds cookies; each needs name, value and either url or domain + path. */
  async setCookies(
    cookies: (Partial<Cookie> & { name: string; value: string; url?: string })[],
  ): Promise<void> {
    this.assertAlive();
    for (const c of cookies) {
      if (
        !c ||
        typeof c.name !== 'string' ||
        typeof c.value !== 'string' ||
        (!c.url && !(c.domain && c.path))
      ) {
        throw new TabwrightError(
          'invalid_request',
          'Each cookie needs name, value, and url or domain + path.',
          {
            details: { field: 'cookies' },
          },
        );
      }
    }
    await this.guarded(this.context.cookieJar.addCookies(cookies));
  }

  async clearCookies(): Promise<void> {
    this.assertAlive();
    await this.guarded(this.context.cookieJar.clearCookies());
  }

  /** The session's downloads, oldest first, optionally after a seq. */
  listDownloads(sinceSeq = 0): DownloadRecord[] {
    return this.secrets.scrubRecord(this.downloads.list(sinceSeq));
  }

  /** Waits for a download (by id, else the newest in progress or the next to start) to complete or fail. */
  async waitForDownload(
    req: { download_id?: string } = {},
    opts?: OperationOptions,
  ): Promise<DownloadRecord> {
    this.assertAlive();
    return this.downloads.wait(req, opts, () => this.deathGuard());
  }

  info(): SessionInfo {
    return {
      session_id: this.id,
      kind: this.kind,
      browser_family: this.browser.family,
      browser_label: this.browser.label,
      browser_version: this.browser.isConnected() ? this.browser.version() : 'unknown',
      attached_to_existing_browser: this.kind === 'attach',
      profile: this.profile,
      endpoint: this.endpoint,
      default_page_id: this.activePageId,
      page_count: this.pagesById.size,
      alive: this.alive,
    };
  }

  /**
   * Ephemeral: closes its context (the shared browser stays). Persistent and
   * remote: closes what we opened. Attach: disconnects and leaves the user's
   * browser and tabs alone.
   *
   * Bounded by the operation's deadline (default 30 s): a context that does not close in time is not
   * waited for. A browser of the session's own is then closed at browser level, or killed with its
   * temporary profile removed; a shared one is the engine's to retire (onStuckClose), which also
   * reports the stuck close. Either way the call returns.
   */
  async close(opts: OperationOptions = {}): Promise<void> {
    if (this.closed) return;
    const deadline = Deadline.from({ ...opts, timeoutMs: opts.timeoutMs ?? CLOSE_TIMEOUT_MS });
    this.closed = true;
    this.death.fail(
      new TabwrightError('session_not_found', `Session ${this.id} was closed.`, {
        details: { session_id: this.id },
      }),
    );
    try {
      const stuck = await this.closeBrowserSide(deadline);
      if (stuck) await this.onStuckClose?.(this, stuck);
    } finally {
      this.secrets.dispose();
      // After the context: its last requests (a pagehide beacon) are still judged, then the port closes.
      await this.proxy?.close();
    }
  }

  /** Closes what the session's kind closes; what did not finish in time, or null. */
  private async closeBrowserSide(deadline: Deadline): Promise<StuckClose | null> {
    if (!this.browser.isConnected()) return null;
    const timeoutMs = deadline.timeoutMs;
    if (this.kind === 'attach') {
      // Only a disconnect: the browser is the user's, so nothing of it may be killed.
      if (await settlesWithin(this.browser.close(), deadline.remaining())) return null;
      return { step: 'browser', browserClosed: false, timeoutMs };
    }
    const contextClosed = await settlesWithin(this.context.close(), deadline.remaining());
    const ownBrowser = this.kind === 'remote' || this.ownsBrowser;
    if (!ownBrowser) return contextClosed ? null : { step: 'context', browserClosed: false, timeoutMs };
    if (contextClosed && (await settlesWithin(this.browser.close(), deadline.remaining()))) return null;
    const step = contextClosed ? 'browser' : 'context';
    // A hung browser of our own: one more bounded close, then the kill (a launched process and its
    // temporary profile; a Grid session is released; a remote server's browser is only disconnected).
    if (!(await settlesWithin(this.browser.close(), BROWSER_CLOSE_GRACE_MS))) {
      this.browser.forceClose();
      // Until the killed process is reaped its profile lock names a live process: the profile is free
      // for the next session only once it is gone.
      const pid = this.browser.launchedProcess()?.pid;
      if (pid !== undefined) await waitGone(pid, BROWSER_CLOSE_GRACE_MS);
    }
    return { step, browserClosed: true, timeoutMs };
  }
}
