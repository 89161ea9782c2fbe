import { renameSync, writeFileSync } from 'node:fs';
import type { Backend, SessionPlacement } from '../backends/backend.js';
import { ChromiumBackend } from '../backends/chromium/chromium-backend.js';
import { GridPlacement, type GridSettings } from '../backends/grid/grid-placement.js';
import { admissionFromEnv } from '../engine/admission.js';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { gridFromEnv } from './grid-options.js';

/**
 * The composition root: the one place that chooses browser backends and hands them to the engine.
 * The engine and the doors only know the backend interface (src/backends/backend.ts), so a second
 * backend (Firefox over WebDriver BiDi) plugs in here, and so does where sessions run: on this
 * machine, or on a Selenium Grid (`--grid URL` / TABWRIGHT_GRID_URL, src/backends/grid).
 */

export type EngineSettings = Omit<EngineOptions, 'backends' | 'placement'> & {
  /** Ephemeral sessions on this Grid; default: $TABWRIGHT_GRID_URL (and its companions); null = local. */
  grid?: GridSettings | null;
};

/** The backends this process offers, the default first. */
export function defaultBackends(): Backend[] {
  return [new ChromiumBackend()];
}

function placement(grid: GridSettings | null | undefined): SessionPlacement | undefined {
  const settings = grid === undefined ? gridFromEnv() : grid;
  return settings ? new GridPlacement(settings) : undefined;
}

/**
 * The engine of a command. Back-pressure limits not given come from TABWRIGHT_MAX_SESSIONS /
 * TABWRIGHT_MIN_FREE_MB (every command); TABWRIGHT_STATS_FILE makes the process write its engine
 * counts there every second (bench/soak.ts reads them for the doors that have no health endpoint).
 */
export function createEngine(settings: EngineSettings = {}): Engine {
  const { grid, ...rest } = settings;
  const admission = { ...admissionFromEnv(), ...rest.admission };
  const engine = new Engine({ ...rest, admission, backends: defaultBackends(), placement: placement(grid) });
  const statsFile = process.env.TABWRIGHT_STATS_FILE;
  if (statsFile) writeCountsEvery(engine, statsFile, 1000);
  return engine;
}

function writeCountsEvery(engine: Engine, file: string, ms: number): void {
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
          ...engine.counts(),
        }),
      );
      renameSync(`${file}.tmp`, file);
    } catch {
      // A benchmark's aid: never a reason to fail the command.
    }
  };
  setInterval(write, ms).unref();
  write();
}

/** Makes engines with the same backends (a door that needs a second engine, e.g. a headed one). */
export type EngineFactory = (settings: EngineSettings) => Engine;

/**
 * How long a command's shutdown waits for its browsers to close before the engine kills them (and
 * removes their temporary profiles): a hung browser never keeps a stopped command alive.
 */
export const SHUTDOWN_GRACE_MS = 3000;
