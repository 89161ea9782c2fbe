/**
 * The parts of the Firefox backend that talk to a running Firefox, loaded on the first launch or
 * attach (firefox-backend.ts): the WebDriver BiDi client and its WebSocket library (ws) are ≈ 4-5 MB
 * of a process, which every command that offers Firefox (it is installed) but never runs it would
 * otherwise pay.
 */
export { BidiConnection } from './bidi-connection.js';
export { FirefoxBrowser } from './firefox-browser.js';

export type Driver = typeof import('./driver.js');
