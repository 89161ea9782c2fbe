import { randomBytes } from 'node:crypto';

/**
 * Opaque ids. A per-process nonce plus a counter: short enough for an agent
 * to copy, never reused within a process, and unlikely to collide with ids
 * handed out before a restart.
 */
export class IdSource {
  private n = 0;
  private readonly nonce = randomBytes(2).toString('hex');

  constructor(private readonly prefix: string) {}

  next(): string {
    this.n += 1;
    return `${this.prefix}_${this.nonce}${this.n}`;
  }
}
