import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SuiteResult } from './runner.js';

/**
 * The record of the last `tabwright conformance` run against our own provider, kept in the
 * tabwright home. `provider.describe` reports it next to `certification_tier: "candidate"`:
 * the tier is what the suite found, never what the provider says of itself.
 */

/** One record per browser family: each backend of our provider is certified on its own. */
export function recordPath(browserFamily: string): string {
  return join('conformance', `last-run-${browserFamily.replace(/[^a-z0-9_-]/gi, '_')}.json`);
}

export interface CertificationRecord {
  /** ISO time the run ended. */
  at: string;
  /** "tabwright conformance" */
  suite: string;
  provider_id: string | null;
  provider_version: string | null;
  browser_families: string[];
  runs: number;
  tier: string;
  scenarios_passed: number;
  scenarios_total: number;
  failing: string[];
  duration_ms: number;
}

export function recordOf(res: SuiteResult, at = new Date()): CertificationRecord {
  return {
    at: at.toISOString(),
    suite: 'tabwright conformance',
    provider_id: res.provider.id,
    provider_version: res.provider.version,
    browser_families: res.provider.browser_families,
    runs: res.runs,
    tier: res.tier,
    scenarios_passed: res.summary.filter((s) => s.ok).length,
    scenarios_total: res.summary.length,
    failing: res.summary.filter((s) => !s.ok).map((s) => s.id),
    duration_ms: res.duration_ms,
  };
}

/** Writes the record under `home`, for the run's browser family (atomically: a reader never sees half a file). */
export function writeRecord(home: string, res: SuiteResult): string {
  const path = join(home, recordPath(res.provider.browser_families[0] ?? 'unknown'));
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(recordOf(res), null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
  return path;
}

/** The record of `browserFamily` under `home`, or null when there is none or it cannot be read. */
export function readRecord(home: string, browserFamily: string): CertificationRecord | null {
  try {
    const r = JSON.parse(readFileSync(join(home, recordPath(browserFamily)), 'utf8'));
    return r && typeof r === 'object' && typeof r.tier === 'string' ? (r as CertificationRecord) : null;
  } catch {
    return null;
  }
}
