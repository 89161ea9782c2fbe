import { ops } from '../../../engine/api.js';
import type { Session } from '../../../engine/session.js';

/** One request the origin policy refused, as the pipe reports it (snake_case, like every `data`). */
export interface PipeBlockedRequest {
  seq: number;
  kind: string;
  method: string;
  url: string;
  resource_type: string;
  /** null when the browser-level proxy refused it and no page is known (workers, beacons, tunnels). */
  page_id: string | null;
  /** Present when the URL was cut (at 2048 characters here, so a response stays small). */
  url_truncated?: true;
}

/** At most this many records ride on one response; the rest come with the next ones, none is dropped. */
const PER_RESPONSE = 20;
const MAX_URL_CHARS = 2048;

/**
 * Hands each successful response the requests the session's origin policy refused since the last
 * one it reported (a page's, a worker's, a beacon's, a tunnel's), oldest first and at most 20 per
 * response: the agent learns of every refused attempt on its next commands, without a separate
 * action, and a page that makes many (or long) refused requests cannot make a response too large.
 */
export class BlockedReporter {
  private session: Session | null = null;
  private lastSeq = 0;

  async take(session: Session): Promise<PipeBlockedRequest[]> {
    if (session !== this.session) {
      this.session = session;
      this.lastSeq = 0;
    }
    const list = (await ops.blocked.call(session, { since_seq: this.lastSeq })).slice(0, PER_RESPONSE);
    const last = list.at(-1);
    if (last) this.lastSeq = last.seq;
    return list.map((b) => ({
      seq: b.seq,
      kind: b.kind,
      method: b.method,
      url: b.url.slice(0, MAX_URL_CHARS),
      resource_type: b.resource_type,
      page_id: b.page_id,
      ...(b.url_truncated || b.url.length > MAX_URL_CHARS ? { url_truncated: true as const } : {}),
    }));
  }
}
