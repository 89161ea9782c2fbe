import type { Backend, SessionPlacement } from '../backends/backend.js';
import { ChromiumBackend } from '../backends/chromium/chromium-backend.js';
import { GridPlacement, type GridSettings } from '../backends/grid/grid-placement.js';
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

export function createEngine(settings: EngineSettings = {}): Engine {
  const { grid, ...rest } = settings;
  return new Engine({ ...rest, backends: defaultBackends(), placement: placement(grid) });
}

/** Makes engines with the same backends (a door that needs a second engine, e.g. a headed one). */
export type EngineFactory = (settings: EngineSettings) => Engine;

/**
 * How long a command's shutdown waits for its browsers to close before the engine kills them (and
 * removes their temporary profiles): a hung browser never keeps a stopped command alive.
 */
export const SHUTDOWN_GRACE_MS = 3000;
