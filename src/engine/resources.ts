import { evaluateOnRef } from '../snapshot/refs.js';
import { resolveTarget } from './actions/resolve.js';
import type { Target } from './actions/types.js';
import type { Deadline, OperationOptions } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';
import { assertSchemeAllowed } from './url-schemes.js';

/**
 * The original bytes of an image on the page (download_image): what the element shows, fetched through
 * the browser context first (its cookies, the page as Referer, the session's origin policy), then by an
 * in-page `fetch()` in the element's frame when the context request fails (a blob: URL, a server that
 * wants the page's own request). `data:` URLs are decoded, canvases read with toDataURL, inline `<svg>`
 * serialized.
 */

export interface ImageResource {
  data: Buffer;
  contentType: string;
  /** The URL the element shows (`currentSrc` of an img, `src`, a background image, …); `data:`/`blob:` URLs cut at 200 characters. */
  srcUrl: string;
  /** `context` (context request), `page` (in-page fetch), `data-url`, `canvas`, `svg`. */
  via: 'context' | 'page' | 'data-url' | 'canvas' | 'svg';
  /** The URL the bytes came from after redirects (context requests). */
  finalUrl?: string;
  naturalWidth: number | null;
  naturalHeight: number | null;
  /** What the target element was, and where the image was found (`img`, `background`, `descendant img`, …). */
  tag: string;
  source: string;
  /** Attempts that failed before the one that worked. */
  attempts: { via: string; error: string }[];
  element_ref: string;
  /** A lazy-loading attribute (`data-src`, `data-original`, …) naming another URL than the one shown. */
  lazySrc?: string;
}

export const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

interface ImageInfo {
  kind: 'url' | 'canvas' | 'svg' | 'none';
  tag: string;
  source?: string;
  url?: string;
  dataUrl?: string;
  svg?: string;
  error?: string;
  naturalWidth?: number | null;
  naturalHeight?: number | null;
  lazySrc?: string;
}

/** In-page: what image the element shows. Source text, so nothing a loader adds reaches the page. */
const IMAGE_INFO = `(el) => {
  const tag = el.localName;
  const abs = (u) => { try { return new URL(u, document.baseURI).href; } catch { return u; } };
  const lazyOf = (img) => { for (const a of ['data-src', 'data-original', 'data-lazy-src', 'data-lazy', 'data-url']) { const v = img.getAttribute(a); if (v && abs(v) !== (img.currentSrc || img.src)) return abs(v); } return undefined; };
  const fromImg = (img, source) => ({ kind: 'url', tag, source, url: img.currentSrc || img.src,
    naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight, lazySrc: lazyOf(img) });
  if (tag === 'img') return (el.currentSrc || el.src) ? fromImg(el, 'img') : { kind: 'none', tag, error: 'the img has no src' };
  if (tag === 'input' && (el.type || '').toLowerCase() === 'image' && el.src) return { kind: 'url', tag, source: 'input[type=image]', url: el.src, naturalWidth: null, naturalHeight: null };
  if (tag === 'image') { const h = el.href && el.href.baseVal ? el.href.baseVal : el.getAttribute('href') || el.getAttribute('xlink:href'); if (h) return { kind: 'url', tag, source: 'svg image', url: abs(h), naturalWidth: null, naturalHeight: null }; }
  if (tag === 'canvas') {
    try { return { kind: 'canvas', tag, source: 'canvas', dataUrl: el.toDataURL('image/png'), naturalWidth: el.width, naturalHeight: el.height }; }
    catch (e) { return { kind: 'none', tag, error: 'the canvas cannot be read (tainted by a cross-origin image): ' + (e && e.message || e) }; }
  }
  if (tag === 'video' && el.poster) return { kind: 'url', tag, source: 'video poster', url: abs(el.poster), naturalWidth: el.videoWidth || null, naturalHeight: el.videoHeight || null };
  if (tag === 'svg') {
    const r = el.getBoundingClientRect();
    const copy = el.cloneNode(true);
    if (!copy.getAttribute('xmlns')) copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    return { kind: 'svg', tag, source: 'inline svg', svg: copy.outerHTML, naturalWidth: Math.round(r.width), naturalHeight: Math.round(r.height) };
  }
  const bg = getComputedStyle(el).backgroundImage || '';
  const m = /url\\(\\s*(?:"([^"]*)"|'([^']*)'|([^)]*?))\\s*\\)/.exec(bg);
  if (m) return { kind: 'url', tag, source: 'background-image', url: abs(m[1] ?? m[2] ?? m[3]), naturalWidth: null, naturalHeight: null };
  const imgs = el.querySelectorAll('img');
  if (imgs.length >= 1) {
    const img = imgs[0];
    if (img.currentSrc || img.src) return fromImg(img, imgs.length === 1 ? 'descendant img' : 'first of ' + imgs.length + ' descendant imgs');
  }
  return { kind: 'none', tag, error: 'the element is not an image (no img src, canvas, svg, poster or background-image)' };
}`;

/** In-page fetch in the element's frame (its cookies, its origin); base64 of the body. */
const PAGE_FETCH = `async (el, a) => {
  try {
    const r = await fetch(a.url, { credentials: 'include', cache: 'force-cache' });
    if (!r.ok) return { error: 'HTTP ' + r.status };
    const b = await r.blob();
    if (b.size > a.max) return { error: 'larger than ' + a.max + ' bytes (' + b.size + ')' };
    const bytes = new Uint8Array(await b.arrayBuffer());
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return { base64: btoa(bin), type: b.type || r.headers.get('content-type') || '', url: r.url };
  } catch (e) {
    return { error: String(e && e.message || e) };
  }
}`;

/** The image type from the first bytes (servers often send a wrong or no Content-Type). */
export function sniffImageType(b: Buffer): string | undefined {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (
    b.length >= 12 &&
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  if (b.length >= 2 && b[0] === 0x42 && b[1] === 0x4d) return 'image/bmp';
  if (b.length >= 4 && b.readUInt32BE(0) === 0x00000100) return 'image/x-icon';
  if (
    b.length >= 12 &&
    b.subarray(4, 8).toString('latin1') === 'ftyp' &&
    /avi[fs]/.test(b.subarray(8, 12).toString('latin1'))
  )
    return 'image/avif';
  const head = b.subarray(0, 512).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'image/svg+xml';
  return undefined;
}

function decodeDataUrl(url: string): { data: Buffer; type: string } | undefined {
  const m = /^data:([^,]*?),(.*)$/s.exec(url);
  if (!m) return undefined;
  const meta = m[1] ?? '';
  const base64 = /;base64$/i.test(meta);
  const type = meta.replace(/;base64$/i, '').split(';')[0] || 'text/plain';
  try {
    const data = base64 ? Buffer.from(m[2]!, 'base64') : Buffer.from(decodeURIComponent(m[2]!), 'utf8');
    return { data, type };
  } catch {
    return undefined;
  }
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new TabwrightError('invalid_request', `${short(url)} is not a URL.`, { details: { field: 'url' } });
  }
}

function short(url: string): string {
  return (url.startsWith('data:') || url.startsWith('blob:')) && url.length > 200
    ? `${url.slice(0, 200)}…`
    : url;
}

/** The image behind a target (an element ref, or a selector in a frame), fetched as described above. */
export async function fetchImage(
  page: Page,
  target: Target,
  opts: OperationOptions & { maxBytes?: number } = {},
): Promise<ImageResource> {
  const max = opts.maxBytes ?? MAX_IMAGE_BYTES;
  return page.run('page.image', 'read', opts, async (d) => {
    const el = await resolveTarget(page, target, d);
    if (el.kind !== 'element')
      throw new TabwrightError('invalid_request', 'An image target must be an element.', {
        details: { field: 'target' },
      });
    const info = await evaluateOnRef<ImageInfo, null>(page, el.ref, IMAGE_INFO, null, d);
    const base = {
      naturalWidth: info.naturalWidth ?? null,
      naturalHeight: info.naturalHeight ?? null,
      tag: info.tag,
      source: info.source ?? info.tag,
      element_ref: el.ref,
      lazySrc: info.lazySrc,
    };
    if (info.kind === 'none') {
      throw new TabwrightError('invalid_request', `No image to download: ${info.error}.`, {
        details: { field: 'target', reason: 'not_an_image', tag: info.tag },
      });
    }
    if (info.kind === 'canvas' || info.kind === 'svg') {
      const data =
        info.kind === 'canvas' ? decodeDataUrl(info.dataUrl!)!.data : Buffer.from(info.svg ?? '', 'utf8');
      return {
        ...base,
        data,
        contentType: info.kind === 'canvas' ? 'image/png' : 'image/svg+xml',
        srcUrl: info.kind === 'canvas' ? 'canvas' : 'inline svg',
        via: info.kind,
        attempts: [],
      };
    }
    const url = info.url!;
    if (url.startsWith('data:')) {
      const decoded = decodeDataUrl(url);
      if (!decoded)
        throw new TabwrightError('invalid_request', 'The image is a data: URL that does not decode.', {
          details: { field: 'target', reason: 'bad_data_url' },
        });
      return {
        ...base,
        data: decoded.data,
        contentType: sniffImageType(decoded.data) ?? decoded.type,
        srcUrl: short(url),
        via: 'data-url',
        attempts: [],
      };
    }
    // The page's own image URL still goes through the engine's scheme rule (file: off by default);
    // one that does not parse is left to the attempts below, which report why it failed.
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (parsed) assertSchemeAllowed(parsed, { allowFileUrls: page.session.allowFileUrls });
    const attempts: { via: string; error: string }[] = [];
    if (/^https?:/i.test(url)) {
      try {
        const r = await contextFetch(page, url, el.frame.url(), max, d);
        return { ...base, ...r, srcUrl: url, via: 'context', attempts };
      } catch (err) {
        if (
          err instanceof TabwrightError &&
          (err.code === 'browser_not_running' || err.code === 'permission_denied')
        )
          throw err;
        attempts.push({ via: 'context', error: err instanceof Error ? err.message : String(err) });
      }
    }
    const r = await evaluateOnRef<{ base64?: string; type?: string; url?: string; error?: string }, unknown>(
      page,
      el.ref,
      PAGE_FETCH,
      { url, max },
      d,
    );
    if (r.base64 !== undefined) {
      const data = Buffer.from(r.base64, 'base64');
      const sniffed = sniffImageType(data);
      const type = (r.type ?? '').split(';')[0]!.trim();
      if (sniffed || type.startsWith('image/')) {
        return {
          ...base,
          data,
          contentType: sniffed ?? type,
          srcUrl: short(url),
          via: 'page',
          finalUrl: r.url && r.url !== url ? r.url : undefined,
          attempts,
        };
      }
      attempts.push({ via: 'page', error: `not an image (Content-Type ${type || 'none'})` });
    } else attempts.push({ via: 'page', error: r.error ?? 'unknown error' });
    throw new TabwrightError(
      'not_ready',
      `The image ${short(url)} could not be retrieved: ${attempts.map((a) => `${a.via}: ${a.error}`).join('; ')}.`,
      { retryable: false, details: { reason: 'image_fetch_failed', attempts, url: short(url) } },
    );
  });
}

/** GET through the context (cookies), the element's page as Referer, every redirect hop checked against the policy. */
async function contextFetch(
  page: Page,
  url: string,
  referer: string,
  max: number,
  d: Deadline,
  imageOnly = true,
): Promise<{ data: Buffer; contentType: string; finalUrl?: string; disposition?: string }> {
  const policy = page.session.policy;
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    // A redirect hop to file: (or another refused scheme) is refused like a first URL would be.
    assertSchemeAllowed(parseUrl(current), { allowFileUrls: page.session.allowFileUrls });
    if (policy.restricted && policy.subresources === 'block' && !policy.allowsDocument(current)) {
      throw new TabwrightError(
        'permission_denied',
        `The image URL ${current} is outside the session's allowed origins; it was not requested.`,
        { details: { url: current, reason: 'origin_not_allowed' } },
      );
    }
    const headers: Record<string, string> = imageOnly
      ? { accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8' }
      : {};
    if (/^https?:/i.test(referer)) headers.referer = referer;
    const r = await page.session.context.fetch(current, {
      headers,
      timeoutMs: Math.max(1, d.remaining() - 500),
    });
    if (r.status >= 300 && r.status < 400 && r.headers.location) {
      current = new URL(r.headers.location, current).href;
      continue;
    }
    if (r.status < 200 || r.status >= 300) throw new Error(`HTTP ${r.status}`);
    if (r.body.length > max) throw new Error(`larger than ${max} bytes (${r.body.length})`);
    const type = (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const sniffed = sniffImageType(r.body);
    if (imageOnly && !sniffed && !type.startsWith('image/'))
      throw new Error(`not an image (HTTP ${r.status}, Content-Type ${type || 'none'}; a login page?)`);
    return {
      data: r.body,
      contentType: sniffed ?? (type || 'application/octet-stream'),
      finalUrl: current !== url ? current : undefined,
      disposition: r.headers['content-disposition'],
    };
  }
  throw new Error('more than 5 redirects');
}

/**
 * Any http(s) URL through the browser context (its cookies, the page as Referer, the origin policy on
 * every hop): the `url` source of upload_file. Fails on a non-2xx answer.
 */
export async function fetchUrl(
  page: Page,
  url: string,
  opts: OperationOptions & { maxBytes: number },
): Promise<{ data: Buffer; contentType: string; finalUrl?: string; suggestedName?: string }> {
  const u = parseUrl(url);
  assertSchemeAllowed(u, { allowFileUrls: page.session.allowFileUrls });
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TabwrightError('invalid_request', `Only http(s) URLs can be fetched (got ${u.protocol}).`, {
      details: { field: 'url' },
    });
  return page.run('page.fetch', 'read', opts, async (d) => {
    let r: Awaited<ReturnType<typeof contextFetch>>;
    try {
      r = await contextFetch(page, u.href, page.url(), opts.maxBytes, d, false);
    } catch (err) {
      if (err instanceof TabwrightError) throw err;
      throw new TabwrightError(
        'not_ready',
        `${u.href} could not be downloaded: ${err instanceof Error ? err.message : String(err)}.`,
        {
          retryable: false,
          details: { reason: 'fetch_failed', url: u.href },
        },
      );
    }
    const fromHeader = /filename\*=(?:UTF-8'')?([^;]+)|filename="?([^";]+)"?/i.exec(r.disposition ?? '');
    let suggestedName: string | undefined;
    if (fromHeader) {
      try {
        suggestedName = decodeURIComponent((fromHeader[1] ?? fromHeader[2] ?? '').trim());
      } catch {
        suggestedName = (fromHeader[1] ?? fromHeader[2])?.trim();
      }
    }
    if (!suggestedName) {
      const last = new URL(r.finalUrl ?? u.href).pathname.split('/').pop();
      try {
        suggestedName = last ? decodeURIComponent(last) : undefined;
      } catch {
        suggestedName = last;
      }
    }
    return {
      data: r.data,
      contentType: r.contentType,
      finalUrl: r.finalUrl,
      suggestedName: suggestedName || undefined,
    };
  });
}
