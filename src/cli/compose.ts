import type { Backend, BrowserFamily } from '../backends/backend.js';
import { ChromiumBackend } from '../backends/chromium/chromium-backend.js';
import { findFirefox } from '../backends/firefox/discovery.js';
import { FirefoxBackend } from '../backends/firefox/firefox-backend.js';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { TabwrightError } from '../engine/errors.js';
import { log } from '../engine/log.js';

/**
 * The composition root: the one place that chooses browser backends and hands them to the engine.
 * The engine and the doors only know the backend interface (src/backends/backend.ts).
 */

export type EngineSettings = Omit<EngineOptions, 'backends'> & {
  /** The default browser family (--browser, $TABWRIGHT_BROWSER); chromium when absent. */
  browser?: BrowserFamily;
};

export const BROWSER_FAMILIES: readonly BrowserFamily[] = ['chromium', 'firefox'];

/**
 * The family a command was asked for: its --browser value, else $TABWRIGHT_BROWSER, else chromium.
 * Anything else is refused with the families there are.
 */
export function chooseBrowser(flag?: string, env = process.env): BrowserFamily {
  const wanted = (flag ?? env.TABWRIGHT_BROWSER ?? 'chromium').trim().toLowerCase();
  if ((BROWSER_FAMILIES as readonly string[]).includes(wanted)) return wanted as BrowserFamily;
  throw new TabwrightError(
    'invalid_request',
    `Unknown browser "${wanted}" (from ${flag !== undefined ? '--browser' : 'TABWRIGHT_BROWSER'}); use chromium or firefox.`,
    { details: { field: 'browser', supported: [...BROWSER_FAMILIES] } },
  );
}

/**
 * The backends this process offers, the default first. Chromium is always offered (its absence is a
 * setup problem doctor reports); Firefox when it is installed, or when it is the default (then a
 * missing Firefox gives setup_required with the install command at the first session).
 */
/** chooseBrowser for a command: an unknown family ends the process with exit code 2 and the reason. */
export function browserOrExit(command: string, flag?: string): BrowserFamily {
  try {
    return chooseBrowser(flag);
  } catch (err) {
    process.stderr.write(`tabwright ${command}: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

export function defaultBackends(browser: BrowserFamily = 'chromium'): Backend[] {
  const chromium = new ChromiumBackend();
  const firefox = new FirefoxBackend();
  if (browser === 'firefox') return [firefox, chromium];
  let firefoxInstalled = false;
  try {
    firefoxInstalled = findFirefox() !== undefined;
  } catch {
    // A TABWRIGHT_FIREFOX that points nowhere: doctor says so; Chromium sessions are unaffected.
  }
  return firefoxInstalled ? [chromium, firefox] : [chromium];
}

/** Both backends, the chosen default first, installed or not (doctor lists what each one finds). */
export function everyBackend(browser: BrowserFamily = 'chromium'): Backend[] {
  const both: Backend[] = [new ChromiumBackend(), new FirefoxBackend()];
  return browser === 'firefox' ? both.reverse() : both;
}

/** An engine over the default backends; the default family is settings.browser, else $TABWRIGHT_BROWSER. */
export function createEngine(settings: EngineSettings = {}): Engine {
  const { browser, ...rest } = settings;
  return new Engine({ ...rest, backends: defaultBackends(browser ?? chooseBrowser()) });
}

/**
 * Firefox starts 6-8 times slower than Chromium (about 4 s of its WebDriver BiDi session.new alone,
 * far more on a loaded machine). A door whose default family is Firefox launches it in the
 * background at start-up, so its first session does not spend its deadline waiting for the browser
 * (a session that comes meanwhile waits for the same launch).
 */
export function warmUp(engine: Engine, browser: BrowserFamily): void {
  if (browser !== 'firefox') return;
  void engine
    .startSession({ browser }, { timeoutMs: 60_000 })
    .then((s) => engine.closeSession(s.id))
    .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'Firefox warm-up launch failed'));
}

/** Makes engines with the same backends (a door that needs a second engine, e.g. a headed one). */
export type EngineFactory = (settings: EngineSettings) => Engine;

/**
 * How long a command's shutdown waits for its browsers to close before the engine kills them (and
 * removes their temporary profiles): a hung browser never keeps a stopped command alive.
 */
export const SHUTDOWN_GRACE_MS = 3000;
