/**
 * Fails pending work at once when something it depends on ends (the session's browser dies, the
 * page crashes), without keeping anything registered for work that already settled.
 *
 * `Promise.race([work, neverSettling])` adds a reaction to `neverSettling` on every call and none is
 * ever removed while it stays pending: a long-lived session kept one closure per operation it ever
 * ran. Here each race registers one listener and removes it when `work` settles, so what is kept is
 * bounded by the operations in flight.
 */
export class FailSignal {
  private failure: { err: unknown } | undefined;
  private readonly waiting = new Set<(err: unknown) => void>();

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Listeners registered now (operations in flight): for the engine's counts. */
  get size(): number {
    return this.waiting.size;
  }

  /** Fails every pending race with `err` (the first failure wins; later ones are ignored). */
  fail(err: unknown): void {
    if (this.failure) return;
    this.failure = { err };
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const l of waiting) l(err);
  }

  /** `work`'s outcome, or the failure if it comes first. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.failure) {
      work.catch(() => {});
      return Promise.reject(this.failure.err);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.add(reject);
      work.then(
        (v) => {
          this.waiting.delete(reject);
          resolve(v);
        },
        (e) => {
          this.waiting.delete(reject);
          reject(e);
        },
      );
    });
  }

  /**
   * A promise that rejects on failure and never settles otherwise, for APIs that take a guard
   * promise. Prefer race(): this one's listener stays until the failure.
   */
  rejection(): Promise<never> {
    return this.race(new Promise<never>(() => {}));
  }
}
