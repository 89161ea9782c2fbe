import { availableMemory } from './engine-stats.js';
import { TabwrightError } from './errors.js';

/**
 * Back-pressure: whether this process takes one more session. A machine that cannot take more
 * refuses the new session with a retryable error that says why, rather than slowing every running
 * session down (a browser context costs about 100 MB: its renderer).
 */
export interface AdmissionLimits {
  /** Sessions this engine holds at once (started and starting); undefined: no limit. */
  maxSessions?: number;
  /** Refuse a new session when the machine has less memory available than this (MiB); 0: never. */
  minFreeMemoryMb?: number;
}

/** Below this much available memory a new session is refused unless configured otherwise. */
export const DEFAULT_MIN_FREE_MEMORY_MB = 256;

export function checkAdmission(
  limits: AdmissionLimits,
  sessions: number,
  available: () => number = availableMemory,
): void {
  const max = limits.maxSessions;
  if (max !== undefined && sessions >= max) {
    throw new TabwrightError(
      'not_ready',
      `This tabwright process already holds ${sessions} sessions, its limit (--max-sessions / TABWRIGHT_MAX_SESSIONS = ${max}). Close a session you no longer need, or retry when one ends.`,
      { retryable: true, details: { reason: 'session_limit', sessions, max_sessions: max } },
    );
  }
  const floorMb = limits.minFreeMemoryMb ?? DEFAULT_MIN_FREE_MEMORY_MB;
  if (floorMb <= 0) return;
  const availableMb = Math.floor(available() / 2 ** 20);
  if (availableMb < floorMb) {
    throw new TabwrightError(
      'not_ready',
      `The machine has ${availableMb} MiB of memory available, below this process's floor of ${floorMb} MiB (--min-free-mb / TABWRIGHT_MIN_FREE_MB): a new browser session would slow every running one down. Close sessions, free memory, or retry later.`,
      {
        retryable: true,
        details: { reason: 'low_memory', available_mb: availableMb, min_free_mb: floorMb, sessions },
      },
    );
  }
}

/** Limits from the environment (TABWRIGHT_MAX_SESSIONS, TABWRIGHT_MIN_FREE_MB); a bad value is an error. */
export function admissionFromEnv(env: NodeJS.ProcessEnv = process.env): AdmissionLimits {
  const read = (name: string, min: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`${name} must be an integer ≥ ${min}; got "${raw}".`);
    return n;
  };
  return {
    maxSessions: read('TABWRIGHT_MAX_SESSIONS', 1),
    minFreeMemoryMb: read('TABWRIGHT_MIN_FREE_MB', 0),
  };
}
