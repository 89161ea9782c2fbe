import { chromiumRaw } from '../backends/chromium/raw.js';
import type { RawCdpSession, TracingOptions } from '../backends/raw.js';
import type { Page } from './page.js';
import type { Session } from './session.js';

/**
 * Thin engine hooks over the backends' raw escape hatches (src/backends/raw.ts):
 * tab ids, raw CDP sessions and tracing. Doors that expose raw CDP must say
 * that it bypasses the engine's guards.
 */
function ops(family: string) {
  if (family !== 'chromium') throw new Error(`no raw backend for ${family}`);
  return chromiumRaw;
}

export type { RawCdpSession, TracingOptions };

export function pageTargetId(page: Page): Promise<string> {
  return ops(page.session.browser.family).pageTargetId(page.backend);
}

export function pageCdpSession(page: Page): Promise<RawCdpSession> {
  page.assertUsable();
  return ops(page.session.browser.family).pageCdpSession(page.backend);
}

export function sessionCdpSession(session: Session, targetId?: string): Promise<RawCdpSession> {
  session.assertAlive();
  return ops(session.browser.family).browserCdpSession(session.browser, targetId);
}

export function startTracing(session: Session, opts: TracingOptions = {}): Promise<void> {
  session.assertAlive();
  return ops(session.browser.family).startTracing(session.context, opts);
}

export function stopTracing(session: Session, path: string): Promise<void> {
  return ops(session.browser.family).stopTracing(session.context, path);
}
