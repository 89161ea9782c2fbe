import type { ChildProcess } from 'node:child_process';
import type { BrowsingContext, Log, Network } from 'webdriver-bidi-protocol';
import { CLOSED_SHADOW_INIT } from '../../snapshot/injected/bundle.generated.js';
import type { BackendBrowser, BackendContext, ContextNetworkOptions } from '../backend.js';
import { forceClose, killGroup, type LaunchedProcess, removeDirectories, waitGone } from '../process-tree.js';
import type { RawBackendOps } from '../raw.js';
import type { BidiConnection } from './bidi-connection.js';
import { FirefoxContext } from './firefox-context.js';
import { FirefoxPage } from './firefox-page.js';
import { FirefoxRequest } from './network.js';
import { firefoxRaw } from './raw.js';
import { translateBidiError } from './translate-error.js';

export type FirefoxConnection = 'launched' | 'persistent' | 'attach';

/** Every event the backend listens to, subscribed once for the whole browser. */
const EVENTS = [
  'browsingContext.contextCreated',
  'browsingContext.contextDestroyed',
  'browsingContext.navigationStarted',
  'browsingContext.navigationCommitted',
  'browsingContext.fragmentNavigated',
  'browsingContext.historyUpdated',
  'browsingContext.load',
  'browsingContext.userPromptOpened',
  'browsingContext.downloadWillBegin',
  'browsingContext.downloadEnd',
  'log.entryAdded',
  'network.beforeRequestSent',
  'network.responseStarted',
  'network.responseCompleted',
  'network.fetchError',
  'network.authRequired',
  'input.fileDialogOpened',
];

/** Most bytes of one body Firefox keeps for the request log (requests and responses). */
const MAX_COLLECTED_BODY = 16 * 1024 * 1024;

export interface FirefoxBrowserOptions {
  connection: FirefoxConnection;
  version: string;
  headless: boolean;
  child?: ChildProcess;
  launched?: LaunchedProcess;
  downloadsDir?: string;
}

/**
 * A Firefox process behind one WebDriver BiDi session. Sessions are BiDi user contexts (cookies,
 * storage and proxy of their own); tabs are top-level browsing contexts. The browser owns the
 * event stream and hands each event to the page or context it belongs to.
 */
export class FirefoxBrowser implements BackendBrowser {
  readonly family = 'firefox' as const;
  readonly label = 'Firefox';
  private readonly tops = new Map<string, FirefoxPage>();
  /** Child browsing context → its tab. */
  private readonly frameTop = new Map<string, string>();
  private readonly contexts = new Map<string, FirefoxContext>();
  /** One network intercept per phase, added when first needed; forgotten if adding it failed. */
  private readonly intercepts = new Map<Network.InterceptPhase, Promise<string>>();
  private fileChoosersIntercepted = false;

  private constructor(
    readonly conn: BidiConnection,
    private readonly opts: FirefoxBrowserOptions,
  ) {}

  /** Subscribes to the events, learns the tabs that exist, and prepares downloads. */
  static async open(conn: BidiConnection, opts: FirefoxBrowserOptions): Promise<FirefoxBrowser> {
    const b = new FirefoxBrowser(conn, opts);
    b.listen();
    await conn.send('session.subscribe', { events: EVENTS as [string, ...string[]] });
    // Headless: nobody could see a native file picker, so it is reported and dismissed (session.new
    // set the "file" prompt handler); headed, the person's picker opens as usual.
    b.fileChoosersIntercepted = opts.headless;
    if (opts.downloadsDir)
      await conn
        .send('browser.setDownloadBehavior', {
          downloadBehavior: { type: 'allowed', destinationFolder: opts.downloadsDir },
        })
        .catch(() => {});
    const tree = await conn.send('browsingContext.getTree', {});
    for (const info of tree.contexts) b.contextCreated(info, true);
    return b;
  }

  private listen(): void {
    const c = this.conn;
    c.on<BrowsingContext.Info>('browsingContext.contextCreated', (p) => this.contextCreated(p, false));
    c.on<BrowsingContext.Info>('browsingContext.contextDestroyed', (p) => this.contextDestroyed(p));
    c.on<BrowsingContext.NavigationInfo>('browsingContext.navigationStarted', (p) =>
      this.pageOf(p.context)?.navigationStarted(p.context, p.navigation),
    );
    c.on<BrowsingContext.NavigationInfo>('browsingContext.navigationCommitted', (p) =>
      this.pageOf(p.context)?.navigated(p.context, p.url, true),
    );
    c.on<BrowsingContext.NavigationInfo>('browsingContext.fragmentNavigated', (p) =>
      this.pageOf(p.context)?.navigated(p.context, p.url, false),
    );
    c.on<BrowsingContext.HistoryUpdatedParameters>('browsingContext.historyUpdated', (p) =>
      this.pageOf(p.context)?.navigated(p.context, p.url, false),
    );
    c.on<BrowsingContext.NavigationInfo>('browsingContext.load', (p) =>
      this.pageOf(p.context)?.loaded(p.context, p.url),
    );
    c.on<BrowsingContext.UserPromptOpenedParameters>('browsingContext.userPromptOpened', (p) =>
      this.pageOf(p.context)?.promptOpened(p),
    );
    c.on<BrowsingContext.DownloadWillBeginParams>('browsingContext.downloadWillBegin', (p) =>
      this.pageOf(p.context)?.downloadStarted(p),
    );
    c.on<BrowsingContext.DownloadEndParams>('browsingContext.downloadEnd', (p) => {
      if (this.pageOf(p.context)?.downloadEnded(p)) return;
      // The tab that started it may be gone (a download opened in a new window closes it).
      for (const page of this.tops.values()) if (page.downloadEnded(p)) return;
    });
    c.on<Log.Entry>('log.entryAdded', (e) => {
      const ctx = (e.source as { context?: string }).context;
      if (ctx) this.pageOf(ctx)?.logEntry(e);
    });
    c.on<Network.BeforeRequestSentParameters>('network.beforeRequestSent', (p) => this.beforeRequest(p));
    c.on<Network.ResponseStartedParameters>('network.responseStarted', (p) => this.toPage('response', p));
    c.on<Network.ResponseCompletedParameters>('network.responseCompleted', (p) => this.toPage('finished', p));
    c.on<Network.FetchErrorParameters>('network.fetchError', (p) => this.toPage('failed', p));
    c.on<Network.AuthRequiredParameters>('network.authRequired', (p) => this.authRequired(p));
    c.on<{ context: string; element?: { sharedId: string }; multiple: boolean }>(
      'input.fileDialogOpened',
      (p) => this.pageOf(p.context)?.fileDialogOpened(p),
    );
  }

  pageOf(contextId: string | null | undefined): FirefoxPage | undefined {
    if (!contextId) return undefined;
    return this.tops.get(contextId) ?? this.tops.get(this.frameTop.get(contextId) ?? '');
  }

  private contextCreated(info: BrowsingContext.Info, fromTree: boolean): void {
    const parent = info.parent ?? null;
    if (parent === null) {
      if (this.tops.has(info.context)) return;
      const page = new FirefoxPage(
        this.conn,
        info.context,
        info.url,
        info.userContext,
        info.originalOpener ?? null,
        () => this.isConnected(),
        (id) => this.pageOf(id),
        this.fileChoosersIntercepted,
      );
      this.tops.set(info.context, page);
      this.contextFor(info.userContext)?.pageAppeared(page);
    } else {
      const top = this.tops.has(parent) ? parent : this.frameTop.get(parent);
      const page = top ? this.tops.get(top) : undefined;
      if (!page || !top) return;
      this.frameTop.set(info.context, top);
      page.frameAttached(info);
    }
    if (fromTree)
      for (const child of info.children ?? []) this.contextCreated({ ...child, parent: info.context }, true);
  }

  private contextDestroyed(info: BrowsingContext.Info): void {
    const page = this.tops.get(info.context);
    if (page) {
      this.tops.delete(info.context);
      for (const [child, top] of this.frameTop) if (top === info.context) this.frameTop.delete(child);
      page.markClosed();
      return;
    }
    const top = this.frameTop.get(info.context);
    if (!top) return;
    this.frameTop.delete(info.context);
    this.tops.get(top)?.frameDetached(info.context);
  }

  private contextFor(userContext: string | null | undefined): FirefoxContext | undefined {
    return userContext ? this.contexts.get(userContext) : undefined;
  }

  private beforeRequest(p: Network.BeforeRequestSentParameters): void {
    const page = this.pageOf(p.context);
    const blocked = p.isBlocked && (p.intercepts?.length ?? 0) > 0;
    if (blocked) {
      const ctx = this.contextFor(p.userContext ?? page?.userContext);
      if (ctx) void ctx.intercepted(p, page ?? null);
      else void this.conn.send('network.continueRequest', { request: p.request.request }).catch(() => {});
    }
    page?.network('request', new FirefoxRequest(this.conn, p));
  }

  private toPage(phase: 'response' | 'finished' | 'failed', p: Network.BaseParameters): void {
    this.pageOf(p.context)?.network(phase, new FirefoxRequest(this.conn, p));
  }

  private authRequired(p: Network.AuthRequiredParameters): void {
    if (!p.isBlocked) return;
    const ctx = this.contextFor(p.userContext ?? this.pageOf(p.context)?.userContext);
    const cred = ctx?.credentialFor(p.request.url);
    void this.conn
      .send(
        'network.continueWithAuth',
        cred
          ? {
              request: p.request.request,
              action: 'provideCredentials',
              credentials: { type: 'password', username: cred.username, password: cred.password },
            }
          : { request: p.request.request, action: 'cancel' },
      )
      .catch(() => {});
  }

  /** The one request intercept of the browser, added when a context first filters or routes. */
  ensureIntercept(): Promise<string> {
    return this.intercept('beforeRequestSent');
  }

  /** The one auth intercept, added when a context first sets HTTP credentials. */
  ensureAuthIntercept(): Promise<string> {
    return this.intercept('authRequired');
  }

  private intercept(phase: Network.InterceptPhase): Promise<string> {
    let id = this.intercepts.get(phase);
    if (!id) {
      id = this.conn.send('network.addIntercept', { phases: [phase] }).then((r) => r.intercept);
      this.intercepts.set(phase, id);
      id.catch(() => this.intercepts.delete(phase));
    }
    return id;
  }

  version(): string {
    return this.opts.version;
  }

  isConnected(): boolean {
    return this.conn.isOpen;
  }

  onDisconnected(listener: () => void): void {
    this.conn.onClosed(listener);
  }

  pagesOf(userContext: string): FirefoxPage[] {
    return [...this.tops.values()].filter((p) => p.userContext === userContext && !p.isClosed());
  }

  /** Wraps a user context (once) with the browser-side setup every context gets. */
  async adoptContext(userContext: string, owned: boolean): Promise<FirefoxContext> {
    let ctx = this.contexts.get(userContext);
    if (ctx) return ctx;
    ctx = new FirefoxContext(this, userContext, owned);
    this.contexts.set(userContext, ctx);
    const userContexts: [string] = [userContext];
    await Promise.all([
      // Chromium's viewport under tabwright, for every tab of the context (popups too).
      this.conn
        .send('browsingContext.setViewport', { viewport: { width: 1280, height: 800 }, userContexts })
        .catch(() => {}),
      // Lets the snapshot walker see closed shadow roots in documents created from now on.
      this.conn
        .send('script.addPreloadScript', {
          functionDeclaration: `() => { ${CLOSED_SHADOW_INIT} }`,
          userContexts,
        })
        .catch(() => {}),
      // Request and response bodies for the request log (Firefox keeps them only when asked first).
      this.conn
        .send('network.addDataCollector', {
          dataTypes: ['request', 'response'],
          maxEncodedDataSize: MAX_COLLECTED_BODY,
          userContexts,
        })
        .catch(() => {}),
    ]);
    return ctx;
  }

  forgetContext(userContext: string): void {
    this.contexts.delete(userContext);
  }

  async newContext(opts: ContextNetworkOptions = {}): Promise<BackendContext> {
    try {
      const hostPort = opts.proxyServer ? new URL(opts.proxyServer).host : undefined;
      const { userContext } = await this.conn.send('browser.createUserContext', {
        ...(hostPort
          ? { proxy: { proxyType: 'manual' as const, httpProxy: hostPort, sslProxy: hostPort, noProxy: [] } }
          : {}),
      });
      return await this.adoptContext(userContext, true);
    } catch (err) {
      throw translateBidiError(err, { operation: 'session.ensure', browserAlive: this.isConnected() });
    }
  }

  defaultContext(): BackendContext | undefined {
    return this.contexts.get('default');
  }

  /** One close at a time: a second call (the session's bounded retry) waits for the first. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private closing: Promise<void> | undefined;

  private async closeOnce(): Promise<void> {
    if (!this.conn.isOpen) return;
    if (this.opts.connection === 'attach') {
      // The user's browser stays: close what we created and end our session.
      for (const ctx of this.contexts.values()) if (ctx.owned) await ctx.close().catch(() => {});
      await this.conn.send('session.end', {}).catch(() => {});
      this.conn.close();
      return;
    }
    // Firefox ends its content processes first; what is still running after the grace is killed.
    // A persistent profile gets longer: Firefox writes its cookies and session at exit, and on a
    // busy machine that took more than 2 s (a kill then would lose them).
    const launched = this.opts.launched;
    const graceMs = launched && launched.temporaryProfile === null ? PERSISTENT_EXIT_GRACE_MS : EXIT_GRACE_MS;
    const exited = this.opts.child ? waitExit(this.opts.child, graceMs) : Promise.resolve();
    await this.conn.send('browser.close', {}).catch(() => {});
    this.conn.close();
    await exited;
    if (!launched) return;
    // The main process may be gone while its content processes still write into the profile: end
    // the whole process group and wait until the main process is gone (its profile lock names it,
    // so the profile is free for the next browser only then), then remove the directories.
    killGroup(launched.pid);
    await waitGone(launched.pid, EXIT_GRACE_MS);
    removeDirectories(launched);
  }

  async pid(): Promise<number | undefined> {
    return this.opts.launched?.pid ?? this.opts.child?.pid;
  }

  raw(): RawBackendOps {
    // Tab ids only: no CDP in Firefox, so raw CDP sessions and Playwright tracing are refused (raw.ts).
    return firefoxRaw;
  }

  launchedProcess(): LaunchedProcess | null {
    return this.opts.launched ?? null;
  }

  forceClose(): void {
    if (this.opts.launched) forceClose(this.opts.launched);
  }
}

/** How long a launched Firefox may take to exit by itself after browser.close (temporary profile). */
const EXIT_GRACE_MS = 2_000;
/** The same with a persistent profile, which Firefox writes as it exits. */
const PERSISTENT_EXIT_GRACE_MS = 6_000;

function waitExit(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
