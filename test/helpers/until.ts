import assert from 'node:assert/strict';

/** Polls `fn` every 25 ms until it returns something truthy, and returns that; fails after `ms`. */
export async function until<T>(fn: () => T | undefined | false, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) assert.fail('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
