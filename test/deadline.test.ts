import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Deadline, DeadlineExpired } from '../src/engine/deadline.js';
import { PageQueue } from '../src/engine/page-queue.js';
import { timeoutError } from '../src/engine/timeout-errors.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Deadline timers are unref'd (they keep no process alive); here nothing else holds the event loop.
const keepAlive = setInterval(() => {}, 1000);
after(() => clearInterval(keepAlive));

describe('Deadline', () => {
  test('a deadline with a caller signal still fires after a garbage collection', {
    timeout: 5000,
  }, async () => {
    const caller = new AbortController();
    const d = Deadline.from({ timeoutMs: 300, signal: caller.signal });
    const expired = d.expired();
    // Before the fix the timeout signal inside AbortSignal.any was collected here and never fired.
    gc();
    await new Promise((r) => setTimeout(r, 50));
    gc();
    await assert.rejects(expired, (e) => e instanceof DeadlineExpired);
    assert.equal(d.callerAborted(), false);
  });

  test('a queued operation behind one that never settles fails with not_started at its deadline', {
    timeout: 5000,
  }, async () => {
    const q = new PageQueue();
    const caller = new AbortController();
    const stuck = q.enqueue(
      { name: 'stuck', run: () => new Promise<never>(() => {}) },
      Deadline.from({ timeoutMs: 200, signal: caller.signal }),
    );
    await assert.rejects(stuck, (e: { details: { outcome: string } }) => e.details.outcome === 'unknown');
    gc();
    const next = q.enqueue(
      { name: 'next', run: async () => 'ran' },
      Deadline.from({ timeoutMs: 300, signal: caller.signal }),
    );
    await assert.rejects(next, (e: { details: { outcome: string } }) => e.details.outcome === 'not_started');
  });

  // A backend call gets what is left of the deadline (engine page.ts), so its own timeout names the rest.
  // It times out `spareMs` before the deadline would; the queue's error is returned.
  const backendTimeout = (timeoutMs: number, spareMs: number) => {
    const run = (d: Deadline) => {
      const given = d.remaining() - spareMs;
      const err = timeoutError({ operation: 'page.open', navigation: true, timeoutMs: given });
      return new Promise<never>((_, reject) => setTimeout(() => reject(err), given));
    };
    return new PageQueue()
      .enqueue({ name: 'page.open', kind: 'navigation', run }, Deadline.from({ timeoutMs }))
      .catch((e) => e);
  };

  test("a backend timeout where the deadline ends is said in the caller's timeout", async () => {
    // 30 ms short of the end: the backend's timer wins the race against the deadline's own.
    const err = await backendTimeout(300, 30);
    assert.equal(err.code, 'navigation_timeout');
    assert.equal(err.details.timeout_ms, 300, JSON.stringify(err.details));
    assert.match(err.message, /within 300 ms/);
    assert.ok(err.details.elapsed_ms >= 250, JSON.stringify(err.details));
  });

  test('a backend timeout well before the deadline (its own shorter budget) is left as it is', async () => {
    const err = await backendTimeout(1000, 700);
    assert.equal(err.code, 'navigation_timeout');
    assert.ok(err.details.timeout_ms < 400, JSON.stringify(err.details));
  });

  test('a caller abort fails the operation at once, as cancelled', async () => {
    const caller = new AbortController();
    const d = Deadline.from({ timeoutMs: 60_000, signal: caller.signal });
    const expired = d.expired();
    caller.abort();
    await assert.rejects(expired, (e) => e instanceof DeadlineExpired);
    assert.equal(d.callerAborted(), true);
  });
});

describe('Deadline.settle', () => {
  test('a settled deadline does not fire later', { timeout: 5000 }, async () => {
    const d = Deadline.from({ timeoutMs: 60 });
    const expired = d.expired();
    expired.catch(() => {});
    d.settle();
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(d.signal.aborted, false, 'the timer was cleared');
    // An unsettled one still fires (the test's control).
    const other = Deadline.from({ timeoutMs: 60 });
    await assert.rejects(other.expired(), (e) => e instanceof DeadlineExpired);
  });
});

describe('Deadline.settle and the caller signal', () => {
  // Node keeps an AbortSignal.any composite with an abort listener alive in a process-wide set until
  // it aborts or the listener goes; a finished call's caller signal never aborts. Before settle()
  // removed expired()'s listener, every settled operation with a caller signal stayed reachable for
  // the process's life, with its reply (the soak's growing door heap).
  test('a settled deadline with a caller signal, and what its expired() race held, are collected', {
    timeout: 10_000,
  }, async () => {
    const caller = new AbortController();
    // One operation in its own function, so no local of the test keeps the last one.
    const operation = async (i: number): Promise<WeakRef<object>[]> => {
      const d = Deadline.from({ timeoutMs: 60_000, signal: caller.signal });
      const reply = { text: 'x'.repeat(10_000) + i };
      const expired = d.expired();
      expired.catch(() => {});
      // As the page queue races the work against the deadline: the race's result is the reply.
      await Promise.race([Promise.resolve(reply), expired]);
      d.settle();
      return [new WeakRef(d), new WeakRef(reply)];
    };
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 20; i++) refs.push(...(await operation(i)));
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 20));
      gc();
    }
    const alive = refs.filter((r) => r.deref() !== undefined).length;
    assert.equal(alive, 0, `${alive} of ${refs.length} deadlines and replies still reachable after settle()`);
    assert.equal(caller.signal.aborted, false);
  });
});

describe('Deadline and a long-lived caller signal', () => {
  // Node 20's AbortSignal.any adds a WeakRef to each source signal's dependants and never removes
  // it: with the provider's connection-long signal, one entry per operation for the process's life.
  test('settled deadlines leave nothing on the caller signal', () => {
    const caller = new AbortController();
    for (let i = 0; i < 50; i++) {
      const d = Deadline.from({ timeoutMs: 60_000, signal: caller.signal });
      d.expired().catch(() => {});
      d.settle();
    }
    const sig = caller.signal as unknown as Record<symbol, unknown>;
    const dependants = Object.getOwnPropertySymbols(sig).find((k) => k.description === 'kDependantSignals');
    const size = dependants ? ((sig[dependants] as Set<unknown> | undefined)?.size ?? 0) : 0;
    assert.equal(size, 0, `${size} dependants kept on the caller's signal`);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
  });
});
