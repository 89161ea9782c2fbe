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
}

/**
 * Hands each successful response the requests the session's origin policy refused since the last
 * one it reported (a page's, a worker's, a beacon's, a tunnel's): the agent learns of every refused
 * attempt on its next command, without a separate action.
 */
export class BlockedReporter {
  private session: Session | null = null;
  private lastSeq = 0;

  take(session: Session): PipeBlockedRequest[] {
    if (session !== this.session) {
      this.session = session;
      this.lastSeq = 0;
    }
    const list = session.blockedRequests({ since_seq: this.lastSeq });
    this.lastSeq = session.network.lastSeq;
    return list.map((b) => ({
      seq: b.seq,
      kind: b.kind,
      method: b.method,
      url: b.url,
      resource_type: b.resource_type,
      page_id: b.page_id,
    }));
  }
}
