import { randomInt } from 'node:crypto';

/** 2020-01-01T00:00:00Z: keeps ids shorter than with the Unix epoch. */
const EPOCH_MS = 1_577_836_800_000n;
const WORKER_BITS = 10n;
const SEQUENCE_BITS = 12n;
const MAX_SEQUENCE = (1n << SEQUENCE_BITS) - 1n;

/**
 * Snowflake-style task ids: 41 bits of milliseconds since 2020, 10 bits of
 * per-process worker number, 12 bits of sequence. Ids of one generator are
 * strictly increasing (also across a clock step backwards) and are returned
 * as decimal strings, since they exceed JavaScript's safe-integer range.
 */
export class Snowflake {
  private readonly worker: bigint;
  private lastMs = -1n;
  private sequence = 0n;

  constructor(
    worker = randomInt(0, 1 << Number(WORKER_BITS)),
    private readonly now: () => number = Date.now,
  ) {
    this.worker = BigInt(worker) & ((1n << WORKER_BITS) - 1n);
  }

  next(): string {
    let ms = BigInt(this.now()) - EPOCH_MS;
    // Never go back in time: reuse the last millisecond and keep counting.
    if (ms < this.lastMs) ms = this.lastMs;
    if (ms === this.lastMs) {
      this.sequence += 1n;
      if (this.sequence > MAX_SEQUENCE) {
        // 4096 ids in one millisecond: borrow the next millisecond.
        ms += 1n;
        this.sequence = 0n;
      }
    } else {
      this.sequence = 0n;
    }
    this.lastMs = ms;
    return (
      (ms << (WORKER_BITS + SEQUENCE_BITS)) |
      (this.worker << SEQUENCE_BITS) |
      this.sequence
    ).toString();
  }
}
