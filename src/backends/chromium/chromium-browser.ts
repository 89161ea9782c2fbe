import type { Browser, BrowserContext, Frame, Page, Route } from 'playwright-core';
import { log } from '../../engine/log.js';
import { CLOSED_SHADOW_INIT } from '../../snapshot/injected/bundle.generated.js';
import type {
  BackendBrowser,
  BackendContext,
  BackendCookieJar,
  BackendFetchResult,
  BackendPage,
  BackendRoute,
  ContextEmulation,
  ContextNetworkOptions,
  FilteredRequest,
  HttpCredential,
  RequestFilter,
  RequestFilterOptions,
} from '../backend.js';
import { commandLineFlag, forceClose, type LaunchedProcess } from '../process-tree.js';
import type { RawBackendOps } from '../raw.js';
import { ChromiumPage } from './chromium-page.js';
import {
  InBrowserRefusal,
  type RefusedRequest,
  refusalPatterns,
  refusalSwitchedOff,
} from './in-browser-refusal.js';
import { chromiumRaw } from './raw.js';
import {
  type RedirectHop,
  redirectGateForcedToPage,
  redirectHopsHooked,
  redirectHopsJudgedOn,
  setRedirectJudge,
} from './redirect-hops.js';
import { translatePlaywrightError } from './translate-error.js';

/** The warning that redirect-hops.ts's hook is missing, given once per process. */
let warnedNoHook = false;

export type ChromiumConnection = 'launched' | 'persistent' | 'cdp' | 'remote';

/**
 * Playwright's proxy setting for a context or a persistent launch. Chromium sends loopback
 * destinations around any proxy unless the bypass list says `<-loopback>`; origin policies name
 * loopback origins too, so nothing may go around.
 */
export function chromiumProxy(opts: ContextNetworkOptions): { server: string; bypass: string } | undefined {
  return opts.proxyServer ? { server: opts.proxyServer, bypass: '<-loopback>' } : undefined;
}

/**
 * Wraps a playwright Browser. `connection` decides what close() means:
 * launched and persistent browsers are ours to close; attached (cdp) and
 * remote ones are only disconnected from, never killed.
 */
export class ChromiumBrowser implements BackendBrowser {
  readonly family = 'chromium' as const;
  readonly label: string;
  private connected = true;
  private readonly pages = new WeakMap<Page, ChromiumPage>();
  private readonly contexts = new WeakMap<BrowserContext, ChromiumContext>();
  private readonly ownedContexts = new Set<BrowserContext>();

  /** Learnt right after a launch (learnProcess): what a forced close needs without a round trip. */
  private launched: LaunchedProcess | null = null;

  constructor(
    readonly pw: Browser,
    readonly connection: ChromiumConnection,
    /** What runs: "Chromium", or the vendor's name of a product tabwright launched ("Google Chrome"). */
    label = 'Chromium',
  ) {
    this.label = label;
    pw.on('disconnected', () => {
      this.connected = false;
    });
  }

  version(): string {
    return this.pw.version();
  }

  isConnected(): boolean {
    return this.connected && this.pw.isConnected();
  }

  onDisconnected(listener: () => void): void {
    if (!this.isConnected()) {
      queueMicrotask(listener);
      return;
    }
    this.pw.once('disconnected', listener);
  }

  wrapPage = (p: Page): ChromiumPage => {
    let w = this.pages.get(p);
    if (!w) {
      const owned = this.connection === 'launched' || this.connection === 'persistent';
      w = new ChromiumPage(p, () => this.isConnected(), this.wrapPage, owned);
      this.pages.set(p, w);
    }
    return w;
  };

  wrapContext(c: BrowserContext): ChromiumContext {
    let w = this.contexts.get(c);
    if (!w) {
      w = new ChromiumContext(c, this);
      this.contexts.set(c, w);
      // Lets the snapshot walker see closed shadow roots in documents created from now on.
      void c.addInitScript({ content: CLOSED_SHADOW_INIT }).catch(() => {});
    }
    return w;
  }

  async newContext(opts: ContextNetworkOptions = {}): Promise<BackendContext> {
    try {
      const ctx = await this.pw.newContext({
        acceptDownloads: true,
        viewport: { width: 1280, height: 800 },
        proxy: chromiumProxy(opts),
      });
      this.ownedContexts.add(ctx);
      return this.wrapContext(ctx);
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'session.ensure', browserAlive: this.isConnected() });
    }
  }

  defaultContext(): BackendContext | undefined {
    const first = this.pw.contexts()[0];
    return first ? this.wrapContext(first) : undefined;
  }

  async close(): Promise<void> {
    if (!this.pw.isConnected()) return;
    if (this.connection === 'cdp') {
      // Playwright's close() on a CDP-attached browser closes the contexts it
      // created and disconnects; the user's browser and tabs stay.
      for (const ctx of this.ownedContexts) await ctx.close().catch(() => {});
    }
    await this.pw.close().catch(() => {});
  }

  raw(): RawBackendOps {
    return chromiumRaw;
  }

  /**
   * Launched browsers only: the browser process and, for a non-persistent launch, the temporary
   * profile playwright-core created for it (its --user-data-dir), which a kill would leave behind.
   */
  async learnProcess(workDir: string | undefined): Promise<void> {
    if (this.connection !== 'launched' && this.connection !== 'persistent') return;
    const pid = await this.pid();
    if (!pid) return;
    const dir = this.connection === 'launched' ? commandLineFlag(pid, 'user-data-dir') : null;
    this.launched = { pid, temporaryProfile: dir, workDir: workDir ?? null };
  }

  launchedProcess(): LaunchedProcess | null {
    return this.launched;
  }

  forceClose(): void {
    if (this.launched) forceClose(this.launched);
  }

  async pid(): Promise<number | undefined> {
    if (this.launched) return this.launched.pid;
    try {
      const cdp = await this.pw.newBrowserCDPSession();
      const info = (await cdp.send('SystemInfo.getProcessInfo')) as {
        processInfo: { type: string; id: number }[];
      };
      await cdp.detach().catch(() => {});
      return info.processInfo.find((p) => p.type === 'browser')?.id;
    } catch {
      return undefined;
    }
  }
}

export class ChromiumContext implements BackendContext {
  readonly cookieJar: BackendCookieJar;

  constructor(
    readonly pw: BrowserContext,
    private readonly browser: ChromiumBrowser,
  ) {
    this.cookieJar = {
      cookies: (urls?: string[]) => pw.cookies(urls),
      addCookies: (cookies) => pw.addCookies(cookies as Parameters<BrowserContext['addCookies']>[0]),
      clearCookies: () => pw.clearCookies(),
    };
  }

  pages(): BackendPage[] {
    return this.pw.pages().map(this.browser.wrapPage);
  }

  async newPage(): Promise<BackendPage> {
    try {
      const p = await this.pw.newPage();
      // Under a request filter, the page's redirect gate must be up before its first navigation:
      // a navigation racing the gate's installation stalls.
      if (this.routed) await Promise.all([this.gateRedirects(p), this.refusal?.apply(p)]);
      return this.browser.wrapPage(p);
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'tab.new', browserAlive: this.browser.isConnected() });
    }
  }

  onPage(listener: (page: BackendPage) => void): void {
    this.pw.on('page', (p) => listener(this.browser.wrapPage(p)));
  }

  async close(): Promise<void> {
    await this.pw.close().catch(() => {});
  }

  private filter: RequestFilter | null = null;
  private routed = false;
  /** Routes added with addRoute, by pattern (their Playwright handlers, for unroute). */
  private readonly userRoutes = new Map<string, ((route: Route) => Promise<void>)[]>();

  async addRoute(spec: BackendRoute): Promise<void> {
    const handler = async (route: Route): Promise<void> => {
      const req = route.request();
      if (spec.action === 'abort') {
        await route.abort('blockedbyclient').catch(() => {});
        return;
      }
      // A mock never answers a request the origin policy would refuse: the policy's own route decides.
      if (this.filter) {
        let frame: Frame | null = null;
        try {
          frame = req.frame();
        } catch {}
        const verdict = this.verdict({
          url: req.url(),
          method: req.method(),
          resourceType: req.resourceType(),
          isNavigation: req.isNavigationRequest(),
          isMainFrame: !frame || frame.parentFrame() === null,
          isRedirect: req.redirectedFrom() !== null,
          isNewWindow: req.isNavigationRequest() && !frame,
          page: null,
        });
        if (verdict === 'block') {
          await route.fallback().catch(() => {});
          return;
        }
      }
      await route
        .fulfill({ status: spec.status, contentType: spec.contentType, body: spec.body })
        .catch(() => {});
    };
    const list = this.userRoutes.get(spec.pattern) ?? [];
    list.push(handler);
    this.userRoutes.set(spec.pattern, list);
    await this.pw.route(spec.pattern, handler);
  }

  async emulate(settings: ContextEmulation): Promise<void> {
    try {
      if (settings.geolocation !== undefined) {
        if (settings.geolocation) await this.pw.grantPermissions(['geolocation']);
        await this.pw.setGeolocation(settings.geolocation);
      }
      if (settings.offline !== undefined) await this.pw.setOffline(settings.offline);
      if (settings.extraHeaders !== undefined) await this.pw.setExtraHTTPHeaders(settings.extraHeaders);
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'context.emulate', browserAlive: true });
    }
  }

  async setHttpCredentials(credentials: HttpCredential[] | null): Promise<void> {
    try {
      // Deprecated in playwright but live: the context's Fetch.authRequired answers switch at once.
      await this.pw.setHTTPCredentials(credentials);
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'context.http_credentials', browserAlive: true });
    }
  }

  async fetch(
    url: string,
    opts: { headers?: Record<string, string>; timeoutMs: number },
  ): Promise<BackendFetchResult> {
    try {
      const r = await this.pw.request.get(url, {
        headers: opts.headers,
        timeout: opts.timeoutMs,
        maxRedirects: 0,
        failOnStatusCode: false,
      });
      try {
        return { status: r.status(), url: r.url(), headers: r.headers(), body: await r.body() };
      } finally {
        await r.dispose().catch(() => {});
      }
    } catch (err) {
      throw translatePlaywrightError(err, {
        operation: 'context.fetch',
        browserAlive: this.browser.isConnected(),
      });
    }
  }

  async removeRoutes(pattern?: string): Promise<void> {
    const patterns = pattern === undefined ? [...this.userRoutes.keys()] : [pattern];
    for (const p of patterns) {
      for (const h of this.userRoutes.get(p) ?? []) await this.pw.unroute(p, h).catch(() => {});
      this.userRoutes.delete(p);
    }
  }
  private readonly redirectGates = new WeakMap<Page, Promise<void>>();
  private pageGateForced = false;

  private webSocketsRouted = false;

  async setRequestFilter(filter: RequestFilter | null, options: RequestFilterOptions = {}): Promise<void> {
    this.filter = filter;
    if (filter && options.filterWebSockets && !this.webSocketsRouted) {
      // WebSockets skip routing and Fetch; playwright's WebSocket routing asks the filter per socket
      // and closes refused ones (1008) before they connect. It covers pages, not workers.
      this.webSocketsRouted = true;
      await this.pw.routeWebSocket(
        (url) =>
          this.verdict({
            url: url.href,
            method: 'GET',
            resourceType: 'websocket',
            isNavigation: false,
            isMainFrame: false,
            isRedirect: false,
            isNewWindow: false,
            page: null,
          }) === 'block',
        (ws) => ws.close({ code: 1008, reason: 'refused by the origin policy' }),
      );
    }
    await this.refuseInBrowser(filter ? options.subresourceHosts : undefined);
    // Redirect hops are judged where playwright-core pauses them (redirect-hops.ts), when it can be.
    // TABWRIGHT_REDIRECT_GATE=page (tests, diagnostics): no judge there, every page gated itself.
    const guid = guidOf(this.pw);
    this.pageGateForced = redirectGateForcedToPage();
    if (guid) setRedirectJudge(guid, filter && !this.pageGateForced ? (hop) => this.judgeHop(hop) : null);
    if (filter && !this.routed) {
      this.routed = true;
      if (guid) this.pw.on('close', () => setRedirectJudge(guid, null));
      await this.pw.route('**/*', (route) => this.routeRequest(route));
      this.pw.on('page', (p) => void Promise.all([this.gateRedirects(p), this.refusal?.apply(p)]));
      await Promise.all(this.pw.pages().map((p) => this.gateRedirects(p)));
    } else if (!filter && this.routed) {
      this.routed = false;
      await this.pw.unroute('**/*').catch(() => {});
    }
  }

  /** Refuses other hosts' subresources in the browser (in-browser-refusal.ts); null: nothing is. */
  private refusal: InBrowserRefusal | null = null;

  private async refuseInBrowser(hosts: RequestFilterOptions['subresourceHosts']): Promise<void> {
    const patterns = hosts && !refusalSwitchedOff() ? refusalPatterns(hosts) : null;
    if (!this.refusal) {
      if (!patterns) return;
      this.refusal = new InBrowserRefusal(patterns, (p, req) => this.reportRefused(p, req));
      await Promise.all(this.pw.pages().map((p) => this.refusal?.apply(p)));
      return;
    }
    await this.refusal.update(patterns, this.pw.pages());
  }

  /** What Chromium refused is handed to the filter, which records it as if it had judged it. */
  private reportRefused(p: Page, req: RefusedRequest): void {
    this.verdict({
      ...req,
      isNavigation: false,
      isRedirect: false,
      isNewWindow: false,
      page: this.browser.wrapPage(p),
    });
  }

  /** A redirect hop paused by playwright-core's own interception (redirect-hops.ts). */
  private judgeHop(hop: RedirectHop): 'allow' | 'block' {
    const pwPage = hop.pageGuid ? this.pw.pages().find((p) => guidOf(p) === hop.pageGuid) : undefined;
    return this.verdict({
      url: hop.url,
      method: hop.method,
      resourceType: hop.resourceType.toLowerCase(),
      isNavigation: hop.resourceType === 'Document',
      isMainFrame: hop.isMainFrame,
      isRedirect: true,
      isNewWindow: false,
      page: pwPage ? this.browser.wrapPage(pwPage) : null,
    });
  }

  private verdict(req: FilteredRequest): 'allow' | 'block' {
    try {
      return this.filter ? this.filter(req) : 'allow';
    } catch {
      return 'block';
    }
  }

  /** First hop of every request (playwright routing covers popups and frames from their first request). */
  private async routeRequest(route: Route): Promise<void> {
    const req = route.request();
    let frame: Frame | null = null;
    try {
      frame = req.frame();
    } catch {
      // Service-worker requests have no frame.
    }
    let pwPage: Page | null = null;
    try {
      pwPage = frame?.page() ?? null;
    } catch {}
    // A navigation with no frame yet is the first document of a popup.
    const isNewWindow = req.isNavigationRequest() && !frame;
    const verdict = this.verdict({
      url: req.url(),
      method: req.method(),
      resourceType: req.resourceType(),
      isNavigation: req.isNavigationRequest(),
      isMainFrame: isNewWindow || (!!frame && frame.parentFrame() === null),
      isRedirect: false,
      isNewWindow,
      page: pwPage ? this.browser.wrapPage(pwPage) : null,
    });
    if (verdict === 'block') {
      // Documents are aborted (the frame keeps its current document, no error page commits); others are blocked.
      await route.abort(req.isNavigationRequest() ? 'aborted' : 'blockedbyclient').catch(() => {});
      return;
    }
    // A navigation may redirect: make sure its page's redirect gate is up before the request leaves.
    if (pwPage && req.isNavigationRequest()) await this.gateRedirects(pwPage).catch(() => {});
    if (isNewWindow) {
      // No page to gate yet: fetch the first hop ourselves and check where a redirect points.
      await this.fetchFirstHop(route).catch(() => route.fallback().catch(() => {}));
      return;
    }
    await route.fallback().catch(() => {});
  }

  private async fetchFirstHop(route: Route): Promise<void> {
    const req = route.request();
    const res = await route.fetch({ maxRedirects: 0 });
    const location = res.headers().location;
    if (res.status() >= 300 && res.status() < 400 && location) {
      const next = new URL(location, req.url()).href;
      const verdict = this.verdict({
        url: next,
        method: req.method(),
        resourceType: 'document',
        isNavigation: true,
        isMainFrame: true,
        isRedirect: true,
        isNewWindow: true,
        page: null,
      });
      if (verdict === 'block') {
        await route.abort('aborted');
        return;
      }
    }
    await route.fulfill({ response: res });
  }

  /**
   * Playwright continues redirect hops without calling route handlers. Where
   * redirect-hops.ts judges them inside playwright-core's own pause, nothing
   * more is needed. Otherwise (a playwright-core without that hook) each page
   * gets its own CDP Fetch interception that pauses redirect hops (and lets
   * everything else through at once) for the filter to decide: every request
   * of the page is then paused twice.
   */
  private gateRedirects(p: Page): Promise<void> {
    let gate = this.redirectGates.get(p);
    if (!gate) {
      const judged = !this.pageGateForced && redirectHopsJudgedOn(guidOf(p), guidOf(this.pw));
      if (!judged && !this.pageGateForced && !redirectHopsHooked() && !warnedNoHook) {
        warnedNoHook = true;
        log.warn(
          "redirect hops: playwright-core's request pause could not be hooked (redirect-hops.ts); each page gets its own Fetch interception (every request paused twice)",
        );
      }
      gate = judged ? Promise.resolve() : this.installRedirectGate(p).catch(() => {});
      this.redirectGates.set(p, gate);
    }
    return gate;
  }

  private async installRedirectGate(p: Page): Promise<void> {
    if (p.isClosed()) return;
    const cdp = await this.pw.newCDPSession(p);
    const tree = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const mainFrameId = tree.frameTree.frame.id;
    cdp.on('Fetch.requestPaused', (e) => {
      const requestId = e.requestId;
      if (!e.redirectedRequestId || !this.filter) {
        cdp.send('Fetch.continueRequest', { requestId }).catch(() => {});
        return;
      }
      const verdict = this.verdict({
        url: e.request.url,
        method: e.request.method,
        resourceType: String(e.resourceType).toLowerCase(),
        isNavigation: e.resourceType === 'Document',
        isMainFrame: e.frameId === mainFrameId,
        isRedirect: true,
        isNewWindow: false,
        page: this.browser.wrapPage(p),
      });
      const errorReason = e.resourceType === 'Document' ? 'Aborted' : 'BlockedByClient';
      if (verdict === 'block') cdp.send('Fetch.failRequest', { requestId, errorReason }).catch(() => {});
      else cdp.send('Fetch.continueRequest', { requestId }).catch(() => {});
    });
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  }
}

/** playwright-core's guid of a client object (the same as its server object's), if it has one. */
function guidOf(o: object): string | undefined {
  const guid = (o as { _guid?: unknown })._guid;
  return typeof guid === 'string' ? guid : undefined;
}
