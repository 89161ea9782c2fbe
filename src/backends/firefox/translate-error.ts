import { firstLine, TabwrightError } from '../../engine/errors.js';
import { timeoutError } from '../../engine/timeout-errors.js';
import { withTimeout as boundCall } from '../timeout.js';
import { BidiClosedError, BidiError } from './bidi-connection.js';

/** A call that outlived its budget (the BiDi command may still finish in the browser). */
export class FirefoxTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return boundCall(p, ms, () => new FirefoxTimeout(ms));
}

/** What a BiDi command answers for a capability Firefox does not have (yet). */
export function isUnsupported(err: unknown): boolean {
  return err instanceof BidiError && /unknown command|unsupported operation/.test(err.error);
}

export function unsupported(operation: string, what: string): TabwrightError {
  return new TabwrightError(
    'unsupported_method',
    `${operation} is not available on Firefox: ${what}. Use a Chromium session (browser "chromium") for it.`,
    { details: { operation, browser: 'firefox' } },
  );
}

/**
 * Maps a BiDi failure to a normalized TabwrightError, so driver wording stays inside the backend.
 * `browserAlive` tells a closed page from a dead browser.
 */
export function translateBidiError(
  err: unknown,
  ctx: {
    operation: string;
    navigation?: boolean;
    browserAlive: boolean;
    timeoutMs?: number;
    pageClosed?: boolean;
  },
): TabwrightError {
  if (err instanceof TabwrightError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const line = firstLine(message);
  if (!ctx.browserAlive || err instanceof BidiClosedError) {
    return new TabwrightError(
      'browser_not_running',
      `The browser is no longer running (${ctx.operation} failed). Start a new session; tabwright relaunches the browser.`,
      { retryable: true, details: { operation: ctx.operation } },
    );
  }
  if (err instanceof FirefoxTimeout) return timeoutError(ctx);
  if (isUnsupported(err)) return unsupported(ctx.operation, line);
  if (err instanceof BidiError && err.error === 'no such frame') {
    if (ctx.pageClosed !== false)
      return new TabwrightError(
        'page_not_found',
        `The page was closed during ${ctx.operation}. List the session's pages and pick another, or open a new one.`,
        { retryable: false, details: { operation: ctx.operation, cause: line } },
      );
    return new TabwrightError(
      'not_ready',
      `${ctx.operation}: the frame went away (it navigated or was removed). Take a new snapshot and retry.`,
      { retryable: true, details: { operation: ctx.operation, cause: line } },
    );
  }
  const ns = /(NS_ERROR_[A-Z_]+|NS_BINDING_ABORTED|deniedPortAccess)/.exec(message);
  if (ctx.navigation && ns) {
    const aborted = ns[1] === 'NS_BINDING_ABORTED';
    return new TabwrightError(
      'not_ready',
      aborted
        ? `${ctx.operation}: the navigation was aborted (${ns[1]}; ERR_ABORTED), probably cancelled or replaced by the page (for example a download). Read the page URL before retrying.`
        : `${ctx.operation}: the page could not be loaded (${ns[1]}). Check the URL and that the server is reachable, then retry.`,
      {
        retryable: !aborted,
        details: { operation: ctx.operation, reason: 'network_error', net_error: ns[1], cause: line },
      },
    );
  }
  if (err instanceof BidiError && err.error === 'invalid argument' && ctx.navigation)
    return new TabwrightError(
      'invalid_request',
      `${ctx.operation}: the URL is not valid (${line}). Pass an absolute http(s) URL.`,
      { details: { operation: ctx.operation, field: 'url' } },
    );
  if (
    /context was destroyed|Inspected target navigated|DiscardedBrowsingContextError|realm.*(destroyed|discarded)/i.test(
      message,
    )
  )
    return new TabwrightError(
      'not_ready',
      `${ctx.operation}: the document changed while it ran (a navigation). Take a new snapshot and retry.`,
      { retryable: true, details: { operation: ctx.operation, cause: line } },
    );
  return new TabwrightError(
    'internal_error',
    `${ctx.operation} failed unexpectedly: ${line}. Retry once; if it persists, close the session and start a new one.`,
    { retryable: false, details: { operation: ctx.operation, cause: line } },
  );
}
