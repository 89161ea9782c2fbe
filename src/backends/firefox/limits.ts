import type { BackendLimits } from '../backend.js';

const NO_CDP = 'no Chrome DevTools Protocol in Firefox (tabwright drives it over WebDriver BiDi)';
const NO_TRACES = 'Playwright traces are recorded by Chromium only';

/**
 * What a Firefox session refuses (raw.ts, firefox-page.ts answer these with unsupported_method) and
 * what it does differently. Firefox ESR 153 over WebDriver BiDi has no CDP, no media emulation, no
 * renderer-crash event and no Playwright browser server.
 */
export const FIREFOX_LIMITS: BackendLimits = {
  label: 'Firefox',
  unsupportedOps: {
    'page.raw_session': NO_CDP,
    'page.raw_send': NO_CDP,
    'session.raw_session': NO_CDP,
    'session.trace_start': NO_TRACES,
    'session.trace_stop': NO_TRACES,
    'page.set_color_scheme': 'Firefox ESR has no media emulation over WebDriver BiDi',
  },
  notes: [
    'every other operation works on Firefox sessions; screenshots, page scripts and file uploads go over BiDi',
    'attach takes a Firefox started with --remote-debugging-port (its BiDi endpoint http://127.0.0.1:PORT); Firefox allows one BiDi client at a time',
    'remote Playwright browser servers are Chromium only (unsupported_target)',
    'a renderer crash is reported as a closed page',
    'the live view is a stream of screenshots (about 5 per second), not a screencast',
  ],
};
