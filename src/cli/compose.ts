import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Backend, BrowserFamily, SessionPlacement } from '../backends/backend.js';
import { ChromiumBackend } from '../backends/chromium/chromium-backend.js';
import { findFirefox } from '../backends/firefox/discovery.js';
import { FirefoxBackend } from '../backends/firefox/firefox-backend.js';
import { GridPlacement, type GridSettings } from '../backends/grid/grid-placement.js';
import { admissionFromEnv } from '../engine/admission.js';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { processMemory } from '../engine/engine-stats.js';
import { TabwrightError } from '../engine/errors.js';
import { log } from '../engine/log.js';
import { gridFromEnv } from './grid-options.js';

/**
 * The composition root: the one place that chooses browser backends and hands them to the engine.
 * The engine and the doors only know the backend interface (src/backends/backend.ts), so the
 * backends (Chromium over playwright-core, Firefox over WebDriver BiDi) plug in here, and so does
 * where sessions run: on this machine, or on a Selenium Grid (`--grid URL` / TABWRIGHT_GRID_URL,
 * src/backends/grid).
 */

export type EngineSettings = Omit<EngineOptions, 'backends' | 'placement'> & {
  /** The default browser family (--browser, $TABWRIGHT_BROWSER); chromium when absent. */
  browser?: BrowserFamily;
  /** Ephemeral sessions on this Grid; default: $TABWRIGHT_GRID_URL (and its companions); null = local. */
  grid?: GridSettings | null;
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

/** Where ephemeral sessions run: the Grid of the settings, else of $TABWRIGHT_GRID_URL; none = here. */
export function gridPlacement(grid?: GridSettings | null): SessionPlacement | undefined {
  const settings = grid === undefined ? gridFromEnv() : grid;
  return settings ? new GridPlacement(settings) : undefined;
}

/**
 * The engine of a command over the default backends (the default family is settings.browser, else
 * $TABWRIGHT_BROWSER). Back-pressure limits not given come from TABWRIGHT_MAX_SESSIONS /
 * TABWRIGHT_MIN_FREE_MB (every command); TABWRIGHT_STATS_FILE makes the process write its engine
 * counts there every second (bench/soak.ts reads them for the doors that have no health endpoint).
 */
export function createEngine(settings: EngineSettings = {}): Engine {
  const { grid, browser, ...rest } = settings;
  const admission = { ...admissionFromEnv(), ...rest.admission };
  const engine = new Engine({
    ...rest,
    admission,
    backends: defaultBackends(browser ?? chooseBrowser()),
    placement: gridPlacement(grid),
  });
  const statsFile = process.env.TABWRIGHT_STATS_FILE;
  if (statsFile) writeCountsEvery(engine, statsFile, 1000);
  return engine;
}

function writeCountsEvery(engine: Engine, file: string, ms: number): void {
  // How long the event loop was kept from running (synchronous work: JSON of big replies, snapshot
  // models…): what makes every other session of the process wait.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const write = () => {
    try {
      // With --expose-gc (the soak benchmark sets it), an idle engine's heap is read after a full
      // collection: what is still held once every session closed, not garbage not yet collected.
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc && engine.sessions().length === 0) gc();
      writeFileSync(
        `${file}.tmp`,
        JSON.stringify({
          at: Date.now(),
          pid: process.pid,
          heap_used_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
          loop_delay_p99_ms: Math.round(loop.percentile(99) / 1e6),
          loop_delay_max_ms: Math.round(loop.max / 1e6),
          memory: processMemory(),
          ...engine.counts(),
        }),
      );
      loop.reset();
      renameSync(`${file}.tmp`, file);
    } catch {
      // A benchmark's aid: never a reason to fail the command.
    }
  };
  setInterval(write, ms).unref();
  write();
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
