import { cpus, loadavg, release, totalmem, type } from 'node:os';

/** Small statistics for benchmarks: medians and percentiles (nearest rank), never means (shared, noisy machines). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i]!;
}

/** The middle value; for an even count the mean of the two middle ones (every benchmark uses this one). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function fmt(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${type()} ${release()}, Node ${process.versions.node}`;
}

/** The value after `key` on this process's command line, or `fallback`. */
export function cliArg(key: string, fallback?: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(key);
  return i >= 0 ? args[i + 1] : fallback;
}

/** The load averages, one decimal each, for a benchmark's report line. */
export function loadText(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
}
