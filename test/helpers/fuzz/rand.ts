import { seededRandom } from '../random.js';

/** Choices over the shared seeded source (../random.ts), so a fuzz input repeats from its seed. */
export class Rand {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** The source of input `index` of a run with `seed`: each input repeats on its own. */
  static forInput(seed: number, index: number): Rand {
    return new Rand((((seed * 7919 + index * 104_729 + 1) % 2 ** 31) + 2 ** 31) % 2 ** 31);
  }

  float(): number {
    return this.next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Picks a case by weight: `[[weight, value], …]`. */
  weighted<T>(cases: readonly (readonly [number, T])[]): T {
    const total = cases.reduce((s, [w]) => s + w, 0);
    let x = this.next() * total;
    for (const [w, v] of cases) {
      x -= w;
      if (x < 0) return v;
    }
    return cases[cases.length - 1]![1];
  }
}
