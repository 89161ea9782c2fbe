import type { BackendContext, BackendPage, FilteredRequest } from '../backends/backend.js';
import { TabwrightError } from './errors.js';
import { log } from './log.js';
import type { Page } from './page.js';
import type { OriginPolicy } from './policy.js';
import type { ProxiedAttempt } from './policy-proxy.js';
import { maskUrl } from './semantics/secrets.js';

/** One request the session's origin policy stopped before it left the browser. */
export interface BlockedRequest {
  /** Increases per session; receipts ask for the records after the seq they saw last. */
  seq: number;
  at: string;
  url: string;
  origin: string;
  method: string;
  resource_type: string;
  /**
   * navigation: a frame's document; redirect: a redirect hop; popup: the first document of a new tab;
   * subresource: anything else a page's request routing saw; background: stopped at the browser level
   * (the session's policy proxy), outside any page's routing: shared and dedicated workers' traffic,
   * worker WebSockets, beacons and keepalive fetches sent from pagehide, WebRTC TURN over TCP.
   */
  kind: 'navigation' | 'redirect' | 'popup' | 'subresource' | 'background';
  frame: 'main' | 'child' | null;
  page_id: string | null;
  /** Present (true) when `url` was cut at MAX_URL_CHARS: a page chooses its URLs, and 200 records are kept. */
  url_truncated?: true;
}

const KEEP = 200;
const MAX_URL_CHARS = 8192;

/**
 * Enforces a session's OriginPolicy at the network layer, in two layers:
 * every request of the session's pages (navigations, redirect hops, meta
 * refresh, popups, form posts, iframes, subresources) passes the backend's
 * request filter, which knows the page and frame (precise receipts); and
 * everything the browser context sends at all goes through the session's
 * policy proxy (policy-proxy.ts), judged by `judgeProxied`. Nothing is
 * installed for an unrestricted policy.
 */
export class NetworkPolicy {
  private seq = 0;
  private readonly records: BlockedRequest[] = [];

  constructor(
    readonly policy: OriginPolicy,
    private readonly pageOf: (bp: BackendPage) => Page | undefined,
  ) {}

  async install(context: BackendContext): Promise<void> {
    if (!this.policy.restricted) return;
    // WebSockets are subresources: with "block", only those to allowed origins may connect; and
    // every subresource from another host is refused, which a backend may do in the browser itself.
    const block = this.policy.subresources === 'block';
    await context.setRequestFilter((req) => this.decide(req), {
      filterWebSockets: block,
      ...(block ? { subresourceHosts: this.policy.subresourceHosts() } : {}),
    });
  }

  /** The filter: documents must be allowed; subresources per `policy.subresources`. */
  decide(req: FilteredRequest): 'allow' | 'block' {
    const document = req.isNavigation || req.resourceType === 'document';
    if (this.policy.allowsDocument(httpEquivalent(req.url))) return 'allow';
    if (!document && this.policy.subresources === 'allow') return 'allow';
    const page = req.page ? this.pageOf(req.page) : undefined;
    // The first document of a new window (window.open, target=_blank) is requested before its frame exists.
    const isPopup = document && req.isNewWindow;
    const kind: BlockedRequest['kind'] = !document
      ? 'subresource'
      : req.isRedirect
        ? 'redirect'
        : isPopup
          ? 'popup'
          : 'navigation';
    this.record(req, kind, page);
    return 'block';
  }

  /**
   * The proxy's judge. Plain HTTP carries its URL and the browser's Sec-Fetch headers; a tunnel only
   * host:port. With `subresources: "allow"` the proxy cannot tell a tunnelled document from a
   * subresource, so it lets tunnels through and refuses only plain-HTTP navigations to disallowed
   * origins; the page layer stays the judge of documents.
   */
  judgeProxied(attempt: ProxiedAttempt): 'allow' | 'block' {
    if (!this.policy.restricted) return 'allow';
    if (attempt.via === 'connect') {
      if (this.policy.allowsHostPort(attempt.host, attempt.port)) return 'allow';
      if (this.policy.subresources === 'allow') return 'allow';
      const authority = attempt.host.includes(':')
        ? `[${attempt.host}]:${attempt.port}`
        : `${attempt.host}:${attempt.port}`;
      this.add({
        url: authority,
        origin: authority,
        method: 'CONNECT',
        resource_type: 'tunnel',
        kind: 'background',
        frame: null,
        page_id: null,
      });
      return 'block';
    }
    if (this.policy.allowsDocument(attempt.url)) return 'allow';
    const navigation = attempt.headers['sec-fetch-mode'] === 'navigate';
    if (!navigation && this.policy.subresources === 'allow') return 'allow';
    const dest = attempt.headers['sec-fetch-dest'];
    this.add({
      url: attempt.url,
      origin: originOf(attempt.url),
      method: attempt.method,
      resource_type: typeof dest === 'string' && dest ? dest : 'other',
      kind: navigation ? 'navigation' : 'background',
      frame: null,
      page_id: null,
    });
    return 'block';
  }

  private record(req: FilteredRequest, kind: BlockedRequest['kind'], page: Page | undefined): void {
    this.add({
      url: req.url,
      origin: originOf(req.url),
      method: req.method,
      resource_type: req.resourceType,
      kind,
      frame: req.page ? (req.isMainFrame ? 'main' : 'child') : null,
      page_id: page?.id ?? null,
    });
  }

  private add(fields: Omit<BlockedRequest, 'seq' | 'at'>): void {
    const rec: BlockedRequest = { seq: ++this.seq, at: new Date().toISOString(), ...fields };
    // A record: secret URL parameters are masked (semantics/secrets.ts); the origin stays as it is.
    rec.url = maskUrl(rec.url);
    if (rec.url.length > MAX_URL_CHARS) {
      rec.url = rec.url.slice(0, MAX_URL_CHARS);
      rec.url_truncated = true;
    }
    this.records.push(rec);
    if (this.records.length > KEEP) this.records.shift();
    log.info({ blocked: rec.url, kind: rec.kind, page_id: rec.page_id }, 'request blocked by origin policy');
  }

  /** The last seq handed out (0 before anything was blocked). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Blocked requests, oldest first (the last 200), optionally after a seq and for one page. */
  blocked(filter: { since_seq?: number; page_id?: string } = {}): BlockedRequest[] {
    return this.records.filter(
      (r) =>
        (filter.since_seq === undefined || r.seq > filter.since_seq) &&
        (filter.page_id === undefined || r.page_id === filter.page_id),
    );
  }

  /** permission_denied for the first request of `pageId` blocked after `seq`, or null. */
  refusalSince(pageId: string, seq: number): TabwrightError | null {
    const rec = this.blocked({ since_seq: seq, page_id: pageId }).find(
      (r) => r.kind !== 'subresource' && r.frame === 'main',
    );
    if (!rec) return null;
    return new TabwrightError(
      'permission_denied',
      `The navigation was stopped: ${rec.kind === 'redirect' ? 'it redirected' : 'it went'} to ${rec.origin}, which the session's origin policy does not allow. Use an allowed URL, or start a session whose policy includes ${rec.origin}.`,
      {
        details: {
          origin: rec.origin,
          url: rec.url,
          kind: rec.kind,
          page_id: pageId,
          reason: 'origin_denied',
        },
      },
    );
  }

  /**
   * Refuses (permission_denied) when the page's main document, or the given
   * frame URLs, are outside the policy. A main frame left on an error page
   * after a blocked navigation reports the blocked URL when one is known.
   * `policy`: a caller's narrower allowlist instead of the session's (actions' refuse.origins).
   */
  assertAllowed(page: Page, frameUrls: string[] = [], policy: OriginPolicy = this.policy): void {
    if (!policy.restricted) return;
    const whose = policy === this.policy ? "the session's origin policy" : "the caller's allowlist";
    const checks: { url: string; frame: 'main' | 'child' }[] = [{ url: page.url(), frame: 'main' }];
    for (const url of frameUrls) checks.push({ url, frame: 'child' });
    for (const { url, frame } of checks) {
      if (url === '' || url.startsWith('about:')) continue;
      let effective = url;
      if (url.startsWith('chrome-error:')) {
        const last = this.blocked({ page_id: page.id }).at(-1);
        effective = last?.url ?? url;
      }
      if (!policy.allowsDocument(effective)) {
        const origin = originOf(effective);
        throw new TabwrightError(
          'permission_denied',
          `The ${frame === 'main' ? 'page' : 'frame'} is at ${origin}, which ${whose} does not allow; no action runs there. Open an allowed URL first, or start a session whose policy includes ${origin}.`,
          { details: { origin, url: effective, frame, page_id: page.id, reason: 'origin_denied' } },
        );
      }
    }
  }
}

export function originOf(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === 'null' ? `${u.protocol}` : u.origin;
  } catch {
    return url;
  }
}

/** ws:/wss: URLs are judged as the http:/https: origin they belong to. */
function httpEquivalent(url: string): string {
  return url.startsWith('ws:')
    ? `http:${url.slice(3)}`
    : url.startsWith('wss:')
      ? `https:${url.slice(4)}`
      : url;
}
