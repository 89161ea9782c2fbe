import type { CDPSession, Page, Request } from 'playwright-core';
import type { SubresourceHosts } from '../backend.js';

/**
 * A restricted page's subresources from other hosts, refused inside Chromium.
 *
 * Under the origin policy's request filter every request of a page is paused (CDP `Fetch`) and judged
 * in this process. A refused script, image or stylesheet then costs a round trip through Node's
 * event loop before the page may go on; a parser-blocking script costs it in series. A news page
 * with 40 such scripts and 400 refused requests took twice as long to open, and 3-5× as long with
 * Node's event loop busy (as it is when one `tabwright serve` drives 20 sessions), as the same page
 * with those requests refused by the browser; Node spent 2.3× the CPU (docs/benchmarks.md).
 *
 * `Network.setBlockedURLs` with ordered allow/block `urlPatterns` (Chromium ≥ 138) refuses them in
 * the renderer, before `Fetch` sees them: the allowed hosts' requests (any scheme and port: wider
 * than the policy) are let through to the filter, every other http(s) request is refused there.
 * Navigations of frames and popups are not subject to it (they still reach the filter, which
 * records them and words the refusal), nor are WebSockets (the filter's WebSocket route closes
 * those with its own code), nor requests of workers. Chromium reports each refusal as a failed
 * request (blocked reason `inspector`, reported as net::ERR_BLOCKED_BY_CLIENT, as the filter's
 * refusals are), which the context hands to the filter to record.
 *
 * The setting belongs to a CDP session of our own with `Network` enabled (Blink's network agent
 * consults it only then). A page whose session cannot be had simply keeps the filter's path.
 *
 * TABWRIGHT_REFUSE_IN_BROWSER=0 (tests, diagnostics), read when a context's filter is set: nothing is
 * refused in the browser, every request is judged by the filter as before.
 */

export function refusalSwitchedOff(): boolean {
  return process.env.TABWRIGHT_REFUSE_IN_BROWSER === '0';
}

/**
 * A failed request's error text: playwright-core reports a request Chromium refused this way by its
 * blocked reason, "inspector"; it is the same refusal as the filter's (net::ERR_BLOCKED_BY_CLIENT).
 */
export function failureText(req: Request): string {
  const text = req.failure()?.errorText ?? 'failed';
  return text === REFUSED_IN_BROWSER ? 'net::ERR_BLOCKED_BY_CLIENT' : text;
}

/** One request Chromium refused, as the page's own CDP session saw it. */
export interface RefusedRequest {
  url: string;
  method: string;
  /** playwright's lower-case resource type (image, script, fetch, …). */
  resourceType: string;
  isMainFrame: boolean;
}

const REFUSED_IN_BROWSER = 'inspector';

interface BlockPattern {
  urlPattern: string;
  block: boolean;
}

/** Host names a URLPattern string can hold as they are (no IPv6 literals, no escapes needed). */
const PLAIN_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/i;

/** The ordered patterns for `hosts`, or null when one of them cannot be written as a pattern. */
export function refusalPatterns(hosts: SubresourceHosts): BlockPattern[] | null {
  const allow: BlockPattern[] = [];
  for (const host of hosts.exact) {
    if (!PLAIN_HOST.test(host)) return null;
    allow.push({ urlPattern: `*://${host}:*/*`, block: false });
  }
  for (const suffix of hosts.suffixes) {
    if (!suffix.startsWith('.') || !PLAIN_HOST.test(suffix.slice(1))) return null;
    allow.push({ urlPattern: `*://*${suffix}:*/*`, block: false });
  }
  return [
    ...allow,
    { urlPattern: 'http://*:*/*', block: true },
    { urlPattern: 'https://*:*/*', block: true },
  ];
}

interface SentRequest {
  requestId: string;
  request: { url: string; method: string };
  type?: string;
  frameId?: string;
}
interface FailedRequest {
  requestId: string;
  type?: string;
  blockedReason?: string;
}

/**
 * Refuses in each page what `patterns` blocks (null: nothing) and tells `onRefused` of every refusal.
 * A session lives as long as its page.
 *
 * Refusals are read off the session's own `Network` events, not playwright-core's requests: a
 * redirect hop Chromium refuses is reported on the request it redirected from (whose URL is allowed)
 * and then as a new, unlinked request that fails as aborted; only the CDP request id ties them. The
 * last URL sent under each id is kept until that id finishes or fails: a bounded map (one entry per
 * request in flight).
 */
export class InBrowserRefusal {
  private readonly sessions = new WeakMap<Page, Promise<CDPSession | null>>();

  constructor(
    private patterns: BlockPattern[] | null,
    private readonly onRefused: (page: Page, req: RefusedRequest) => void,
  ) {}

  /** Applies the patterns to `page` (once per page; later calls wait for the first). */
  async apply(page: Page): Promise<void> {
    let session = this.sessions.get(page);
    if (!session) {
      session = this.open(page);
      this.sessions.set(page, session);
    }
    await session;
  }

  /** New patterns (null: refuse nothing) for every page already set up and those to come. */
  async update(patterns: BlockPattern[] | null, pages: Page[]): Promise<void> {
    this.patterns = patterns;
    await Promise.all(
      pages.map(async (p) => {
        const s = await this.sessions.get(p);
        if (s) await send(s, patterns);
        else if (patterns && this.sessions.has(p)) {
          this.sessions.delete(p);
          await this.apply(p);
        }
      }),
    );
  }

  private async open(page: Page): Promise<CDPSession | null> {
    if (!this.patterns || page.isClosed()) return null;
    try {
      const s = await page.context().newCDPSession(page);
      const tree = (await s.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
      const mainFrameId = tree.frameTree.frame.id;
      const inFlight = new Map<string, SentRequest>();
      s.on('Network.requestWillBeSent', (e: SentRequest) => void inFlight.set(e.requestId, e));
      s.on('Network.loadingFinished', (e: { requestId: string }) => void inFlight.delete(e.requestId));
      s.on('Network.loadingFailed', (e: FailedRequest) => {
        const sent = inFlight.get(e.requestId);
        inFlight.delete(e.requestId);
        if (!sent || e.blockedReason !== REFUSED_IN_BROWSER) return;
        this.onRefused(page, {
          url: sent.request.url,
          method: sent.request.method,
          resourceType: String(e.type ?? sent.type ?? 'other').toLowerCase(),
          isMainFrame: sent.frameId === mainFrameId,
        });
      });
      await s.send('Network.enable');
      await send(s, this.patterns);
      return s;
    } catch {
      return null;
    }
  }
}

async function send(s: CDPSession, patterns: BlockPattern[] | null): Promise<void> {
  await s.send('Network.setBlockedURLs', { urlPatterns: patterns ?? [] }).catch(() => {});
}
