import type { BackendPage, NetworkEvent } from '../backends/backend.js';

/**
 * Requests of one page in flight, from the backend's request events: what
 * "network idle" waits and receipts' "requests triggered" read.
 */
export class NetworkActivity {
  private readonly inflight = new Map<object, { url: string; resourceType: string }>();
  private lastChange = Date.now();
  started = 0;
  finished = 0;
  failed = 0;

  constructor(backend: BackendPage) {
    backend.onNetwork((e) => this.onEvent(e));
  }

  private onEvent(e: NetworkEvent): void {
    this.lastChange = Date.now();
    if (e.phase === 'started') {
      this.started++;
      this.inflight.set(e.key, { url: e.url, resourceType: e.resourceType });
      return;
    }
    if (!this.inflight.delete(e.key)) return;
    if (e.phase === 'finished') this.finished++;
    else this.failed++;
  }

  /** Requests started and not yet finished or failed. */
  inflightCount(): number {
    return this.inflight.size;
  }

  /** URLs in flight (the first `limit`), for diagnostics. */
  inflightUrls(limit = 5): string[] {
    return [...this.inflight.values()].slice(0, limit).map((r) => r.url);
  }

  /** Milliseconds since the last request started or ended, when at most `maxInflight` are in flight (else 0). */
  quietFor(maxInflight = 0): number {
    if (this.inflight.size > maxInflight) return 0;
    return Date.now() - this.lastChange;
  }

  counters(): { started: number; finished: number; failed: number; inflight: number } {
    return {
      started: this.started,
      finished: this.finished,
      failed: this.failed,
      inflight: this.inflight.size,
    };
  }
}
