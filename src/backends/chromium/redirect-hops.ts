import { createRequire } from 'node:module';

/**
 * Redirect hops judged inside playwright-core's own request interception, so that a restricted
 * page's requests are paused once, not twice.
 *
 * Under a context route (the origin policy's request filter) playwright-core enables CDP `Fetch`
 * on every session of every page (the main frame, each out-of-process iframe) and of every service
 * worker, and pauses each request there. It hands the first hop of a request to route handlers;
 * a redirect hop it continues itself, without asking them. The origin policy must judge that hop
 * too (a redirect to a refused origin is refused before it leaves), which used to take a second
 * `Fetch` interception of our own on each page (pattern `*`): every request of the page was then
 * paused twice, once per interception, and the second pause's events crossed the driver's
 * client/server layers to be continued at once (≈ 40 ms of the provider's CPU per TodoMVC open,
 * docs/benchmarks.md).
 *
 * Here the judge sits where playwright-core receives `Fetch.requestPaused` (its network manager's
 * `_onRequestPaused`): a hop with `redirectedRequestId` in a context that has a judge is judged
 * from the paused event itself (URL, method, resource type, frame) before playwright-core handles
 * it. A refused hop is handed on to playwright-core as usual (it records the redirect, so the
 * request log shows it), after it was failed at once on its own session with
 * `Fetch.failRequest` (`Aborted` for documents, `BlockedByClient` for the rest; playwright-core's
 * later continue of that request is a no-op): the hop is failed, never sent.
 *
 * The network manager's class is not exported: it is found on the first page playwright-core
 * creates in this process (its constructor asks the page `needsRequestInterception()` right after
 * creating the page's network manager and before the page's first session is added, whose
 * listeners bind `_onRequestPaused`), so every page and service worker, of every context, runs
 * the patched method. When this playwright-core lacks any of those hooks the patch is not made and
 * `redirectHopsJudgedOn()` says false: chromium-browser.ts then installs its per-page `Fetch`
 * interception as before (more CPU, the same guarantees).
 */

/** A paused redirect hop, as the judge sees it. */
export interface RedirectHop {
  url: string;
  method: string;
  /** CDP's resource type (`Document`, `Script`, `Image`, …). */
  resourceType: string;
  /** The hop's frame is its page's main frame. */
  isMainFrame: boolean;
  /** playwright-core's guid of the hop's page (the client Page's `_guid`), null for a service worker. */
  pageGuid: string | null;
}

export type RedirectJudge = (hop: RedirectHop) => 'allow' | 'block';

/** Judges by playwright-core's guid of the browser context (the client BrowserContext's `_guid`). */
const judges = new Map<string, RedirectJudge>();

/** Hops judged since the process started (tests: the judge sits in playwright-core's own pause). */
let hopsJudged = 0;

interface SessionLike {
  _sendMayFail(method: string, params?: unknown): unknown;
  send(method: string, params?: unknown): unknown;
}
interface SessionInfo {
  session: SessionLike;
}
interface PausedEvent {
  requestId: string;
  redirectedRequestId?: string;
  frameId?: string;
  resourceType?: string;
  request: { url: string; method: string };
}
interface ServerPage {
  guid?: string;
  once?: (event: string, listener: () => void) => unknown;
  browserContext?: { guid?: string };
  delegate?: { _networkManager?: object; _targetId?: string };
}
interface NetworkManager {
  _page?: ServerPage | null;
  _serviceWorker?: { browserContext?: { guid?: string } } | null;
}
type OnRequestPaused = (this: NetworkManager, info: SessionInfo, event: PausedEvent) => unknown;
interface NetworkManagerProto {
  _onRequestPaused?: OnRequestPaused;
  addSession?: unknown;
  _onRequest?: unknown;
  /** The judges the patched method consults. */
  tabwrightRedirectHops?: Map<string, RedirectJudge>;
}
interface ServerPageProto {
  needsRequestInterception?: (this: ServerPage) => boolean;
  tabwrightRedirectHops?: boolean;
}

/**
 * Pages (server guid → context guid) created with a judge, until chromium-browser.ts asks about them
 * or the page closes. Each page is remembered once: playwright-core asks a page
 * `needsRequestInterception()` again on every routing change, which must not re-add a page already
 * answered (it would stay until the cap).
 */
const judgedPages = new Map<string, string>();
const remembered = new WeakSet<ServerPage>();
const MAX_PAGES_REMEMBERED = 1000;

let installed = false;
let patched = false;
let failed = false;

/**
 * Puts the hook on playwright-core's page prototype (once per process, before the first page).
 * False when this playwright-core has no such hook.
 */
export function installRedirectHops(): boolean {
  if (installed) return !failed;
  installed = true;
  let proto: ServerPageProto | undefined;
  try {
    const server = (
      createRequire(import.meta.url)('playwright-core/lib/coreBundle') as {
        server?: { Page?: { prototype: ServerPageProto } };
      }
    ).server;
    proto = server?.Page?.prototype;
  } catch {}
  const needs = proto?.needsRequestInterception;
  if (!proto || typeof needs !== 'function') {
    failed = true;
    return false;
  }
  if (proto.tabwrightRedirectHops) return true;
  proto.tabwrightRedirectHops = true;
  proto.needsRequestInterception = function (this: ServerPage) {
    const manager = this.delegate?._networkManager;
    if (!patched && !failed) patchNetworkManager(manager);
    // A page of a judged context whose network manager runs the patched method: remembered until
    // chromium-browser.ts asks about it (redirectHopsJudgedOn), so that each page is checked.
    const contextGuid = this.browserContext?.guid;
    if (
      patched &&
      manager &&
      this.guid &&
      contextGuid &&
      judges.has(contextGuid) &&
      (Object.getPrototypeOf(manager) as NetworkManagerProto).tabwrightRedirectHops === judges
    ) {
      if (!remembered.has(this)) {
        remembered.add(this);
        const guid = this.guid;
        judgedPages.set(guid, contextGuid);
        try {
          this.once?.('close', () => judgedPages.delete(guid));
        } catch {}
        if (judgedPages.size > MAX_PAGES_REMEMBERED)
          judgedPages.delete(judgedPages.keys().next().value as string);
      }
    }
    return needs.call(this);
  };
  return true;
}

function patchNetworkManager(manager: object | undefined): void {
  const proto = manager ? (Object.getPrototypeOf(manager) as NetworkManagerProto) : undefined;
  const original = proto?._onRequestPaused;
  // Chromium's network manager only (other browsers' have no Fetch pause): it has all three.
  if (!proto || typeof original !== 'function' || typeof proto.addSession !== 'function') return;
  if (typeof proto._onRequest !== 'function') return;
  // Patched by another copy of this module (its own judges): this copy's pages get the gate.
  if (proto.tabwrightRedirectHops) return;
  patched = true;
  proto.tabwrightRedirectHops = judges;
  proto._onRequestPaused = function (this: NetworkManager, info: SessionInfo, event: PausedEvent) {
    if (event?.redirectedRequestId && judges.size > 0) {
      const page = this._page ?? null;
      const contextGuid = (page ?? this._serviceWorker)?.browserContext?.guid;
      const judge = contextGuid ? judges.get(contextGuid) : undefined;
      if (judge) {
        hopsJudged++;
        let verdict: 'allow' | 'block';
        try {
          verdict = judge({
            url: event.request.url,
            method: event.request.method,
            resourceType: String(event.resourceType ?? 'Other'),
            isMainFrame: !!page && !!event.frameId && event.frameId === page.delegate?._targetId,
            pageGuid: page?.guid ?? null,
          });
        } catch {
          verdict = 'block';
        }
        if (verdict === 'block') {
          const reason = event.resourceType === 'Document' ? 'Aborted' : 'BlockedByClient';
          return original.call(this, refusing(info, event.requestId, reason), event);
        }
      }
    }
    return original.call(this, info, event);
  };
}

/**
 * Fails the refused hop at once on the paused event's own session (not waiting for playwright-core
 * to continue it: whichever path it would take, the hop never leaves), and hands playwright-core
 * the same session info whose session answers any later `Fetch.*` call for that one request
 * (its continue, now or after it waited for the request's `Network.requestWillBeSent`) with a
 * resolved no-op, so that it records the redirect (the request log shows the hop refused).
 */
function refusing(info: SessionInfo, requestId: string, errorReason: string): SessionInfo {
  const real = info.session;
  try {
    void Promise.resolve(real._sendMayFail('Fetch.failRequest', { requestId, errorReason })).catch(() => {});
  } catch {}
  const isThisRequest = (method: string, params: unknown): boolean =>
    method.startsWith('Fetch.') && (params as { requestId?: string } | undefined)?.requestId === requestId;
  const session = Object.create(real) as SessionLike;
  session._sendMayFail = (method, params) =>
    isThisRequest(method, params) ? Promise.resolve(undefined) : real._sendMayFail(method, params);
  session.send = (method, params) =>
    isThisRequest(method, params) ? Promise.resolve({}) : real.send(method, params);
  return { ...info, session };
}

/**
 * Whether this page's redirect hops are judged in playwright-core's own pause: its server page was
 * created in this context while the context had its judge, and its network manager runs the
 * patched method. Asked once per page (the answer is forgotten after it is given); false means
 * the caller must gate the page's redirects itself.
 */
export function redirectHopsJudgedOn(pageGuid: string | undefined, contextGuid: string | undefined): boolean {
  if (!pageGuid || !contextGuid || !redirectHopsHooked()) return false;
  const judgedIn = judgedPages.get(pageGuid);
  judgedPages.delete(pageGuid);
  return judgedIn === contextGuid && judges.has(contextGuid);
}

/** Whether the hook is on playwright-core's network manager (after its first page). */
export function redirectHopsHooked(): boolean {
  return installed && !failed && patched;
}

/**
 * Test/diagnostic switch: `TABWRIGHT_REDIRECT_GATE=page` forces the per-page `Fetch` interception
 * (chromium-browser.ts's fallback) instead of judging hops in playwright-core's own pause. Read
 * when a context's request filter is set.
 */
export function redirectGateForcedToPage(): boolean {
  return process.env.TABWRIGHT_REDIRECT_GATE === 'page';
}

/** Sets (or, with null, removes) the judge of one browser context's redirect hops. */
export function setRedirectJudge(contextGuid: string, judge: RedirectJudge | null): void {
  if (judge) judges.set(contextGuid, judge);
  else judges.delete(contextGuid);
}

/** For tests: pages remembered as judged and not yet asked about (nor closed). */
export function redirectHopsPagesRemembered(): number {
  return judgedPages.size;
}

/** For tests: redirect hops judged in this process so far. */
export function redirectHopsJudgedCount(): number {
  return hopsJudged;
}
