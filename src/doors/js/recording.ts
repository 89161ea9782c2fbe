import { chmodSync, closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ops, scrubEverywhere } from '../../engine/api.js';
import type { Logger } from '../../engine/log.js';
import type { Session } from '../../engine/session.js';

/**
 * Recording with consent: a Playwright trace per connection (viewable with
 * `npx playwright show-trace`) plus events.jsonl of the door's operations.
 * Both go through the engine's secret rule: typed text into secret fields and
 * secret values the pages hold are masked, and so are secret URL parameters
 * (events here, the trace by the engine when it is written). The trace is
 * recorded without screenshots: pictures cannot be scrubbed (a private
 * editor's text would show in them); its DOM snapshots are kept, scrubbed.
 * Files are 0600 in 0700 folders.
 */

export interface RecordingStatus {
  active: boolean;
  name?: string;
  dir?: string;
  startedAt?: string;
  events?: number;
  traces?: number;
}

interface Active {
  name: string;
  dir: string;
  startedAt: Date;
  fd: number;
  events: number;
  sessions: Map<Session, number>;
  traces: string[];
  seq: number;
}

export class Recorder {
  private active: Active | null = null;

  constructor(
    private readonly home: string,
    private readonly log: Logger,
  ) {}

  async start(
    opts: { consent?: boolean; name?: string } | undefined,
    sessions: Session[],
  ): Promise<RecordingStatus> {
    if (opts?.consent !== true) {
      throw new Error(
        'Recording needs consent: ask the user first, then call startRecording({ consent: true, name }).',
      );
    }
    if (this.active)
      throw new Error(`A recording is already running (${this.active.dir}); stopRecording() first.`);
    const name =
      String(opts.name ?? 'recording')
        .replace(/[^A-Za-z0-9_-]/g, '_')
        .slice(0, 64) || 'recording';
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const root = join(this.home, 'recordings');
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const dir = join(root, `${name}-${stamp}`);
    mkdirSync(dir, { mode: 0o700 });
    const fd = openSync(join(dir, 'events.jsonl'), 'a', 0o600);
    this.active = {
      name,
      dir,
      startedAt: new Date(),
      fd,
      events: 0,
      sessions: new Map(),
      traces: [],
      seq: 0,
    };
    for (const s of sessions) await this.addSession(s);
    this.record({ action: 'recording_started', name });
    return this.status();
  }

  /** Starts tracing a session (a page's connection) while recording. */
  async addSession(session: Session): Promise<void> {
    const a = this.active;
    if (!a || a.sessions.has(session) || !session.alive) return;
    a.sessions.set(session, ++a.seq);
    await ops.traceStart.call(session, { title: a.name, screenshots: false }).catch((err) => {
      a.sessions.delete(session);
      this.log.warn({ err: String(err) }, 'recording: tracing could not start for a session');
    });
  }

  /** Stops tracing a session that is about to close, keeping its trace. */
  async removeSession(session: Session): Promise<void> {
    const a = this.active;
    const n = a?.sessions.get(session);
    if (!a || n === undefined) return;
    a.sessions.delete(session);
    await this.saveTrace(a, session, n);
  }

  private async saveTrace(a: Active, session: Session, n: number): Promise<void> {
    const path = join(a.dir, `trace-${n}.zip`);
    try {
      await ops.traceStop.call(session, { path });
      chmodSync(path, 0o600);
      a.traces.push(path);
    } catch (err) {
      this.log.warn({ err: String(err) }, 'recording: a trace could not be saved');
    }
  }

  record(event: Record<string, unknown>): void {
    const a = this.active;
    if (!a) return;
    const e: Record<string, unknown> = { t: new Date().toISOString(), ...event };
    try {
      writeSync(a.fd, `${scrubEverywhere(JSON.stringify(e))}\n`);
      a.events++;
    } catch {}
  }

  async stop(): Promise<RecordingStatus & { eventsFile?: string; traceFiles?: string[] }> {
    const a = this.active;
    if (!a) return { active: false };
    this.record({ action: 'recording_stopped' });
    for (const [s, n] of [...a.sessions]) await this.saveTrace(a, s, n);
    a.sessions.clear();
    this.active = null;
    closeSync(a.fd);
    const meta = {
      name: a.name,
      startedAt: a.startedAt.toISOString(),
      stoppedAt: new Date().toISOString(),
      events: a.events,
      traces: a.traces.map((t) => t.slice(a.dir.length + 1)),
    };
    writeFileSync(join(a.dir, 'meta.json'), JSON.stringify(meta, null, 2), { mode: 0o600 });
    return {
      active: false,
      name: a.name,
      dir: a.dir,
      events: a.events,
      eventsFile: join(a.dir, 'events.jsonl'),
      traceFiles: a.traces,
    };
  }

  status(): RecordingStatus {
    const a = this.active;
    if (!a) return { active: false };
    return {
      active: true,
      name: a.name,
      dir: a.dir,
      startedAt: a.startedAt.toISOString(),
      events: a.events,
      traces: a.sessions.size,
    };
  }
}
