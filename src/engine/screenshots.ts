import { z } from 'zod';
import type { ScreencastFrame, ScreencastOptions, ScreenshotResult } from '../backends/backend.js';
import { staleRef } from './actions/element-calls.js';
import type { Deadline } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';
import { type ElementBox, type ElementResolver, elementResolver } from './waits.js';

/** The tallest capture: full pages, clips and elements are cut here (see `truncated`). */
export const MAX_CAPTURE_HEIGHT = 16_384;
export const MAX_CAPTURE_WIDTH = 16_384;

const ElementRef = z.string().regex(/^e[1-9][0-9]*$/);

/** Viewport (default), full page, clip or one element; the type is inferred from this schema. */
export const ScreenshotOptions = z
  .object({
    full_page: z.boolean().optional().describe('The whole page.'),
    format: z.enum(['png', 'jpeg']).optional(),
    quality: z.number().int().min(0).max(100).optional().describe('JPEG only (default 80).'),
    clip: z
      .object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() })
      .optional()
      .describe('Document CSS px.'),
    element: z
      .object({ ref: ElementRef.optional(), selector: z.string().optional() })
      .optional()
      .describe('One element: ref or selector.'),
    max_height: z
      .number()
      .int()
      .min(1)
      .max(MAX_CAPTURE_HEIGHT)
      .optional()
      .describe('Cut taller captures (max 16384).'),
  })
  .strict();

export type ScreenshotRequestOptions = z.output<typeof ScreenshotOptions> & {
  /** Overrides the registered ref resolver. */
  resolveElement?: ElementResolver;
};

export interface PageScreenshot extends ScreenshotResult {
  mode: 'viewport' | 'full_page' | 'clip' | 'element';
  /** True when the capture was cut at max_height; `page_height` tells how tall the full area was. */
  truncated: boolean;
  /** Height in CSS px of what was asked for (page, clip or element) before any cut. */
  requested_height: number | null;
}

function invalid(message: string, field: string): TabwrightError {
  return new TabwrightError('invalid_request', message, { details: { field } });
}

export function validateScreenshot(req: ScreenshotRequestOptions): void {
  // full_page with clip is a clip (document coordinates either way); element excludes both.
  const modes = [
    req.full_page && !req.clip ? 'full_page' : null,
    req.clip ? 'clip' : null,
    req.element ? 'element' : null,
  ].filter(Boolean);
  if (modes.length > 1) {
    throw invalid(`Choose one of full_page, clip and element; got ${modes.join(' and ')}.`, modes[1]!);
  }
  const format = req.format ?? 'png';
  if (format !== 'png' && format !== 'jpeg') throw invalid('format is "png" or "jpeg".', 'format');
  if (req.quality !== undefined) {
    if (format !== 'jpeg')
      throw invalid('quality applies only to format "jpeg"; drop it or set format "jpeg".', 'quality');
    if (!Number.isInteger(req.quality) || req.quality < 0 || req.quality > 100)
      throw invalid('quality is an integer from 0 to 100.', 'quality');
  }
  if (req.clip) {
    const { x, y, width, height } = req.clip;
    if (![x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n)) || x < 0 || y < 0) {
      throw invalid(
        'clip needs numbers x ≥ 0, y ≥ 0, width > 0 and height > 0 (CSS px, document coordinates).',
        'clip',
      );
    }
    if (width <= 0 || height <= 0) throw invalid('clip width and height must be greater than 0.', 'clip');
    if (width > MAX_CAPTURE_WIDTH) throw invalid(`clip width is at most ${MAX_CAPTURE_WIDTH} px.`, 'clip');
  }
  if (req.element) {
    const { ref, selector } = req.element;
    if ((ref === undefined) === (selector === undefined) || (ref ?? selector) === '') {
      throw invalid('element needs exactly one of ref or selector.', 'element');
    }
  }
  if (req.max_height !== undefined) {
    if (!Number.isInteger(req.max_height) || req.max_height < 1 || req.max_height > MAX_CAPTURE_HEIGHT) {
      throw invalid(`max_height is an integer from 1 to ${MAX_CAPTURE_HEIGHT}.`, 'max_height');
    }
  }
}

/** Document size and the box of the element matching `selector` (count tells how many matched). */
function measure(selector: string | null): {
  width: number;
  height: number;
  count: number;
  box: { x: number; y: number; width: number; height: number } | null;
  invalid?: boolean;
} {
  const de = document.documentElement;
  const width = Math.max(de.scrollWidth, document.body?.scrollWidth ?? 0, de.clientWidth);
  const height = Math.max(de.scrollHeight, document.body?.scrollHeight ?? 0, de.clientHeight);
  if (selector === null) return { width, height, count: 0, box: null };
  let els: Element[];
  try {
    els = Array.from(document.querySelectorAll(selector));
  } catch {
    return { width, height, count: 0, box: null, invalid: true };
  }
  if (els.length !== 1) return { width, height, count: els.length, box: null };
  const r = els[0]!.getBoundingClientRect();
  const box =
    r.width > 0 && r.height > 0
      ? { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height }
      : null;
  return { width, height, count: 1, box };
}

/** Takes the screenshot (inside the page's queue). */
export async function captureScreenshot(
  page: Page,
  req: ScreenshotRequestOptions,
  d: Deadline,
): Promise<PageScreenshot> {
  page.dialogs.assertNoneHeld('page.screenshot');
  const maxHeight = req.max_height ?? MAX_CAPTURE_HEIGHT;
  const t = () => Math.max(1, d.remaining());
  const shoot = (fullPage: boolean, clip?: ElementBox) =>
    page.backend.screenshot({ fullPage, clip, format: req.format, quality: req.quality, timeoutMs: t() });

  if (!req.full_page && !req.clip && !req.element) {
    return { ...(await shoot(false)), mode: 'viewport', truncated: false, requested_height: null };
  }
  const selector = req.element?.selector ?? null;
  const m = await page.backend.evaluate(measure, selector, Math.min(5000, t()));
  let area: ElementBox;
  let mode: PageScreenshot['mode'];
  if (req.full_page && !req.clip) {
    mode = 'full_page';
    area = { x: 0, y: 0, width: m.width, height: m.height };
  } else if (req.clip) {
    mode = 'clip';
    area = { ...req.clip };
    if (area.x >= m.width || area.y >= m.height) {
      throw new TabwrightError(
        'invalid_request',
        `clip starts outside the page (the page is ${m.width}×${m.height} CSS px). Pass a clip inside it.`,
        { details: { field: 'clip', page_width: m.width, page_height: m.height } },
      );
    }
  } else {
    mode = 'element';
    area = await elementArea(page, req, m, d);
  }
  // Keep the area inside the document.
  if (area.x < 0) {
    area.width += area.x;
    area.x = 0;
  }
  if (area.y < 0) {
    area.height += area.y;
    area.y = 0;
  }
  area.width = Math.min(area.width, m.width - area.x);
  area.height = Math.min(area.height, m.height - area.y);
  const requested = Math.ceil(area.height);
  const truncated = area.height > maxHeight;
  if (truncated) area.height = maxHeight;
  if (area.width > MAX_CAPTURE_WIDTH) area.width = MAX_CAPTURE_WIDTH;
  const shot = await shoot(true, area);
  return { ...shot, mode, truncated, requested_height: requested };
}

async function elementArea(
  page: Page,
  req: ScreenshotRequestOptions,
  m: ReturnType<typeof measure>,
  d: Deadline,
): Promise<ElementBox> {
  const el = req.element!;
  if (el.selector !== undefined) {
    if (m.invalid) {
      throw new TabwrightError(
        'invalid_selector',
        `"${el.selector}" is not a valid CSS selector. Fix the selector.`,
        {
          details: { selector: el.selector },
        },
      );
    }
    if (m.count === 0) {
      throw new TabwrightError(
        'element_not_found',
        `No element matches "${el.selector}". Take a snapshot and use a ref, or check the selector.`,
        { details: { selector: el.selector, match_count: 0, reason: 'no_match' } },
      );
    }
    if (m.count > 1) {
      throw new TabwrightError(
        'invalid_selector',
        `"${el.selector}" matches ${m.count} elements; an element screenshot needs exactly one. Make the selector more specific or use a ref.`,
        { details: { selector: el.selector, match_count: m.count } },
      );
    }
    if (!m.box) throw notVisible({ selector: el.selector });
    return m.box;
  }
  const resolver = elementResolver(req.resolveElement);
  const found = await resolver(el.ref!, { page, timeoutMs: Math.min(5000, Math.max(1, d.remaining())) });
  if (!found) {
    // The same stale-ref failure as every other ref call (doors map reason stale_ref, never a bare "stale").
    throw staleRef(el.ref!, 'it no longer names an element on the page');
  }
  if (!found.box || found.box.width <= 0 || found.box.height <= 0) throw notVisible({ ref: el.ref });
  return { ...found.box };
}

function notVisible(target: Record<string, unknown>): TabwrightError {
  return new TabwrightError(
    'element_not_actionable',
    'The element has no visible box (hidden, display:none or zero size), so there is nothing to capture. Wait until it is visible, or capture the viewport.',
    { details: { ...target, reason: 'not_visible' } },
  );
}

/**
 * A live view of the page for a person (the HTTP door's dashboard): JPEG
 * frames as the page renders, until the returned function is called. Outside
 * the page queue on purpose: it only watches, and it lasts as long as the
 * viewer does.
 */
export async function startLiveView(
  page: Page,
  opts: ScreencastOptions,
  onFrame: (frame: ScreencastFrame) => void,
): Promise<() => Promise<void>> {
  page.assertUsable();
  return page.backend.startScreencast(opts, onFrame);
}
