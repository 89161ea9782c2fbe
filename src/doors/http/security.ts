import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Who may talk to the door (secure by default):
 * - it binds 127.0.0.1 unless told otherwise; any non-loopback bind needs a bearer token;
 * - with a token, every request needs `Authorization: Bearer <token>`;
 * - the Host header must name this server (loopback names, or the bound address), which defeats
 *   DNS rebinding; a wildcard bind (0.0.0.0 / ::) accepts any Host because a token is required;
 * - a request a browser sent for another site (`Origin` of a foreign host, `Sec-Fetch-Site:
 *   cross-site`) is refused: the API answers no CORS preflight and sends no CORS headers, and this
 *   also stops "simple" cross-site POSTs, which need no preflight;
 * - bodies are limited to 8 MiB.
 */

export const BODY_LIMIT = 8 * 1024 * 1024;

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return LOOPBACK_NAMES.has(h) || h.startsWith('127.') || h.endsWith('.localhost');
}

export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

export class SecurityError extends Error {}

/** Refuses to start an unauthenticated server beyond loopback. */
export function checkBindPolicy(host: string, token: string | undefined): void {
  if (isLoopbackHost(host)) return;
  if (!token) {
    throw new SecurityError(
      `refusing to listen on ${host} without a token: pass --token <secret> (or set TABWRIGHT_TOKEN); clients then send "Authorization: Bearer <secret>"`,
    );
  }
  if (token.length < 16) {
    throw new SecurityError('the token must be at least 16 characters long');
  }
}

/** The host part of a Host header ("example:8080", "[::1]:10049"). */
export function hostOnly(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon > 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

export interface Guard {
  /** undefined = allowed; otherwise the HTTP status and message of the refusal. */
  check(headers: Record<string, string | string[] | undefined>): { status: number; msg: string } | undefined;
}

export function requestGuard(bindHost: string, token: string | undefined, extraHosts: string[] = []): Guard {
  const bound = bindHost.toLowerCase().replace(/^\[|\]$/g, '');
  const allowed = new Set([...extraHosts.map((h) => h.toLowerCase()), bound]);
  const hostOk = (h: string) =>
    isWildcard(bindHost)
      ? true
      : isLoopbackHost(h)
        ? isLoopbackHost(bound) || allowed.has(h)
        : allowed.has(h);
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

  return {
    check(headers) {
      const host = one(headers.host);
      if (!host || !hostOk(hostOnly(host))) {
        return {
          status: 403,
          msg: `拒绝访问：Host 头 ${host ?? '(缺失)'} 不是这个服务的地址（防 DNS 重绑定）；请用 http://127.0.0.1:<端口> 访问`,
        };
      }
      const origin = one(headers.origin);
      if (origin !== undefined && origin !== 'null') {
        let oh = '';
        try {
          oh = new URL(origin).hostname.replace(/^\[|\]$/g, '');
        } catch {
          oh = '';
        }
        if (!oh || !hostOk(oh)) {
          return {
            status: 403,
            msg: `拒绝访问：不接受来自其他网站（Origin: ${origin}）的请求，本接口不支持 CORS`,
          };
        }
      } else if (origin === 'null' || one(headers['sec-fetch-site']) === 'cross-site') {
        return { status: 403, msg: '拒绝访问：不接受浏览器跨站请求，本接口不支持 CORS' };
      }
      if (expected) {
        const got = Buffer.from(one(headers.authorization) ?? '');
        if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
          return {
            status: 401,
            msg: '未授权：缺少或错误的令牌，请在请求头带上 Authorization: Bearer <token>',
          };
        }
      }
      return undefined;
    },
  };
}

export function isIpLiteral(h: string): boolean {
  return isIP(h.replace(/^\[|\]$/g, '')) !== 0;
}
