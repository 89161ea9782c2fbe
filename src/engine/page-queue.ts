import { type Deadline, DeadlineExpired } from './deadline.js';
import { TabwrightError, toTabwrightError } from './errors.js';
import { timeoutError } from './timeout-errors.js';

export interface QueuedOperation<T> {
  /** Operation name for messages, e.g. "page.open". */
  name: string;
  /** Navigation ops time out as navigation_timeout; others as not_ready. */
  kind?: 'navigation' | 'read' | 'action';
  run: (deadline: Deadline) => Promise<T>;
}

/**
 * Runs the operations of one page one at a time, in arrival order. Different
 * pages have different queues, so pages run in parallel.
 *
 * The caller's deadline covers queueing and running. When it expires before
 * the operation starts, the operation never runs (outcome "not_started",
 * retryable). When it expires after dispatch, the caller is told the outcome
 * is unknown; the queue slot stays taken until the underlying browser call
 * settles, so the next operation never overlaps a still-running one.
 */
export class PageQueue {
  private tail: Promise<void> = Promise.resolve();
  private depth = 0;

  get pending(): number {
    return this.depth;
  }

  /**
   * `guard` wraps the running work so that it fails at once when the page or its browser goes away
   * (Session.guarded, FailSignal.race: nothing stays registered once the work settles).
   */
  async enqueue<T>(
    op: QueuedOperation<T>,
    deadline: Deadline,
    guard?: (work: Promise<T>) => Promise<T>,
  ): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.depth++;
    let started = false;
    const expired = deadline.expired();
    expired.catch(() => {});
    try {
      // Wait for our turn, unless the deadline runs out first.
      await Promise.race([previous, expired]);
      started = true;
      const work = op.run(deadline);
      work.then(
        () => release(),
        () => release(),
      );
      return await Promise.race([guard ? guard(work) : work, expired]);
    } catch (err) {
      if (!started) {
        // Never ran: release our slot once the previous op is done, so order is kept.
        previous.then(release, release);
      }
      throw translate(err, op, started, deadline);
    } finally {
      this.depth--;
    }
  }
}

function translate(
  err: unknown,
  op: QueuedOperation<unknown>,
  started: boolean,
  deadline: Deadline,
): TabwrightError {
  if (!(err instanceof DeadlineExpired)) return ranOut(toTabwrightError(err), op, deadline);
  const d = err.deadline;
  const aborted = d.callerAborted();
  const outcome = started ? 'unknown' : 'not_started';
  const details = { outcome, timeout_ms: d.timeoutMs, elapsed_ms: d.elapsed(), operation: op.name, aborted };
  if (aborted) {
    return new TabwrightError(
      'not_ready',
      `${op.name} was cancelled by the caller${started ? ' after it was dispatched; check the page state before repeating it' : ' before it started; it is safe to send again'}.`,
      { retryable: !started, details },
    );
  }
  if (!started) {
    return new TabwrightError(
      'not_ready',
      `${op.name} did not start within ${d.timeoutMs} ms because earlier operations on this page were still running; it never ran, so it is safe to send again (or raise timeout_ms).`,
      { retryable: true, details },
    );
  }
  return spent(op.name, op.kind === 'navigation', d);
}

/**
 * The deadline passed after dispatch: the outcome is unknown. Worded once, as a backend's own timeout
 * is (timeout-errors.ts), in the caller's terms: the caller's timeout_ms and the time spent.
 */
function spent(operation: string, navigation: boolean, d: Deadline): TabwrightError {
  const err = timeoutError({ operation, navigation, timeoutMs: d.timeoutMs });
  Object.assign(err.details, { elapsed_ms: d.elapsed(), aborted: false });
  return err;
}

/** How close to its end a deadline must be for a backend's timeout to count as the deadline's own. */
const SPENT_SLACK_MS = 50;

/**
 * A backend call is given what is left of the caller's deadline, so its timeout says "within 299 ms"
 * when the caller asked for 300 ms and 1 ms went to the queue. When that timeout is where the
 * deadline ended, it is said as the deadline's own expiry is (`spent`), so which timer fired first
 * makes no difference to the caller. A backend timeout well before the deadline (a sub-call with its
 * own shorter budget) is left as it is.
 */
function ranOut(err: TabwrightError, op: QueuedOperation<unknown>, d: Deadline): TabwrightError {
  const given = err.details.timeout_ms;
  if (err.code !== 'navigation_timeout' && err.code !== 'not_ready') return err;
  if (err.details.outcome !== 'unknown' || typeof given !== 'number' || given >= d.timeoutMs) return err;
  if (d.remaining() > SPENT_SLACK_MS) return err;
  return spent(String(err.details.operation ?? op.name), err.code === 'navigation_timeout', d);
}
