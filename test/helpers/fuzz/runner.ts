import { Rand } from './rand.js';

/**
 * Fuzzing a door through its real transport: generate an input, send it,
 * judge the reply. Used by the bounded fuzz tests (test/fuzz-*.test.ts) and
 * by `npm run fuzz` (bench/fuzz.ts) for long runs.
 */

/**
 * How one input went: a structured reply (or none, where none is due), or what went wrong: a reply
 * not in the door's format, no reply although the door kept serving (silent), no reply in time (hang),
 * the door's process gone (crash).
 */
export type Verdict = 'ok' | 'non_structured' | 'silent' | 'hang' | 'crash';

export interface Judged {
  verdict: Exclude<Verdict, 'crash'>;
  /** What was wrong, for the report. */
  detail?: string;
}

/** One generated input: what to send (door-specific) and a short text for reports. */
export interface FuzzCase {
  show: string;
  payload: unknown;
}

export interface FuzzDoor {
  readonly name: string;
  /** Inputs in flight at once (1: one after the other). */
  readonly concurrency: number;
  start(): Promise<void>;
  generate(r: Rand, index: number): FuzzCase;
  /** Sends one case and judges what came back; never throws. */
  send(c: FuzzCase, hangMs: number): Promise<Judged>;
  /** Whether the door (its process) is still up. */
  alive(): boolean;
  /** Starts the door again after a crash. */
  restart(): Promise<void>;
  /** A valid request, after the fuzz: null when it works, else what failed. */
  probe(): Promise<string | null>;
  close(): Promise<void>;
}

export interface Finding {
  index: number;
  verdict: Exclude<Verdict, 'ok'>;
  input: string;
  detail: string;
}

export interface FuzzReport {
  door: string;
  seed: number;
  inputs: number;
  crashes: number;
  nonStructured: number;
  silent: number;
  hangs: number;
  findings: Finding[];
  /** Null when the valid request after the fuzz worked. */
  probe: string | null;
  ms: number;
}

export interface FuzzOptions {
  seed: number;
  /** Stop after this many inputs… */
  count?: number;
  /** …or after this many seconds (whichever comes first). */
  seconds?: number;
  /** No reply within this long is a hang. */
  hangMs?: number;
  /** Called every 100 inputs (long runs print progress). */
  progress?: (sent: number) => void;
}

export async function runFuzz(door: FuzzDoor, o: FuzzOptions): Promise<FuzzReport> {
  const hangMs = o.hangMs ?? 20_000;
  const until = o.seconds !== undefined ? Date.now() + o.seconds * 1000 : Number.POSITIVE_INFINITY;
  const count = o.count ?? (o.seconds !== undefined ? Number.POSITIVE_INFINITY : 200);
  const report: FuzzReport = {
    door: door.name,
    seed: o.seed,
    inputs: 0,
    crashes: 0,
    nonStructured: 0,
    silent: 0,
    hangs: 0,
    findings: [],
    probe: null,
    ms: 0,
  };
  const t0 = Date.now();
  await door.start();
  let next = 0;
  let restarting: Promise<void> | undefined;
  const worker = async () => {
    for (;;) {
      if (restarting) await restarting;
      const index = next++;
      if (index >= count || Date.now() >= until) return;
      const c = door.generate(Rand.forInput(o.seed, index), index);
      const judged = await door.send(c, hangMs).catch(
        (err: unknown): Judged => ({
          verdict: 'non_structured',
          detail: `fuzz driver error: ${String(err)}`,
        }),
      );
      report.inputs++;
      if (report.inputs % 100 === 0) o.progress?.(report.inputs);
      const input = c.show.length > 300 ? `${c.show.slice(0, 300)}… (${c.show.length} chars)` : c.show;
      if (!door.alive()) {
        report.crashes++;
        report.findings.push({ index, verdict: 'crash', input, detail: judged.detail ?? 'the door exited' });
        restarting ??= door.restart().finally(() => {
          restarting = undefined;
        });
        continue;
      }
      if (judged.verdict === 'ok') continue;
      if (judged.verdict === 'hang') report.hangs++;
      else if (judged.verdict === 'silent') report.silent++;
      else report.nonStructured++;
      report.findings.push({ index, verdict: judged.verdict, input, detail: judged.detail ?? '' });
    }
  };
  try {
    await Promise.all(Array.from({ length: door.concurrency }, worker));
    if (restarting) await restarting;
    report.probe = door.alive() ? await door.probe() : 'the door is not running';
  } finally {
    await door.close().catch(() => {});
    report.ms = Date.now() - t0;
  }
  return report;
}

/** Whether a run found nothing wrong. */
export function clean(r: FuzzReport): boolean {
  return r.crashes + r.nonStructured + r.silent + r.hangs === 0 && r.probe === null;
}

/** The report as text: one summary line per door, then every finding with the input that caused it. */
export function formatReports(reports: FuzzReport[]): string {
  const rows = [
    ['door', 'inputs', 'crashes', 'non-structured', 'silent', 'hangs', 'valid request after', 'seconds'],
    ...reports.map((r) => [
      r.door,
      String(r.inputs),
      String(r.crashes),
      String(r.nonStructured),
      String(r.silent),
      String(r.hangs),
      r.probe === null ? 'ok' : `FAILED: ${r.probe}`,
      (r.ms / 1000).toFixed(1),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  for (const r of reports) {
    for (const f of r.findings) {
      lines.push(`${r.door} #${f.index} (seed ${r.seed}) ${f.verdict}: ${f.detail}\n    input: ${f.input}`);
    }
  }
  return lines.join('\n');
}
