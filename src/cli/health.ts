import type { MountedRoutes } from '../doors/kit/index.js';
import { DEFAULT_MIN_FREE_MEMORY_MB } from '../engine/admission.js';
import type { Engine } from '../engine/engine.js';
import { memoryFigures } from '../engine/engine-stats.js';
import { VERSION } from '../version.js';

/** Where `tabwright serve` reports its load (the HTTP door keeps upstream's exact /playwright/health). */
export const HEALTH_PATH = '/health';

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** The health report: sessions, memory, the back-pressure limits and whether a new session would be taken. */
export function healthReport(engine: Engine) {
  const counts = engine.counts();
  const m = memoryFigures();
  const maxSessions = engine.admission.maxSessions ?? null;
  const minFreeMb = engine.admission.minFreeMemoryMb ?? DEFAULT_MIN_FREE_MEMORY_MB;
  const refusing =
    maxSessions !== null && counts.sessions >= maxSessions
      ? 'session_limit'
      : minFreeMb > 0 && mb(m.available) < minFreeMb
        ? 'low_memory'
        : null;
  return {
    ok: true,
    name: 'tabwright',
    version: VERSION,
    pid: process.pid,
    uptime_s: Math.round(process.uptime()),
    sessions: counts.sessions,
    pages: counts.pages,
    accepting_sessions: refusing === null,
    refusing_because: refusing,
    limits: { max_sessions: maxSessions, min_free_mb: minFreeMb },
    memory_mb: {
      rss: mb(m.rss),
      heap_used: mb(m.heap_used),
      machine_available: mb(m.available),
      machine_total: mb(m.total),
    },
    counts,
  };
}

/** GET /health on the serve process's server, behind the same request guard (Host, Origin, token). */
export function healthRoutes(engine: Engine): MountedRoutes {
  return {
    path: HEALTH_PATH,
    refusal: (r) => ({ ok: false, refused: true, reason: r.reason }),
    register(app) {
      app.get(HEALTH_PATH, async (_req, res) =>
        res
          .header('content-type', 'application/json; charset=utf-8')
          .send(JSON.stringify(healthReport(engine))),
      );
    },
  };
}
