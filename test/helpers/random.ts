/**
 * A seeded pseudo-random source for fuzz-ish tests, so a failing input
 * repeats on the next run. Returns numbers in [0, 1), like Math.random.
 */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}
