import { firstLine, TabwrightError } from '../../engine/errors.js';
import { timeoutError } from '../../engine/timeout-errors.js';
import { playwrightCore } from './load-playwright.js';

/**
 * Maps a playwright-core failure to a normalized TabwrightError, so driver
 * wording stays inside the backend. `browserAlive` tells a closed page from a
 * dead browser.
 */
export function translatePlaywrightError(
  err: unknown,
  ctx: { operation: string; navigation?: boolean; browserAlive: boolean; timeoutMs?: number },
): TabwrightError {
  if (err instanceof TabwrightError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const line = firstLine(message);
  if (!ctx.browserAlive) {
    return new TabwrightError(
      'browser_not_running',
      `The browser is no longer running (${ctx.operation} failed). Start a new session; tabwright relaunches the browser.`,
      { retryable: true, details: { operation: ctx.operation } },
    );
  }
  if (err instanceof playwrightCore().errors.TimeoutError) return timeoutError(ctx);
  const net = /net::(ERR_[A-Z_]+)/.exec(message);
  if (net) {
    const aborted = net[1] === 'ERR_ABORTED';
    // A 401 challenge nobody answered: retrying cannot help until credentials are set.
    const auth = net[1] === 'ERR_INVALID_AUTH_CREDENTIALS';
    return new TabwrightError(
      'not_ready',
      aborted
        ? `${ctx.operation}: the navigation was aborted (net::ERR_ABORTED), probably cancelled or replaced by the page (for example a download). Read the page URL before retrying.`
        : auth
          ? `${ctx.operation}: the server asks for HTTP authentication and the session has no credentials for this origin (net::ERR_INVALID_AUTH_CREDENTIALS). Set HTTP credentials for this origin on the session (its door's credentials method), then open the page again.`
          : `${ctx.operation}: the page could not be loaded (net::${net[1]}). Check the URL and that the server is reachable, then retry.`,
      {
        retryable: !aborted && !auth,
        details: { operation: ctx.operation, reason: 'network_error', net_error: net[1] },
      },
    );
  }
  if (/has been closed|Target closed|Target crashed|Page crashed/i.test(message)) {
    return new TabwrightError(
      'page_not_found',
      `The page was closed or crashed during ${ctx.operation}. List the session's pages and pick another, or open a new one.`,
      { retryable: false, details: { operation: ctx.operation, cause: line } },
    );
  }
  if (/Cannot navigate to invalid URL|invalid url|Protocol error.*Cannot navigate/i.test(message)) {
    return new TabwrightError(
      'invalid_request',
      `${ctx.operation}: the URL is not valid (${line}). Pass an absolute http(s) URL.`,
      {
        details: { operation: ctx.operation, field: 'url' },
      },
    );
  }
  return new TabwrightError(
    'internal_error',
    `${ctx.operation} failed unexpectedly: ${line}. Retry once; if it persists, close the session and start a new one.`,
    { retryable: false, details: { operation: ctx.operation, cause: line } },
  );
}
