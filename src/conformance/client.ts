import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';

/**
 * A client of any Browser Provider Protocol v0.1 provider: a child process
 * on stdio, or a Unix socket. Requests get ids r1, r2, …; replies are matched
 * by id; replies with id null and events are collected.
 */

export interface ProviderError {
  code: string;
  message: string;
  retryable: boolean;
  details: Record<string, unknown>;
}

export type Reply =
  | { protocol_version: string; id: string | number | null; ok: true; result: any; warnings: unknown[] }
  | { protocol_version: string; id: string | number | null; ok: false; error: ProviderError };

export interface EventMessage {
  protocol_version: string;
  event: string;
  payload: Record<string, any>;
}

/** The normalized error codes of v0.1. Declared here, not imported: the suite must not trust the provider's code. */
export const ERROR_CODES = [
  'unsupported_method',
  'unsupported_target',
  'invalid_request',
  'invalid_selector',
  'element_not_found',
  'element_not_actionable',
  'navigation_timeout',
  'not_ready',
  'setup_required',
  'permission_denied',
  'browser_not_running',
  'session_not_found',
  'page_not_found',
  'internal_error',
];

export class ProviderCallError extends Error {
  constructor(
    readonly method: string,
    readonly error: ProviderError,
  ) {
    super(`${method}: ${error.code}: ${error.message}`);
  }
}

export interface ReplyArrival {
  /** performance.now() when the reply's whole line was in this process. */
  arrivedAt: number;
  /** This client's JSON.parse of the line (a client's own cost, not the provider's). */
  decodeMs: number;
  /** The line's length in UTF-16 units (characters). */
  bytes: number;
}

/** One request and the start of its reply, as the suite's evidence (long strings shortened). */
export interface Exchange {
  request: string;
  /** null for raw lines (their answer, if any, has id null and is read separately). */
  reply: string | null;
  ms: number;
}

const EXCERPT_CHARS = 600;

/** JSON of `value` with strings over 120 characters shortened (images, page text), cut at EXCERPT_CHARS. */
export function excerpt(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : JSON.stringify(value, (_k, v) =>
          typeof v === 'string' && v.length > 120 ? `${v.slice(0, 60)}…(${v.length} chars)` : v,
        );
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

export class ProviderClient {
  /** While set, every request and its reply are recorded here (the runner sets it per scenario). */
  transcript: Exchange[] | null = null;
  private seq = 0;
  /** Received text not yet ending in a newline (kept as parts: re-joining on every chunk is quadratic). */
  private partial: string[] = [];
  private readonly pending = new Map<string | number, (r: Reply) => void>();
  /** Replies whose id matched nothing (id null: unreadable requests). */
  readonly orphans: Reply[] = [];
  readonly events: EventMessage[] = [];
  /** Replies received so far. */
  replyCount = 0;
  /**
   * What was wrong with replies that are not well-formed envelopes (checked
   * on arrival, so that a long run does not keep every reply alive).
   */
  readonly envelopeProblems: string[] = [];
  /** Lines on the provider's stdout that were not JSON envelopes (a protocol violation). */
  readonly badLines: string[] = [];
  stderr = '';
  /** When each reply's line was complete, and how long JSON.parse took (benchmarks read this). */
  private readonly arrivals = new WeakMap<object, ReplyArrival>();
  private waiters: (() => void)[] = [];
  private exited: Promise<number | null>;
  private gone = false;

  private constructor(
    private readonly out: NodeJS.WritableStream,
    input: NodeJS.ReadableStream,
    private readonly child?: ChildProcess,
    private readonly socket?: Socket,
  ) {
    input.setEncoding?.('utf8');
    input.on('data', (chunk: string | Buffer) => this.onData(String(chunk)));
    this.exited = new Promise((resolve) => {
      if (child) child.once('exit', (code) => resolve(code));
      else socket?.once('close', () => resolve(0));
    });
    void this.exited.then(() => {
      this.gone = true;
      for (const [id, cb] of this.pending) {
        cb({
          protocol_version: '0.1',
          id,
          ok: false,
          error: {
            code: 'transport_closed',
            message: 'the provider went away',
            retryable: false,
            details: {},
          },
        });
      }
      this.pending.clear();
      this.wake();
    });
  }

  /** Spawns `argv` (or a shell command line) and talks JSON lines over its stdio. */
  static spawn(
    command: string | string[],
    opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
  ): ProviderClient {
    const env = { ...process.env, ...opts.env };
    const child =
      typeof command === 'string'
        ? spawn(command, { shell: true, env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] })
        : spawn(command[0]!, command.slice(1), { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const c = new ProviderClient(child.stdin!, child.stdout!, child);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      c.stderr = (c.stderr + s).slice(-20_000);
    });
    child.stdin!.on('error', () => {});
    return c;
  }

  static async connect(path: string): Promise<ProviderClient> {
    const sock = createConnection(path);
    await new Promise<void>((resolve, reject) => {
      sock.once('connect', resolve);
      sock.once('error', reject);
    });
    return new ProviderClient(sock, sock, undefined, sock);
  }

  /** When `reply`'s line had fully arrived, before this client decoded it; undefined for replies not awaited. */
  arrival(reply: Reply): ReplyArrival | undefined {
    return this.arrivals.get(reply);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return !this.gone;
  }

  private onData(s: string): void {
    let nl = s.indexOf('\n');
    if (nl < 0) {
      this.partial.push(s);
      return;
    }
    let start = 0;
    do {
      let line = s.slice(start, nl);
      if (this.partial.length > 0) {
        line = this.partial.join('') + line;
        this.partial = [];
      }
      this.onLine(line);
      start = nl + 1;
      nl = s.indexOf('\n', start);
    } while (nl >= 0);
    if (start < s.length) this.partial.push(s.slice(start));
    this.wake();
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    const arrivedAt = performance.now();
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      this.badLines.push(line.slice(0, 500));
      return;
    }
    if (msg && typeof msg === 'object' && typeof msg.event === 'string') {
      this.events.push(msg as EventMessage);
    } else if (msg && typeof msg === 'object' && 'ok' in msg) {
      this.replyCount++;
      const problem = envelopeProblem(msg as Reply);
      if (problem) this.envelopeProblems.push(problem);
      const cb = msg.id !== null ? this.pending.get(msg.id) : undefined;
      if (cb) {
        this.pending.delete(msg.id);
        this.arrivals.set(msg, { arrivedAt, decodeMs: performance.now() - arrivedAt, bytes: line.length });
        cb(msg as Reply);
      } else this.orphans.push(msg as Reply);
    } else this.badLines.push(line.slice(0, 500));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when new input arrives (or the provider exits), at most after ms. */
  private tick(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  nextId(): string {
    this.seq += 1;
    return `r${this.seq}`;
  }

  /** Writes one raw line (a newline is added). */
  sendRaw(line: string | Buffer): void {
    this.transcript?.push({
      request: excerpt(typeof line === 'string' ? line : `<${line.length} raw bytes>`),
      reply: null,
      ms: 0,
    });
    this.out.write(line);
    this.out.write('\n');
  }

  /** Sends a request and resolves with its reply (success or error envelope). */
  request(
    method: string,
    params: Record<string, unknown> = {},
    opts: { timeoutMs?: number; id?: string | number; protocolVersion?: string } = {},
  ): Promise<Reply> {
    const id = opts.id ?? this.nextId();
    const timeoutMs = opts.timeoutMs ?? 70_000;
    const line = JSON.stringify({ protocol_version: opts.protocolVersion ?? '0.1', id, method, params });
    const sent = performance.now();
    const transcript = this.transcript;
    return new Promise<Reply>((done) => {
      const resolve = (r: Reply) => {
        transcript?.push({
          request: excerpt(line),
          reply: excerpt(r),
          ms: Math.round(performance.now() - sent),
        });
        done(r);
      };
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({
          protocol_version: '0.1',
          id,
          ok: false,
          error: {
            code: 'client_timeout',
            message: `no reply within ${timeoutMs} ms`,
            retryable: true,
            details: {},
          },
        });
      }, timeoutMs);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      if (this.gone) return;
      this.out.write(`${line}\n`);
    });
  }

  /** request() that returns the result, or throws ProviderCallError. */
  async call(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<any> {
    const r = await this.request(method, params, { timeoutMs });
    if (!r.ok) throw new ProviderCallError(method, r.error);
    return r.result;
  }

  /** Waits for an orphan reply (id null) beyond the `seen` first ones. */
  async nextOrphan(seen: number, timeoutMs = 5000): Promise<Reply | undefined> {
    const end = Date.now() + timeoutMs;
    while (this.orphans.length <= seen && Date.now() < end && !this.gone) await this.tick(end - Date.now());
    return this.orphans[seen];
  }

  /** Waits for an event matching `pred` (among all received so far). */
  async waitEvent(pred: (e: EventMessage) => boolean, timeoutMs = 5000): Promise<EventMessage | undefined> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const e = this.events.find(pred);
      if (e || Date.now() >= end || this.gone) return e;
      await this.tick(end - Date.now());
    }
  }

  /** Ends the input and waits for the provider to exit (killing it after graceMs). */
  async close(graceMs = 10_000): Promise<number | null> {
    if (this.socket) {
      this.socket.end();
      const t = setTimeout(() => this.socket?.destroy(), graceMs);
      await this.exited;
      clearTimeout(t);
      return 0;
    }
    this.child?.stdin?.end();
    const t = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }
}

/** What makes a reply not a well-formed v0.1 envelope, or null. */
function envelopeProblem(r: Reply): string | null {
  if (r.protocol_version !== '0.1')
    return `a reply has protocol_version ${JSON.stringify(r.protocol_version)}`;
  if (r.ok) {
    if (r.result === undefined) return `reply ${r.id} has no result`;
    if (!Array.isArray(r.warnings)) return `reply ${r.id} has no warnings array`;
    return null;
  }
  const e = r.error;
  if (!e || !ERROR_CODES.includes(e.code)) return `reply ${r.id} has error code ${e?.code}`;
  if (typeof e.message !== 'string' || e.message.length === 0) return `reply ${r.id} has no error message`;
  if (typeof e.retryable !== 'boolean') return `reply ${r.id}: retryable is not a boolean`;
  if (e.details === null || typeof e.details !== 'object') return `reply ${r.id}: details is not an object`;
  return null;
}
