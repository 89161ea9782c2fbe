/**
 * Everything of the Chromium backend that needs playwright-core, loaded on the first launch or
 * attach (chromium-backend.ts): playwright-core is about half of a Node process's memory (≈ 49 MB
 * PSS of ≈ 95 MB before any browser), so a command that never drives a browser (doctor, the js
 * client, conformance, --help) or a provider before its first session does not pay for it.
 */
import { playwrightCore } from './load-playwright.js';
import { installRedirectHops } from './redirect-hops.js';
import { boundRequestObjects } from './request-objects.js';

// playwright-core first, through its lean loader: the bounds below reach into the module it loaded.
export const chromium = playwrightCore().chromium;
export { ChromiumBrowser, chromiumProxy } from './chromium-browser.js';
export { driverDefaultArgs } from './default-args.js';
export { translatePlaywrightError } from './translate-error.js';

export type Driver = typeof import('./driver.js');

/** Whether the driver's request objects are bounded by ours (request-objects.ts). */
export const requestObjectsBounded = boundRequestObjects();

// Redirect hops judged in playwright-core's own request pause (redirect-hops.ts): the hook goes on
// before the first page. Where it cannot, chromium-browser.ts gates each page itself (and warns once).
installRedirectHops();
