import type { ContextEmulation } from '../backends/backend.js';
import type { OperationOptions } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';
import type { Session } from './session.js';

/**
 * Browser settings a door can change on a live session: viewport and color
 * scheme per page (through the page's queue), geolocation, offline mode and
 * extra request headers per session (context-wide), and PDF output.
 */

function invalid(message: string, field: string): TabwrightError {
  return new TabwrightError('invalid_request', message, { details: { field } });
}

export async function setViewport(
  page: Page,
  size: { width: number; height: number },
  opts?: OperationOptions,
): Promise<void> {
  for (const k of ['width', 'height'] as const) {
    const v = size[k];
    if (!Number.isInteger(v) || v < 1 || v > 10_000)
      throw invalid(`${k} must be an integer from 1 to 10000 (CSS px).`, k);
  }
  await page.run('page.set_viewport', 'action', opts, () => page.backend.emulation.setViewport(size));
}

export type ColorScheme = 'light' | 'dark' | 'no-preference';

export async function setColorScheme(
  page: Page,
  scheme: ColorScheme | null,
  opts?: OperationOptions,
): Promise<void> {
  if (scheme !== null && !['light', 'dark', 'no-preference'].includes(scheme))
    throw invalid('colorScheme must be light, dark or no-preference.', 'colorScheme');
  await page.run('page.emulate_media', 'action', opts, () =>
    page.backend.emulation.emulateMedia({ colorScheme: scheme }),
  );
}

/** Geolocation (grants the permission), offline mode and extra headers for every page of the session. */
export async function emulateSession(session: Session, settings: ContextEmulation): Promise<void> {
  const g = settings.geolocation;
  if (g) {
    if (!(Math.abs(g.latitude) <= 90)) throw invalid('latitude must be between -90 and 90.', 'latitude');
    if (!(Math.abs(g.longitude) <= 180))
      throw invalid('longitude must be between -180 and 180.', 'longitude');
  }
  if (settings.extraHeaders) {
    for (const [k, v] of Object.entries(settings.extraHeaders)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) || typeof v !== 'string' || /[\r\n]/.test(v))
        throw invalid(`Header ${JSON.stringify(k)} is not a valid HTTP header name/value.`, 'headers');
    }
  }
  session.assertAlive();
  await session.guarded(session.context.emulate(settings));
}

/** The page printed to PDF (headless Chromium only). */
export async function printPdf(page: Page, opts?: OperationOptions): Promise<Buffer> {
  return page.run('page.pdf', 'read', opts, (d) => page.backend.emulation.pdf(Math.max(1, d.remaining())));
}
