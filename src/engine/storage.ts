import type { BackendCookie } from '../backends/backend.js';
import type { Deadline } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';

export type StorageArea = 'local' | 'session';

/** Documents without storage (about:blank, data: URLs, sandboxed frames) throw SecurityError: say so. */
async function withStorage<T>(page: Page, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (
      err instanceof TabwrightError &&
      /SecurityError|Access is denied|denied for this document/i.test(
        String(err.details.cause ?? err.message),
      )
    ) {
      throw new TabwrightError(
        'unsupported_target',
        `This document (${page.url()}) has no web storage (about:blank, data: URLs and sandboxed documents have none). Open an http(s) page first.`,
        { details: { reason: 'no_storage', url: page.url() } },
      );
    }
    throw err;
  }
}

function checkArea(area: unknown): StorageArea {
  if (area !== 'local' && area !== 'session') {
    throw new TabwrightError('invalid_request', 'area must be "local" or "session".', {
      details: { field: 'area' },
    });
  }
  return area;
}

/** Reads the page's localStorage / sessionStorage: every key, or one (null when absent). */
export async function storageGet(
  page: Page,
  area: StorageArea,
  key: string | undefined,
  d: Deadline,
): Promise<Record<string, string> | string | null> {
  checkArea(area);
  page.assertPageAllowed();
  return withStorage(page, () =>
    page.backend.evaluate(
      (a: { area: StorageArea; key?: string }) => {
        const s = a.area === 'local' ? localStorage : sessionStorage;
        if (a.key !== undefined) return s.getItem(a.key);
        const all: Record<string, string> = {};
        for (let i = 0; i < s.length; i++) {
          const k = s.key(i);
          if (k !== null) all[k] = s.getItem(k) ?? '';
        }
        return all;
      },
      { area, key },
      Math.max(1, d.remaining()),
    ),
  );
}

export async function storageSet(
  page: Page,
  area: StorageArea,
  key: string,
  value: string,
  d: Deadline,
): Promise<void> {
  checkArea(area);
  if (typeof key !== 'string' || typeof value !== 'string') {
    throw new TabwrightError('invalid_request', 'key and value must be strings.', {
      details: { field: 'key' },
    });
  }
  page.assertPageAllowed();
  await withStorage(page, () =>
    page.backend.evaluate(
      (a: { area: StorageArea; key: string; value: string }) => {
        (a.area === 'local' ? localStorage : sessionStorage).setItem(a.key, a.value);
      },
      { area, key, value },
      Math.max(1, d.remaining()),
    ),
  );
}

/** Removes one key, or clears the area when no key is given. */
export async function storageRemove(
  page: Page,
  area: StorageArea,
  key: string | undefined,
  d: Deadline,
): Promise<void> {
  checkArea(area);
  page.assertPageAllowed();
  await withStorage(page, () =>
    page.backend.evaluate(
      (a: { area: StorageArea; key?: string }) => {
        const s = a.area === 'local' ? localStorage : sessionStorage;
        if (a.key === undefined) s.clear();
        else s.removeItem(a.key);
      },
      { area, key },
      Math.max(1, d.remaining()),
    ),
  );
}

export type Cookie = BackendCookie;
