import type { Backend } from '../backends/backend.js';
import { ChromiumBackend } from '../backends/chromium/chromium-backend.js';
import { Engine, type EngineOptions } from '../engine/engine.js';

/**
 * The composition root: the one place that chooses browser backends and hands them to the engine.
 * The engine and the doors only know the backend interface (src/backends/backend.ts), so a second
 * backend (Firefox over WebDriver BiDi, sessions on a Grid) plugs in here.
 */

export type EngineSettings = Omit<EngineOptions, 'backends'>;

/** The backends this process offers, the default first. */
export function defaultBackends(): Backend[] {
  return [new ChromiumBackend()];
}

export function createEngine(settings: EngineSettings = {}): Engine {
  return new Engine({ ...settings, backends: defaultBackends() });
}

/** Makes engines with the same backends (a door that needs a second engine, e.g. a headed one). */
export type EngineFactory = (settings: EngineSettings) => Engine;

/**
 * How long a command's shutdown waits for its browsers to close before the engine kills them (and
 * removes their temporary profiles): a hung browser never keeps a stopped command alive.
 */
export const SHUTDOWN_GRACE_MS = 3000;
