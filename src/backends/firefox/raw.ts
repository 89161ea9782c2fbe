import type { RawBackendOps } from '../raw.js';
import { unsupported } from './translate-error.js';

/**
 * Firefox's raw escape hatches: the tab's id is its BiDi browsing context id; raw CDP sessions and
 * Playwright traces do not exist in Firefox and are refused with unsupported_method.
 */
export const firefoxRaw: RawBackendOps = {
  pageTargetId: async (page) => (page as { id?: string }).id ?? '',
  pageCdpSession: async () => {
    throw unsupported(
      'page.raw_session',
      'Firefox has no Chrome DevTools Protocol (tabwright drives it over WebDriver BiDi)',
    );
  },
  browserCdpSession: async () => {
    throw unsupported(
      'session.raw_session',
      'Firefox has no Chrome DevTools Protocol (tabwright drives it over WebDriver BiDi)',
    );
  },
  startTracing: async () => {
    throw unsupported('session.trace_start', 'Playwright traces are recorded by Chromium only');
  },
  stopTracing: async () => {
    throw unsupported('session.trace_stop', 'Playwright traces are recorded by Chromium only');
  },
};
