import type { FastifyInstance } from 'fastify';

/**
 * Doors that share one HTTP server (`tabwright serve`: the HTTP command door hosts /mcp). The host
 * door owns the server and its request guard; the composition root (src/cli) hands it the routes of
 * the other doors, so no door imports another.
 */

/** Why the host server's request guard refused a request (each door words it in its own language). */
export type RefusalReason = 'host' | 'origin' | 'fetch_site' | 'token' | 'content_type';

export interface Refusal {
  status: 401 | 403 | 415;
  reason: RefusalReason;
  /** The header value that was refused (Host, Origin, Sec-Fetch-Site, Content-Type), when there is one. */
  got?: string;
  /** The server's own origin as the request's Host header names it (http://127.0.0.1:10049). */
  origin?: string;
}

/** Another door's routes on the host server. */
export interface MountedRoutes {
  /** The path the routes serve (refusals there are rendered by `refusal`, not by the host door). */
  path: string;
  /** The body of a refused request in this door's format, sent with the refusal's status. */
  refusal(r: Refusal): unknown;
  /** Adds the routes (after the host's guard hook, so they get the same access rules). */
  register(app: FastifyInstance): void;
}
