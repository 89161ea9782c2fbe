import { TabwrightError } from './errors.js';

/**
 * Which URL schemes the engine opens: one rule for every door, applied before the origin policy.
 *
 * - Navigation targets: http:, https:, about:blank and data:. `file:` only when the Engine was
 *   created with `allowFileUrls` (an agent that can read local files can send them anywhere).
 * - Refused whatever the flag (permission_denied): the browser's own pages and privileged schemes
 *   (chrome:, chrome-extension:, chrome-untrusted:, chrome-search:, devtools:, view-source:,
 *   javascript:, filesystem:, about: pages other than about:blank), also as fetch targets.
 * - Anything else (ftp:, mailto:, blob:, ws:, …) is not a navigation target: invalid_request.
 *
 * Navigations a page starts itself (links, popups, location=…) are the browser's business:
 * Chromium already refuses to load file: and chrome: pages from web content.
 */

const PRIVILEGED = new Set([
  'chrome:',
  'chrome-extension:',
  'chrome-untrusted:',
  'chrome-search:',
  'devtools:',
  'view-source:',
  'javascript:',
  'filesystem:',
]);

const NAVIGABLE = new Set(['http:', 'https:', 'about:', 'data:']);

export interface UrlSchemeOptions {
  /** EngineOptions.allowFileUrls: file: URLs may be opened and fetched. */
  allowFileUrls: boolean;
}

/**
 * Refuses `file:` (unless allowed) and privileged schemes with permission_denied. For every URL the
 * engine itself opens or fetches; callers add their own narrower scheme rules after it.
 */
export function assertSchemeAllowed(url: URL, opts: UrlSchemeOptions): void {
  const scheme = url.protocol.toLowerCase();
  if (scheme === 'file:') {
    if (opts.allowFileUrls) return;
    throw new TabwrightError(
      'permission_denied',
      `file: URLs are refused (${url.href}): reading local files is off by default. Serve the file over http(s), or restart tabwright with --allow-file-urls if the agent may read local files.`,
      { details: { url: url.href, scheme, reason: 'file_url_refused', flag: '--allow-file-urls' } },
    );
  }
  if (PRIVILEGED.has(scheme) || (scheme === 'about:' && url.href !== 'about:blank')) {
    throw new TabwrightError(
      'permission_denied',
      `${scheme} URLs are refused (${url.href.slice(0, 200)}): tabwright never opens browser-internal pages, extensions, view-source or javascript: URLs. Open an http(s) page, about:blank or a data: URL.`,
      { details: { url: url.href.slice(0, 200), scheme, reason: 'scheme_refused' } },
    );
  }
}

/** A navigation target: the rule above, then only http(s), about:blank, data: (and file: when allowed). */
export function assertNavigable(url: URL, opts: UrlSchemeOptions): void {
  assertSchemeAllowed(url, opts);
  if (NAVIGABLE.has(url.protocol) || url.protocol === 'file:') return;
  throw new TabwrightError(
    'invalid_request',
    `URL scheme ${url.protocol} is not supported; use http(s), about:blank or data:${opts.allowFileUrls ? ' or file:' : ''}.`,
    { details: { field: 'url', scheme: url.protocol } },
  );
}
