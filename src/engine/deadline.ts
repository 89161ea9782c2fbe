import { TabwrightError } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 60_000;

/** What every engine operation accepts. */
export interface OperationOptions {
  /** Total budget for the operation, time spent queued included. Default 10 s, max 60 s. */
  timeoutMs?: number;
  /** Cancels the operation; it then fails like an expired deadline. */
  signal?: AbortSignal;
}

/**
 * A point in time by which an operation must finish. Created when the
 * operation is requested, so time spent waiting in a page queue counts.
 */
export class Deadline {
  readonly startedAt: number;
  readonly timeoutMs: number;
  readonly expiresAt: number;
  readonly signal: AbortSignal;
  private readonly timer: NodeJS.Timeout;
  /** Removes the abort listeners this deadline added (expired()'s, and the one on the caller's signal); run by settle(). */
  private readonly listenerOffs: (() => void)[] = [];

  private constructor(timeoutMs: number, outer?: AbortSignal) {
    this.startedAt = Date.now();
    this.timeoutMs = timeoutMs;
    this.expiresAt = this.startedAt + timeoutMs;
    // Not AbortSignal.timeout(): combined with AbortSignal.any, Node 20 lets the timeout signal be
    // garbage-collected and the deadline never fires (an operation would then wait forever in a queue).
    // A timer holds its controller strongly; unref'd, so a pending deadline keeps no process alive.
    // Not AbortSignal.any([outer, …]) either: Node 20 adds a WeakRef to the caller's signal for every
    // composite and never removes it (the provider's signal lives as long as its connection: one
    // entry per operation, for the process's life). The caller's abort is forwarded by a listener
    // that settle() or the timer removes.
    const controller = new AbortController();
    const forward = () => controller.abort(outer?.reason);
    const unforward = () => outer?.removeEventListener('abort', forward);
    this.timer = setTimeout(() => {
      unforward();
      controller.abort(new DeadlineTimeout(timeoutMs));
    }, timeoutMs).unref();
    this.signal = controller.signal;
    if (outer?.aborted) controller.abort(outer.reason);
    else if (outer) {
      outer.addEventListener('abort', forward, { once: true });
      this.listenerOffs.push(unforward);
    }
  }

  static from(opts: OperationOptions = {}, maxMs = MAX_TIMEOUT_MS): Deadline {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > maxMs) {
      throw new TabwrightError(
        'invalid_request',
        `timeout_ms must be a number between 1 and ${maxMs}; got ${String(opts.timeoutMs)}. Pass a smaller timeout or split the work.`,
        { details: { field: 'timeout_ms', max: maxMs } },
      );
    }
    return new Deadline(timeoutMs, opts.signal);
  }

  /**
   * The operation is over (its work settled): the timer is cleared, so it does not fire later
   * for nothing. A fired timer builds two errors and aborts the signal, whose listeners each
   * reject a promise nobody waits on any more: about 0.1-3 ms of a door's main thread at a random
   * later moment (inside another call's latency), once per operation, and the deadline's objects
   * stay reachable until then. After this the signal no longer aborts on time; only call it when
   * nothing of the operation still runs.
   *
   * It also removes the abort listeners of `expired()` and the one on the caller's signal. When the
   * deadline's signal was an `AbortSignal.any` composite, Node kept every composite that had an
   * abort listener in a process-wide set (`gcPersistentSignals`) until it aborted or the listener
   * was removed: cleared timer, caller's signal never aborted (a call that simply finished), so
   * every such operation stayed reachable for the process's life: the deadline, its pending `expired()`
   * promise, and through that promise's `Promise.race` reactions the race's settled result (the
   * operation's reply). That was the soak's unexplained growth of the door processes' used heap
   * (docs/benchmarks.md, "What keeps the doors' heap growing"). Later `expired()` calls on a settled
   * deadline never reject.
   */
  settle(): void {
    clearTimeout(this.timer);
    for (const off of this.listenerOffs.splice(0)) off();
  }

  remaining(): number {
    return Math.max(0, this.expiresAt - Date.now());
  }

  elapsed(): number {
    return Date.now() - this.startedAt;
  }

  /**
   * True when the caller aborted (as opposed to the clock running out). Decided by the abort's
   * reason, not by the clock: timers run on a monotonic clock and may fire a millisecond before
   * Date.now() reaches expiresAt, which made an expired deadline look like a caller's abort.
   */
  callerAborted(): boolean {
    return this.signal.aborted && !(this.signal.reason instanceof DeadlineTimeout);
  }

  /** Rejects when the deadline passes or the caller aborts. */
  expired(): Promise<never> {
    return new Promise((_, reject) => {
      const fire = () => reject(new DeadlineExpired(this));
      if (this.signal.aborted) fire();
      else {
        this.signal.addEventListener('abort', fire, { once: true });
        this.listenerOffs.push(() => this.signal.removeEventListener('abort', fire));
      }
    });
  }
}

/** The reason a deadline's signal carries when its time ran out (a caller's abort carries the caller's). */
export class DeadlineTimeout extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`deadline of ${timeoutMs} ms passed`);
  }
}

/** Internal marker; the page queue turns it into a TabwrightError with the right outcome. */
export class DeadlineExpired extends Error {
  constructor(readonly deadline: Deadline) {
    super('deadline expired');
  }
}

/**
 * True when `p` settles within `ms` (its rejection is rethrown), false when it is still running then;
 * a late rejection is dropped.
 */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  p.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([p.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
