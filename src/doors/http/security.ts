import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Refusal } from '../kit/index.js';

/**
 * Who may talk to the door (secure by default):
 * - it binds 127.0.0.1 unless told otherwise; any non-loopback bind needs a bearer token;
 * - with a token, every request needs `Authorization: Bearer <token>`;
 * - the Host header must name this server (loopback names, or the bound address), which defeats
 *   DNS rebinding; a wildcard bind (0.0.0.0 / ::) accepts any Host because a token is required;
 * - a browser request from any page but this server's own is refused: an `Origin` must equal the
 *   server's origin (http://<Host>), `Sec-Fetch-Site` must be `same-origin` or `none`; other loopback
 *   origins (127.0.0.2, localhost:<other port>, …) are other sites like any other;
 * - every POST but the staging route needs `Content-Type: application/json`, so a cross-origin page
 *   would need a CORS preflight, which is never answered (no CORS headers are ever sent);
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

/** A refused request: why (the kit's Refusal, shared with doors mounted on this server) and this door's message. */
export interface HttpRefusal extends Refusal {
  /** The message in the HTTP API's language (Chinese, like its upstream), saying what to do. */
  msg: string;
}

type Headers = Record<string, string | string[] | undefined>;

export interface GuardRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  headers: Headers;
}

export interface Guard {
  /** undefined = allowed; otherwise why and how it is refused. */
  check(req: GuardRequest): HttpRefusal | undefined;
}

/** Sec-Fetch-Site values a browser sends for the server's own pages and for what the user typed. */
const FETCH_SITE_OK = new Set(['same-origin', 'none']);

/** POST routes that keep their own content types (multipart, raw bytes, JSON): the staging route. */
const RAW_BODY_POSTS = new Set(['/playwright/upload']);

/** "application/json" with or without parameters ("; charset=utf-8"). */
export function isJsonContentType(value: string | undefined): boolean {
  return (value ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** http://<Host header>, normalized (lower case, default port dropped); undefined when it is no host. */
function ownOrigin(host: string): string | undefined {
  try {
    const u = new URL(`http://${host.trim()}`);
    return u.host && u.pathname === '/' && !u.username && !u.password ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an Origin header names exactly `own` (normalized; any path, query or credentials: no). */
function isOwnOrigin(origin: string, own: string): boolean {
  try {
    return new URL(origin).href === `${own}/`;
  } catch {
    return false;
  }
}

/**
 * The checks every route runs first (server.ts onRequest hook), in order: Host (DNS rebinding),
 * Origin and Sec-Fetch-Site (other web pages, loopback ones included), token, content type. A
 * browser page can only pass when it is one of this server's own pages; non-browser clients send
 * neither header and pass. Every POST but the staging route needs `Content-Type: application/json`,
 * which a cross-origin page cannot send without a CORS preflight, and preflights are never answered.
 */
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
    check({ method, path, headers }) {
      const host = one(headers.host);
      const own = host && hostOk(hostOnly(host)) ? ownOrigin(host) : undefined;
      if (!host || !own) {
        return {
          status: 403,
          reason: 'host',
          got: host,
          msg: `拒绝访问：Host 头 ${host ?? '(缺失)'} 不是这个服务的地址（防 DNS 重绑定）；请用 http://127.0.0.1:<端口> 访问`,
        };
      }
      const origin = one(headers.origin);
      if (origin !== undefined && !isOwnOrigin(origin, own)) {
        return {
          status: 403,
          reason: 'origin',
          got: origin,
          origin: own,
          msg:
            origin === 'null'
              ? `拒绝访问：不接受 Origin: null 的请求（沙箱 iframe、data:/file: 页面或跨站跳转发出）；程序客户端请不要带 Origin 头，控制台请在地址栏直接打开 ${own}/`
              : `拒绝访问：浏览器请求只接受本服务自己的页面（Origin 必须是 ${own}，收到 ${origin}）；其他网页（包括本机其他端口、localhost 或 127.x 上的页面）不能调用本接口，本接口不支持 CORS。程序客户端请不要带 Origin 头`,
        };
      }
      const site = one(headers['sec-fetch-site']);
      if (site !== undefined && !FETCH_SITE_OK.has(site.trim().toLowerCase())) {
        return {
          status: 403,
          reason: 'fetch_site',
          got: site,
          origin: own,
          msg: `拒绝访问：不接受其他网页发来的浏览器请求（Sec-Fetch-Site: ${site}，只接受 same-origin 或 none）；控制台请在地址栏直接输入 ${own}/ 打开，不要从别的网页的链接跳转`,
        };
      }
      if (expected) {
        const got = Buffer.from(one(headers.authorization) ?? '');
        if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
          return {
            status: 401,
            reason: 'token',
            msg: '未授权：缺少或错误的令牌，请在请求头带上 Authorization: Bearer <token>',
          };
        }
      }
      const type = one(headers['content-type']);
      if (method === 'POST' && !RAW_BODY_POSTS.has(path) && !isJsonContentType(type)) {
        return {
          status: 415,
          reason: 'content_type',
          got: type,
          origin: own,
          msg: `请求被拒绝：POST ${path} 的请求体必须是 JSON，Content-Type 必须是 application/json（收到 ${type ?? '(缺失)'}）；请加上请求头 Content-Type: application/json`,
        };
      }
      return undefined;
    },
  };
}

export function isIpLiteral(h: string): boolean {
  return isIP(h.replace(/^\[|\]$/g, '')) !== 0;
}
