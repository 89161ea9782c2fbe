import type { Network } from 'webdriver-bidi-protocol';
import type {
  BackendContext,
  BackendCookie,
  BackendCookieJar,
  BackendFetchResult,
  BackendPage,
  BackendRoute,
  ContextEmulation,
  FilteredRequest,
  HttpCredential,
  RequestFilter,
  RequestFilterOptions,
} from '../backend.js';
import { BidiError } from './bidi-connection.js';
import { contextFetch } from './fetch.js';
import type { FirefoxBrowser } from './firefox-browser.js';
import type { FirefoxPage } from './firefox-page.js';
import { globToRegExp } from './glob.js';
import { requestUrl, resourceTypeOf } from './network.js';
import { isUnsupported, translateBidiError, unsupported } from './translate-error.js';

interface Route {
  spec: BackendRoute;
  re: RegExp;
}

/** A BiDi user context: one session's cookies, storage, proxy, request filter and routes. */
export class FirefoxContext implements BackendContext {
  readonly cookieJar: BackendCookieJar;
  private readonly pageListeners: ((page: BackendPage) => void)[] = [];
  private filter: RequestFilter | null = null;
  private filterWebSockets = false;
  private routes: Route[] = [];
  private credentials: HttpCredential[] | null = null;

  constructor(
    private readonly browser: FirefoxBrowser,
    readonly userContext: string,
    /** Created by us (closed with the session), not the browser's default context. */
    readonly owned: boolean,
  ) {
    const partition = { type: 'storageKey' as const, userContext };
    const conn = browser.conn;
    this.cookieJar = {
      cookies: async (urls?: string[]) => {
        const r = await conn
          .send('storage.getCookies', { partition })
          .catch((e) => this.fail(e, 'cookies.get'));
        const all = r.cookies.map(toBackendCookie);
        return urls?.length ? all.filter((c) => urls.some((u) => cookieMatches(c, u))) : all;
      },
      addCookies: async (cookies) => {
        for (const c of cookies) {
          const u = c.url ? new URL(c.url) : null;
          await conn
            .send('storage.setCookie', {
              partition,
              cookie: {
                name: c.name,
                value: { type: 'string', value: c.value },
                domain: c.domain ?? u?.hostname ?? '',
                path: c.path ?? (u ? '/' : '/'),
                httpOnly: c.httpOnly ?? false,
                secure: c.secure ?? u?.protocol === 'https:',
                sameSite: (c.sameSite ?? 'Lax').toLowerCase() as Network.SameSite,
                ...(c.expires !== undefined && c.expires > 0 ? { expiry: Math.round(c.expires) } : {}),
              },
            })
            .catch((e) => this.fail(e, 'cookies.set'));
        }
      },
      clearCookies: async () => {
        await conn.send('storage.deleteCookies', { partition }).catch((e) => this.fail(e, 'cookies.clear'));
      },
    };
  }

  private fail(err: unknown, operation: string): never {
    throw translateBidiError(err, { operation, browserAlive: this.browser.isConnected() });
  }

  pageAppeared(page: FirefoxPage): void {
    for (const l of this.pageListeners) l(page);
  }

  pages(): BackendPage[] {
    return this.browser.pagesOf(this.userContext);
  }

  async newPage(): Promise<BackendPage> {
    try {
      const create = () =>
        this.browser.conn.send('browsingContext.create', { type: 'tab', userContext: this.userContext });
      // A tab closing elsewhere at that moment (another session's context going away) can make
      // Firefox answer "no such frame" for the window it meant to open the tab in: once more.
      const { context } = await create().catch((err) => {
        if (err instanceof BidiError && err.error === 'no such frame') return create();
        throw err;
      });
      // contextCreated comes before the command's answer; wait a moment if it did not.
      for (let i = 0; i < 100 && !this.browser.pageOf(context); i++)
        await new Promise((r) => setTimeout(r, 10));
      const page = this.browser.pageOf(context);
      if (!page) throw new Error(`browsingContext.create: no tab ${context} appeared`);
      return page;
    } catch (err) {
      this.fail(err, 'tab.new');
    }
  }

  onPage(listener: (page: BackendPage) => void): void {
    this.pageListeners.push(listener);
  }

  async close(): Promise<void> {
    this.browser.forgetContext(this.userContext);
    if (this.owned)
      await this.browser.conn
        .send('browser.removeUserContext', { userContext: this.userContext })
        .catch(() => {});
    else for (const p of this.pages()) await p.close().catch(() => {});
  }

  async setRequestFilter(filter: RequestFilter | null, options: RequestFilterOptions = {}): Promise<void> {
    this.filter = filter;
    this.filterWebSockets = options.filterWebSockets ?? false;
    if (filter) await this.browser.ensureIntercept().catch((e) => this.fail(e, 'session.policy'));
  }

  async addRoute(spec: BackendRoute): Promise<void> {
    this.routes.push({ spec, re: globToRegExp(spec.pattern) });
    await this.browser.ensureIntercept().catch((e) => this.fail(e, 'session.route'));
  }

  async removeRoutes(pattern?: string): Promise<void> {
    this.routes = pattern === undefined ? [] : this.routes.filter((r) => r.spec.pattern !== pattern);
  }

  private verdict(req: FilteredRequest): 'allow' | 'block' {
    try {
      return this.filter ? this.filter(req) : 'allow';
    } catch {
      return 'block';
    }
  }

  /** A request paused at beforeRequestSent: the filter first, then the routes, else it goes on. */
  async intercepted(p: Network.BeforeRequestSentParameters, page: FirefoxPage | null): Promise<void> {
    const conn = this.browser.conn;
    const request = p.request.request;
    const resourceType = resourceTypeOf(p.request);
    const document = resourceType === 'document';
    const isMainFrame = page !== null && p.context === page.id;
    try {
      if (this.filter && (resourceType !== 'websocket' || this.filterWebSockets)) {
        const verdict = this.verdict({
          url: requestUrl(p.request),
          method: p.request.method,
          resourceType,
          isNavigation: document && p.navigation !== null,
          isMainFrame,
          isRedirect: p.redirectCount > 0,
          isNewWindow: document && isMainFrame && page?.isFreshPopup(),
          page,
        });
        if (verdict === 'block') {
          await conn.send('network.failRequest', { request });
          if (document && isMainFrame) page?.documentRefused(p.navigation);
          return;
        }
      }
      const route = this.routes.find((r) => r.re.test(p.request.url));
      if (route && route.spec.action === 'abort') {
        await conn.send('network.failRequest', { request });
        return;
      }
      if (route) {
        await conn.send('network.provideResponse', {
          request,
          statusCode: route.spec.status,
          reasonPhrase: 'OK',
          headers: [{ name: 'content-type', value: { type: 'string', value: route.spec.contentType } }],
          body: { type: 'string', value: route.spec.body },
        });
        return;
      }
      await conn.send('network.continueRequest', { request });
    } catch {
      // The request went away meanwhile (its page closed): nothing is waiting for an answer.
    }
  }

  async emulate(settings: ContextEmulation): Promise<void> {
    const conn = this.browser.conn;
    const userContexts: [string] = [this.userContext];
    try {
      if (settings.geolocation !== undefined)
        await conn.send('emulation.setGeolocationOverride', {
          coordinates: settings.geolocation
            ? {
                latitude: settings.geolocation.latitude,
                longitude: settings.geolocation.longitude,
                accuracy: settings.geolocation.accuracy ?? 1,
              }
            : null,
          userContexts,
        });
      if (settings.offline !== undefined)
        await conn.send('emulation.setNetworkConditions', {
          networkConditions: settings.offline ? { type: 'offline' } : null,
          userContexts,
        });
      if (settings.extraHeaders !== undefined)
        await conn.send('network.setExtraHeaders', {
          headers: Object.entries(settings.extraHeaders).map(([name, value]) => ({
            name,
            value: { type: 'string' as const, value },
          })),
          userContexts,
        });
    } catch (err) {
      if (isUnsupported(err))
        throw unsupported('context.emulate', 'this Firefox lacks the BiDi emulation command');
      this.fail(err, 'context.emulate');
    }
  }

  async setHttpCredentials(credentials: HttpCredential[] | null): Promise<void> {
    this.credentials = credentials;
    if (credentials)
      await this.browser.ensureAuthIntercept().catch((e) => this.fail(e, 'context.http_credentials'));
  }

  credentialFor(url: string): HttpCredential | undefined {
    let origin = '';
    try {
      origin = new URL(url).origin;
    } catch {}
    return this.credentials?.find((c) => !c.origin || c.origin === origin);
  }

  async fetch(
    url: string,
    opts: { headers?: Record<string, string>; timeoutMs: number },
  ): Promise<BackendFetchResult> {
    const cookies = await this.cookieJar.cookies([url]);
    return contextFetch(url, cookies, opts);
  }
}

function toBackendCookie(c: Network.Cookie): BackendCookie {
  const value =
    c.value.type === 'base64' ? Buffer.from(c.value.value, 'base64').toString('utf8') : c.value.value;
  const sameSite = c.sameSite === 'strict' ? 'Strict' : c.sameSite === 'none' ? 'None' : 'Lax';
  return {
    name: c.name,
    value,
    domain: c.domain,
    path: c.path,
    expires: c.expiry ?? -1,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite,
  };
}

/** Whether a cookie would be sent to a URL (domain, path, secure), as a cookie jar filters by URL. */
function cookieMatches(c: BackendCookie, url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const domain = c.domain.startsWith('.') ? c.domain.slice(1) : c.domain;
  const hostOk = u.hostname === domain || u.hostname.endsWith(`.${domain}`);
  const pathOk =
    u.pathname === c.path ||
    u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) ||
    c.path === '/';
  return (
    hostOk &&
    pathOk &&
    (!c.secure || u.protocol === 'https:' || u.hostname === '127.0.0.1' || u.hostname === 'localhost')
  );
}
