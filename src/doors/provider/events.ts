import { log, SESSION_EVENT_NAMES, type SessionEvent, watchSession } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';

export const EVENT_NAMES = SESSION_EVENT_NAMES;

export interface EventSink {
  sendEvent(event: string, payload: Record<string, unknown>): void;
}

/**
 * Routes session events to the connections that asked for them
 * (session.ensure with events: true). One engine watcher per session,
 * fanned out to every subscribed connection; stopped when none is left.
 */
export class EventRouter {
  private readonly watchers = new Map<string, { stop: () => void; sinks: Set<EventSink> }>();

  constructor(private readonly engine: Engine) {}

  subscribe(sessionId: string, sink: EventSink): void {
    let w = this.watchers.get(sessionId);
    if (!w) {
      const sinks = new Set<EventSink>();
      const stop = watchSession(this.engine.session(sessionId), (e: SessionEvent) => {
        const { event, ...payload } = e;
        for (const s of sinks) {
          try {
            s.sendEvent(event, payload);
          } catch (err) {
            log.warn({ err: String(err) }, 'event delivery failed');
          }
        }
      });
      w = { stop, sinks };
      this.watchers.set(sessionId, w);
    }
    w.sinks.add(sink);
  }

  /** A connection went away: drop its subscriptions. */
  dropSink(sink: EventSink): void {
    for (const [id, w] of this.watchers) {
      w.sinks.delete(sink);
      if (w.sinks.size === 0) {
        w.stop();
        this.watchers.delete(id);
      }
    }
  }

  /** The session closed: no more events from it. */
  dropSession(sessionId: string): void {
    const w = this.watchers.get(sessionId);
    if (!w) return;
    w.stop();
    this.watchers.delete(sessionId);
  }
}
