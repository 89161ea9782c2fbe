import type { OperationOptions } from './deadline.js';
import { DEEP_TEXT_SOURCE } from './deep-text.js';
import { TabwrightError } from './errors.js';
import { frameById } from './frames.js';
import type { Page } from './page.js';
import { COLLECT_SECRETS_SOURCE, SECRET_FREE_COPY_SOURCE } from './semantics/secret-sources.js';
import type { FoundSecrets } from './semantics/secrets.js';

/**
 * Page content reads (text, HTML) and absolute page scrolling, for doors
 * whose protocol has them as plain verbs (the sgClaw pipe's getText,
 * getHtml, scrollTo {x, y}). Reads run in the page's queue under a deadline.
 * A selector reads the first matching element of the main document and
 * reports how many matched.
 */

export interface ContentRead {
  /** innerText (text) or outerHTML (html); the whole document without a selector. */
  content: string;
  /** Elements the selector matched (1 without a selector). */
  match_count: number;
  url: string;
}

type ReadResult =
  | { ok: true; content: string; count: number; secrets: FoundSecrets }
  | { ok: false; reason: 'invalid' | 'none'; message: string };

/**
 * `(arg) => ReadResult`, run in the page from its source text. The secret rule decides what the
 * read leaves out: HTML drops secret fields' values (secretFreeCopy), and both reads bring back
 * the secret values under the element so the engine can register and scrub them (text reads
 * include what a private contenteditable shows).
 */
const readInPage = new Function(
  'arg',
  `const doc = document;
   let el = doc.documentElement;
   let count = 1;
   if (arg.selector !== null) {
     let list;
     try { list = doc.querySelectorAll(arg.selector); }
     catch (err) { return { ok: false, reason: 'invalid', message: err instanceof Error ? err.message : String(err) }; }
     if (!list[0]) return { ok: false, reason: 'none', message: '' };
     el = list[0];
     count = list.length;
   }
   const secrets = (${COLLECT_SECRETS_SOURCE})(el);
   if (arg.kind === 'text') {
     const from = arg.selector === null ? doc : el;
     // With shadow roots and same-origin frames, as the snapshot shows them.
     const text = from === doc || from.namespaceURI === 'http://www.w3.org/1999/xhtml' ? (${DEEP_TEXT_SOURCE})(from) : (el.textContent ?? '');
     return { ok: true, content: text, count, secrets };
   }
   const out = (${SECRET_FREE_COPY_SOURCE})(el);
   const doctype = arg.selector === null && doc.doctype ? '<!DOCTYPE ' + doc.doctype.name + '>\\n' : '';
   return { ok: true, content: doctype + out.outerHTML, count, secrets };`,
) as (arg: { selector: string | null; kind: 'text' | 'html' }) => ReadResult;

/** Where a read looks: the main document, or the frame with this engine frame id. */
export type ReadOptions = OperationOptions & { frame?: string };

async function read(
  page: Page,
  kind: 'text' | 'html',
  selector: string | undefined,
  opts: ReadOptions = {},
): Promise<ContentRead> {
  page.assertPageAllowed();
  const arg = { selector: selector ?? null, kind };
  const r = opts.frame
    ? await page.run(`page.read_${kind}`, 'read', opts, (d) =>
        frameById(page, opts.frame!).evaluate(readInPage, arg, Math.max(1, d.remaining())),
      )
    : await page.evaluate(`page.read_${kind}`, readInPage, arg, opts);
  if (!r.ok) {
    if (r.reason === 'invalid') {
      throw new TabwrightError(
        'invalid_selector',
        `"${selector}" is not a valid CSS selector (${r.message}). Fix the selector.`,
        {
          details: { field: 'selector' },
        },
      );
    }
    throw new TabwrightError(
      'element_not_found',
      `No element matches "${selector}". Take a snapshot to see what the page shows, or wait for the element first.`,
      { details: { field: 'selector', match_count: 0 } },
    );
  }
  const secrets = page.session.secrets;
  secrets.addFound(r.secrets);
  return { content: secrets.scrubText(r.content), match_count: r.count, url: page.url() };
}

/** The rendered text (innerText) of the page or of the first element matching `selector`. */
export function readText(page: Page, selector?: string, opts?: ReadOptions): Promise<ContentRead> {
  return read(page, 'text', selector, opts);
}

/** The HTML (outerHTML, with the doctype for the whole page) of the page or of the first match. */
export function readHtml(page: Page, selector?: string, opts?: ReadOptions): Promise<ContentRead> {
  return read(page, 'html', selector, opts);
}

export interface PageLink {
  /** The link's rendered text, trimmed, at most 200 characters. */
  text: string;
  /** The absolute URL. */
  href: string;
}

/** The links of the main document in document order (`a[href]`), at most `limit`. */
export function readLinks(page: Page, limit = 500, opts?: OperationOptions): Promise<PageLink[]> {
  page.assertPageAllowed();
  return page.evaluate(
    'page.read_links',
    (max: number) =>
      Array.from(document.querySelectorAll<HTMLAnchorElement>('a[href]'))
        .slice(0, max)
        .map((a) => ({ text: (a.innerText || '').trim().slice(0, 200), href: a.href })),
    limit,
    opts,
  );
}

/** Scrolls the page to document coordinates (CSS px, clamped by the browser); returns where it ended. */
export async function scrollPageTo(
  page: Page,
  x: number,
  y: number,
  opts?: OperationOptions,
): Promise<{ x: number; y: number }> {
  page.assertPageAllowed();
  return page.evaluate(
    'page.scroll_to',
    (p: { x: number; y: number }) => {
      window.scrollTo({ left: p.x, top: p.y, behavior: 'instant' });
      return { x: window.scrollX, y: window.scrollY };
    },
    { x, y },
    opts,
  );
}
