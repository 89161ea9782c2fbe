/**
 * Bounds a driver call that has no timeout of its own: rejects with `timedOut()` after `ms` (the call
 * itself may still finish in the browser). Each backend passes the error its translation knows.
 */
export async function withTimeout<T>(p: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}
