import type { BackendCookie, BackendFetchResult } from '../backend.js';

/**
 * A GET outside any page with the context's cookies, redirects not followed (the caller checks
 * each hop against its policy). Firefox has no request API of its own over BiDi, so Node sends it.
 */
export async function contextFetch(
  url: string,
  cookies: BackendCookie[],
  opts: { headers?: Record<string, string>; timeoutMs: number },
): Promise<BackendFetchResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (cookies.length) headers.cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const res = await fetch(url, {
    headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(opts.timeoutMs),
  });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    out[k.toLowerCase()] = v;
  });
  return {
    status: res.status,
    url: res.url || url,
    headers: out,
    body: Buffer.from(await res.arrayBuffer()),
  };
}
