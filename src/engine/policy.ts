import { TabwrightError } from './errors.js';

/**
 * Per-session origin policy: an allowlist of 1-32 exact http(s) origins,
 * optionally widened by host patterns (the sgClaw domain whitelist). An
 * empty policy allows everything. This file validates and answers
 * "is this URL allowed?"; network-layer enforcement lives in the session.
 */
export interface OriginPolicyInput {
  allowed_origins?: string[];
  /** Host patterns like "example.com" or "*.example.com". */
  allowed_host_patterns?: string[];
  /** What to do with subresources from other origins. */
  subresources?: 'block' | 'allow';
}

export class OriginPolicy {
  readonly origins: ReadonlySet<string>;
  readonly hostPatterns: readonly string[];
  readonly subresources: 'block' | 'allow';

  private constructor(origins: Set<string>, patterns: string[], subresources: 'block' | 'allow') {
    this.origins = origins;
    this.hostPatterns = patterns;
    this.subresources = subresources;
  }

  static allowAll(): OriginPolicy {
    return new OriginPolicy(new Set(), [], 'allow');
  }

  static parse(input: OriginPolicyInput | undefined): OriginPolicy {
    if (!input || (!input.allowed_origins?.length && !input.allowed_host_patterns?.length))
      return OriginPolicy.allowAll();
    const list = input.allowed_origins ?? [];
    if (list.length > 32) {
      throw bad(`allowed_origins has ${list.length} entries; at most 32 are allowed.`);
    }
    const origins = new Set<string>();
    for (const entry of list) {
      let u: URL;
      try {
        u = new URL(entry);
      } catch {
        throw bad(`"${entry}" is not an origin; write it as scheme://host[:port], e.g. https://example.com.`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(`"${entry}" is not http(s).`);
      if (u.origin !== entry.replace(/\/$/, '')) {
        throw bad(
          `"${entry}" is not an exact origin (no path, query, wildcard or credentials); use ${u.origin}.`,
        );
      }
      origins.add(u.origin);
    }
    const patterns = (input.allowed_host_patterns ?? []).map((p) => {
      if (!/^(\*\.)?[a-z0-9.-]+$/i.test(p))
        throw bad(`host pattern "${p}" must be a host name, optionally starting with "*.".`);
      return p.toLowerCase();
    });
    return new OriginPolicy(origins, patterns, input.subresources ?? 'block');
  }

  get restricted(): boolean {
    return this.origins.size > 0 || this.hostPatterns.length > 0;
  }

  /** Top-level documents and frames. about:blank and data: documents inherit and are allowed. */
  allowsDocument(url: string): boolean {
    if (!this.restricted) return true;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return false;
    }
    if (u.protocol === 'about:' || u.protocol === 'data:' || u.protocol === 'blob:') return true;
    if (this.origins.has(u.origin)) return true;
    const host = u.hostname.toLowerCase();
    return this.hostPatterns.some((p) => (p.startsWith('*.') ? host.endsWith(p.slice(1)) : host === p));
  }

  /**
   * A tunnel (CONNECT host:port) carries no scheme or path: allowed when an allowed origin has this
   * host and port (either scheme) or a host pattern matches the host.
   */
  allowsHostPort(host: string, port: number): boolean {
    if (!this.restricted) return true;
    const h = host.toLowerCase().replace(/^\[|\]$/g, '');
    for (const origin of this.origins) {
      const u = new URL(origin);
      const p = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
      if (u.hostname.replace(/^\[|\]$/g, '') === h && p === port) return true;
    }
    return this.hostPatterns.some((p) => (p.startsWith('*.') ? h.endsWith(p.slice(1)) : h === p));
  }

  /**
   * The hosts a subresource may come from (allowed origins' hosts and the host patterns): wider than
   * allowsDocument (any scheme or port of those hosts), so a backend may refuse every other host in
   * the browser (RequestFilterOptions.subresourceHosts) and leave the exact judgement to the filter.
   */
  subresourceHosts(): { exact: string[]; suffixes: string[] } {
    const exact = new Set<string>();
    for (const origin of this.origins) exact.add(new URL(origin).hostname);
    const suffixes: string[] = [];
    for (const p of this.hostPatterns) {
      if (p.startsWith('*.')) suffixes.push(p.slice(1));
      else exact.add(p);
    }
    return { exact: [...exact], suffixes };
  }

  toJSON(): OriginPolicyInput {
    return {
      allowed_origins: [...this.origins],
      allowed_host_patterns: [...this.hostPatterns],
      subresources: this.subresources,
    };
  }
}

function bad(message: string): TabwrightError {
  return new TabwrightError('invalid_request', message, { details: { field: 'policy' } });
}

export function denied(url: string, what: string): TabwrightError {
  let origin = url;
  try {
    // file:, data: and the like have an opaque origin ("null"): name the URL instead.
    const o = new URL(url).origin;
    if (o !== 'null') origin = o;
  } catch {}
  return new TabwrightError(
    'permission_denied',
    `${what} to ${origin} refused: the session's origin policy does not allow it. Use an allowed origin or start a session whose policy includes it.`,
    { details: { origin, url } },
  );
}

/**
 * The policy a session gets under a server-wide ceiling (a door's --allow-origin): the ceiling when
 * the request names no origin and no host pattern (an empty list is "no request", never "allow
 * all"), else the request, which may only narrow it: every requested origin must be allowed by the
 * ceiling, every requested host pattern must lie inside a ceiling pattern, and subresources may not
 * go from "block" to "allow". Widening is refused with permission_denied. Without a ceiling the
 * request stands (no request: unrestricted). Both inputs are validated as OriginPolicy.parse does.
 */
export function narrowPolicy(
  ceiling: OriginPolicyInput | undefined,
  requested: OriginPolicyInput | undefined,
): OriginPolicyInput | undefined {
  const limit = OriginPolicy.parse(ceiling);
  const asked = OriginPolicy.parse(requested);
  if (!limit.restricted) return requested;
  const subresources = requested?.subresources ?? limit.subresources;
  const refused: string[] = [];
  if (subresources === 'allow' && limit.subresources === 'block') refused.push('subresources: "allow"');
  if (!asked.restricted) {
    if (refused.length) throw widening(limit, refused);
    return { ...limit.toJSON(), subresources };
  }
  for (const o of asked.origins) if (!limit.allowsDocument(o)) refused.push(o);
  for (const p of asked.hostPatterns)
    if (!limit.hostPatterns.some((q) => patternWithin(p, q))) refused.push(p);
  if (refused.length) throw widening(limit, refused);
  return { ...asked.toJSON(), subresources };
}

/** Whether host pattern `p` matches only hosts that `q` matches ("a.example.com" and "*.a.example.com" lie in "*.example.com"). */
function patternWithin(p: string, q: string): boolean {
  if (p === q) return true;
  if (!q.startsWith('*.')) return false;
  const suffix = q.slice(1);
  return p.endsWith(suffix) && p.length > suffix.length;
}

function widening(limit: OriginPolicy, refused: string[]): TabwrightError {
  const allowed = [...limit.origins, ...limit.hostPatterns];
  return new TabwrightError(
    'permission_denied',
    `This server only allows ${allowed.join(', ')}; a session cannot widen that (${refused.join(', ')}). Ask for a subset of those origins, or omit the list to get all of them.`,
    {
      details: {
        field: 'allowed_origins',
        reason: 'policy_widening',
        allowed: [...limit.origins],
        allowed_host_patterns: [...limit.hostPatterns],
        refused,
      },
    },
  );
}
