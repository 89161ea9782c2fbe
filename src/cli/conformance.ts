import { fileURLToPath } from 'node:url';
import { writeRecord } from '../conformance/record.js';
import { formatReport, progressLine } from '../conformance/report.js';
import { runSuite } from '../conformance/runner.js';
import { tabwrightHome } from '../engine/api.js';

export interface ConformanceCliOptions {
  provider?: string;
  runs: number;
  json?: boolean;
  timeoutMs: number;
  restart?: boolean;
}

/**
 * `tabwright conformance [--provider "<command line>"] [--runs N] [--json]`:
 * certifies a stdio provider (default: our own). Progress goes to stderr;
 * the table (or JSON with --json) to stdout. Exit 0 only when Certified.
 */
export async function runConformance(opts: ConformanceCliOptions): Promise<number> {
  const bin = fileURLToPath(new URL('../../bin/tabwright.js', import.meta.url));
  const command = opts.provider ?? [process.execPath, bin, 'provider'];
  const res = await runSuite({
    command,
    runs: opts.runs,
    timeoutMs: opts.timeoutMs,
    restart: opts.restart === true,
    onResult: (r, i, n) => process.stderr.write(`${progressLine(r, i, n)}\n`),
  });
  // A run against our own provider (any backend) is what its describe reports (certification.last_run).
  if (res.provider.id === 'tabwright') {
    const path = writeRecord(tabwrightHome(), res);
    process.stderr.write(`recorded this run in ${path} (provider.describe reports it)\n`);
  }
  process.stdout.write(opts.json ? `${JSON.stringify(res, null, 2)}\n` : `\n${formatReport(res)}\n`);
  return res.certified ? 0 : 1;
}
