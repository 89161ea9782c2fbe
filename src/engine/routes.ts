import type { BackendContext, BackendRoute } from '../backends/backend.js';
import { TabwrightError } from './errors.js';

/** What a caller asks for; defaults: abort; mock answers 200 text/plain with an empty body. */
export interface RouteRequest {
  pattern: string;
  action?: 'abort' | 'mock';
  status?: number;
  content_type?: string;
  body?: string;
}

export interface RouteRecord {
  pattern: string;
  action: 'abort' | 'mock';
  status: number;
  content_type: string;
  body_length: number;
  added_at: number;
}

const MAX_ROUTES = 100;

/**
 * A session's routes: requests matching a Playwright-native glob (`*` stops at
 * "/", `**` crosses it) are aborted or answered with a fixed response. The
 * backend composes them with the origin-policy filter, so a mock never
 * answers a request the policy refuses. Later routes win over earlier ones.
 */
export class SessionRoutes {
  private readonly records: RouteRecord[] = [];

  constructor(private readonly context: BackendContext) {}

  async add(req: RouteRequest): Promise<RouteRecord> {
    if (typeof req.pattern !== 'string' || req.pattern.trim() === '') {
      throw new TabwrightError('invalid_request', 'A route needs a non-empty URL pattern.', {
        details: { field: 'pattern' },
      });
    }
    if (this.records.length >= MAX_ROUTES) {
      throw new TabwrightError(
        'invalid_request',
        `A session holds at most ${MAX_ROUTES} routes; remove some first.`,
        {
          details: { field: 'pattern', max: MAX_ROUTES },
        },
      );
    }
    const spec: BackendRoute = {
      pattern: req.pattern,
      action: req.action ?? 'abort',
      status: req.status ?? 200,
      contentType: req.content_type ?? 'text/plain; charset=utf-8',
      body: req.body ?? '',
    };
    await this.context.addRoute(spec);
    const rec: RouteRecord = {
      pattern: spec.pattern,
      action: spec.action,
      status: spec.status,
      content_type: spec.contentType,
      body_length: spec.body.length,
      added_at: Date.now(),
    };
    this.records.push(rec);
    return { ...rec };
  }

  /** Removes the routes of `pattern` (all routes when omitted); returns how many were removed. */
  async remove(pattern?: string): Promise<number> {
    const before = this.records.length;
    await this.context.removeRoutes(pattern);
    for (let i = this.records.length - 1; i >= 0; i--) {
      if (pattern === undefined || this.records[i]!.pattern === pattern) this.records.splice(i, 1);
    }
    return before - this.records.length;
  }

  list(): RouteRecord[] {
    return this.records.map((r) => ({ ...r }));
  }
}
