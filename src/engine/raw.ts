import type { BackendBrowser } from '../backends/backend.js';
import type { RawBackendOps, RawCdpSession, TracingOptions } from '../backends/raw.js';
import { DeadlineExpired, type OperationOptions } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';
import { COLLECT_SECRETS_SOURCE } from './semantics/secret-sources.js';
import type { FoundSecrets } from './semantics/secrets.js';
import { scrubTraceFile } from './semantics/trace-scrub.js';
import type { Session } from './session.js';

/**
 * Thin engine hooks over the backends' raw escape hatches (src/backends/raw.ts):
 * tab ids, raw CDP sessions and tracing. Doors that expose raw CDP must say
 * that it bypasses the engine's guards.
 */
function ops(browser: BackendBrowser): RawBackendOps {
  const raw = browser.raw();
  if (!raw) {
    throw new TabwrightError(
      'unsupported_method',
      `Raw protocol access is not available for ${browser.label}; use the engine's operations instead.`,
      { details: { browser_family: browser.family } },
    );
  }
  return raw;
}

export type { RawCdpSession, TracingOptions };

export function pageTargetId(page: Page): Promise<string> {
  return ops(page.session.browser).pageTargetId(page.backend);
}

export function pageCdpSession(page: Page): Promise<RawCdpSession> {
  page.assertUsable();
  return ops(page.session.browser).pageCdpSession(page.backend);
}

export function sessionCdpSession(session: Session, targetId?: string): Promise<RawCdpSession> {
  session.assertAlive();
  return ops(session.browser).browserCdpSession(session.browser, targetId);
}

export function startTracing(session: Session, opts: TracingOptions = {}): Promise<void> {
  session.assertAlive();
  return ops(session.browser).startTracing(session.context, opts);
}

/**
 * Stops tracing and writes the trace, then puts it through the secret rule (semantics/trace-scrub.ts):
 * the secret values the pages hold now are registered first, so a trace never holds what no
 * snapshot happened to see.
 */
export async function stopTracing(session: Session, path: string): Promise<void> {
  await registerPageSecrets(session);
  await ops(session.browser).stopTracing(session.context, path);
  scrubTraceFile(path, session.secrets);
}

/** Reads the secret values every frame of every page holds into the session's registry (bounded, best effort). */
async function registerPageSecrets(session: Session): Promise<void> {
  const collect = new Function('_', `return (${COLLECT_SECRETS_SOURCE})(null);`) as (_: null) => FoundSecrets;
  await Promise.all(
    session.pages().flatMap((p) =>
      p.backend.frames().map((f) =>
        f
          .evaluate(collect, null, 2000)
          .then((found) => session.secrets.addFound(found))
          .catch(() => {}),
      ),
    ),
  );
}

/**
 * The raw CDP channel of one page (a door's `page.cdp`): a session opened on first use; every call
 * runs in the page's queue under a deadline like any operation. A call still unanswered when its
 * deadline passes or its caller aborts (Runtime.evaluate of a promise that never settles, Page.crash)
 * is ended at the transport: the session is detached, so the call settles and the page's queue is
 * released instead of waiting for an answer that may never come. The next call opens a new session.
 */
export class PageRawChannel {
  private session: Promise<RawCdpSession> | null = null;

  constructor(private readonly page: Page) {}

  send(method: string, params: Record<string, unknown>, opts?: OperationOptions): Promise<unknown> {
    return this.page.run('page.cdp', 'action', opts, async (d) => {
      if (!this.session) {
        const opening = pageCdpSession(this.page);
        this.session = opening;
        opening.catch(() => {
          if (this.session === opening) this.session = null;
        });
      }
      const current = this.session;
      const s = await Promise.race([current, d.expired()]);
      const call = s.send(method, params);
      call.catch(() => {});
      try {
        return await Promise.race([call, d.expired()]);
      } catch (err) {
        if (err instanceof DeadlineExpired) {
          if (this.session === current) this.session = null;
          await s.detach();
        }
        throw err;
      }
    });
  }

  /** Detaches the session (if one is open); the tab stays. */
  async detach(): Promise<void> {
    const s = this.session;
    this.session = null;
    if (s) await (await s.catch(() => null))?.detach();
  }
}
