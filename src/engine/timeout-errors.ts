import { TabwrightError } from './errors.js';

/**
 * The two timeout errors every backend gives, worded once: a navigation that did not reach its load
 * state, and any other call whose outcome is unknown.
 */
export function timeoutError(ctx: {
  operation: string;
  navigation?: boolean;
  timeoutMs?: number;
}): TabwrightError {
  const details = { operation: ctx.operation, outcome: 'unknown', timeout_ms: ctx.timeoutMs };
  if (ctx.navigation)
    return new TabwrightError(
      'navigation_timeout',
      `${ctx.operation} did not reach the requested load state within ${ctx.timeoutMs ?? '?'} ms. The page may still be loading: read its URL, wait, or retry with a larger timeout_ms or wait_until "domcontentloaded".`,
      { retryable: true, details },
    );
  return new TabwrightError(
    'not_ready',
    `${ctx.operation} timed out after ${ctx.timeoutMs ?? '?'} ms; its outcome is unknown. Check the page before repeating it.`,
    { retryable: false, details },
  );
}
