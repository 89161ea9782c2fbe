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
    origin = new URL(url).origin;
  } catch {}
  return new TabwrightError(
    'permission_denied',
    `${what} to ${origin} refused: the session's origin policy does not allow it. Use an allowed origin or start a session whose policy includes it.`,
    { details: { origin, url } },
  );
}
