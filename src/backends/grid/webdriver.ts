/**
 * The few WebDriver calls tabwright makes to a Selenium Grid 4, over Node's fetch: new session,
 * delete session, a cheap probe of one session, and the Grid's /status. No WebDriver library: the
 * browser itself is driven over the CDP endpoint the Grid proxies (se:cdp).
 */

/** The Grid could not be reached at all (connection refused, DNS, TLS, a timeout before any answer). */
export class GridUnreachable extends Error {
  override readonly name = 'GridUnreachable';
}

/** The Grid answered with a WebDriver error (`value.error`, e.g. "session not created"). */
export class WebDriverError extends Error {
  override readonly name = 'WebDriverError';
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export interface GridEndpoint {
  /** The Grid's base URL without a trailing slash (http://hub:4444, or with a path prefix). */
  base: string;
  /** Sent with every request (e.g. an Authorization header for a Grid behind a proxy). */
  headers: Record<string, string>;
}

export function gridEndpoint(url: string, headers: Record<string, string> = {}): GridEndpoint {
  return { base: url.replace(/\/+$/, ''), headers };
}

/**
 * One WebDriver request; resolves with `value`. `signal` ends it (a queued new-session request that
 * is aborted is withdrawn by the Grid).
 */
export async function webdriver(
  grid: GridEndpoint,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  opts: { body?: unknown; signal: AbortSignal },
): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${grid.base}${path}`, {
      method,
      // The Grid answers 500 to a bare `application/json`: the charset is required.
      headers: {
        ...grid.headers,
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
  } catch (err) {
    if (opts.signal.aborted) throw opts.signal.reason ?? err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new GridUnreachable(cause?.code ?? cause?.message ?? (err as Error).message);
  }
  const text = await res.text().catch(() => '');
  let parsed: { value?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as { value?: unknown };
  } catch {
    parsed = undefined;
  }
  const value = parsed?.value as { error?: string; message?: string } | undefined;
  if (res.ok && parsed) return parsed.value;
  if (res.status === 401 || res.status === 403)
    throw new WebDriverError(res.status, 'unauthorized', `HTTP ${res.status} from the Grid`);
  throw new WebDriverError(
    res.status,
    value?.error ?? `http ${res.status}`,
    (value?.message ?? text.slice(0, 200)).split('\n')[0] ?? '',
  );
}

/** A signal that fires after `ms`, or with `outer`. */
export function within(ms: number, outer?: AbortSignal): AbortSignal {
  const t = AbortSignal.timeout(Math.max(1, ms));
  return outer ? AbortSignal.any([outer, t]) : t;
}
