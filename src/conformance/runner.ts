import { type Exchange, ProviderClient } from './client.js';
import { startPageServer } from './pages.js';
import { Fail, type RunContext, SCENARIOS, type Scenario } from './scenarios.js';

export type Tier = 'Certified' | 'Compatible' | 'Experimental';

export interface ScenarioResult {
  id: string;
  title: string;
  kind: 'core' | 'certified';
  run: number;
  ok: boolean;
  reason?: string;
  note?: string;
  ms: number;
  /** The scenario's requests and the start of each reply (the last EVIDENCE_MAX of them). */
  evidence: Exchange[];
}

/** One thing to change for the next tier up: the failing scenario, why it failed, and what to do. */
export interface FixItem {
  scenario: string;
  reason: string;
  fix: string;
}

export interface ScenarioSummary {
  id: string;
  title: string;
  kind: 'core' | 'certified';
  passed: number;
  runs: number;
  ok: boolean;
  flaky: boolean;
  reason?: string;
  avg_ms: number;
}

export interface SuiteResult {
  command: string;
  provider: {
    id: string | null;
    version: string | null;
    label: string | null;
    /** As describe states them (the suite does not check which browser answers). */
    browser_families: string[];
  };
  runs: number;
  tier: Tier;
  certified: boolean;
  /** What keeps the provider from the next tier up, in words. */
  missing: string[];
  /** What to fix, scenario by scenario (empty when Certified). */
  to_fix: FixItem[];
  summary: ScenarioSummary[];
  results: ScenarioResult[];
  duration_ms: number;
}

export interface SuiteOptions {
  /** argv, or a shell command line. */
  command: string | string[];
  runs?: number;
  /** Per request. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  onResult?: (r: ScenarioResult, index: number, total: number) => void;
  /** A new provider process for every run (default: one process serves every run). */
  restart?: boolean;
  scenarios?: Scenario[];
}

/** Scenarios a provider must pass in every run to be usable at all (Compatible). */
const USABLE = [
  'core.describe',
  'core.status',
  'core.session_ensure',
  'core.page_open',
  'core.session_close',
];

/** Exchanges kept per scenario result. */
const EVIDENCE_MAX = 12;

export async function runSuite(opts: SuiteOptions): Promise<SuiteResult> {
  const runs = opts.runs ?? 3;
  const scenarios = opts.scenarios ?? SCENARIOS;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const t0 = Date.now();
  const server = await startPageServer();
  const results: ScenarioResult[] = [];
  const total = scenarios.reduce((n, sc) => n + (sc.once ? 1 : runs), 0);
  const seenSessionIds = new Set<string>();
  let provider: SuiteResult['provider'] = { id: null, version: null, label: null, browser_families: [] };
  try {
    let client: ProviderClient | undefined;
    for (let run = 1; run <= runs; run++) {
      if (!client || opts.restart || !client.alive)
        client = ProviderClient.spawn(opts.command, { env: opts.env, cwd: opts.cwd });
      const ctx: RunContext = { client, base: server.url, run, timeoutMs, seenSessionIds };
      try {
        for (const sc of scenarios) {
          if (sc.once && run > 1) continue;
          const s0 = Date.now();
          const base = { id: sc.id, title: sc.title, kind: sc.kind, run };
          let r: ScenarioResult;
          if (!client.alive) {
            r = {
              ...base,
              ok: false,
              reason: `the provider exited${tail(client.stderr)}`,
              ms: 0,
              evidence: [],
            };
          } else {
            const transcript: Exchange[] = [];
            client.transcript = transcript;
            try {
              const note = await sc.run(ctx);
              r = { ...base, ok: true, ms: Date.now() - s0, evidence: [] };
              if (note) r.note = note;
            } catch (err) {
              const reason =
                err instanceof Fail
                  ? err.message
                  : `unexpected: ${err instanceof Error ? err.message : String(err)}`;
              r = { ...base, ok: false, reason, ms: Date.now() - s0, evidence: [] };
            } finally {
              client.transcript = null;
            }
            r.evidence = transcript.slice(-EVIDENCE_MAX);
          }
          results.push(r);
          opts.onResult?.(r, results.length, total);
        }
        if (ctx.describe) {
          provider = {
            id: ctx.describe.provider_id ?? null,
            version: ctx.describe.provider_version ?? null,
            label: ctx.describe.provider_label ?? null,
            browser_families: Array.isArray(ctx.describe.browser_families)
              ? ctx.describe.browser_families.map(String)
              : [],
          };
        }
        if (ctx.sessionId)
          await client.request('session.close', { session_id: ctx.sessionId }, { timeoutMs: 10_000 });
        // stdout is checked to the very end: a stray line after the envelope scenario still counts.
        if (opts.restart || run === runs) lateEnvelopeProblem(client, results, run);
      } finally {
        if (opts.restart || run === runs) await client.close(15_000);
      }
    }
  } finally {
    await server.close();
  }
  const summary = summarize(scenarios, results, runs);
  const { tier, missing } = tierOf(summary);
  const fixes = new Map(scenarios.map((sc) => [sc.id, sc.fix]));
  const to_fix = summary
    .filter((x) => !x.ok)
    .map((x) => ({ scenario: x.id, reason: x.reason ?? 'failed', fix: fixes.get(x.id) ?? '' }));
  return {
    command: Array.isArray(opts.command) ? opts.command.join(' ') : opts.command,
    provider,
    runs,
    tier,
    certified: tier === 'Certified',
    missing,
    to_fix,
    summary,
    results,
    duration_ms: Date.now() - t0,
  };
}

/** Marks this run's passed envelope check as failed when stdout carried a bad line after it ran. */
function lateEnvelopeProblem(client: ProviderClient, results: ScenarioResult[], run: number): void {
  const r = results.find((x) => x.id === 'cert.envelopes' && x.run === run);
  if (!r?.ok) return;
  const problem = client.badLines[0]
    ? `stdout carried non-envelope lines: ${client.badLines[0]}`
    : client.envelopeProblems[0];
  if (!problem) return;
  r.ok = false;
  r.reason = `after the scenario passed: ${problem}`;
  r.evidence = [{ request: '(none: what the provider wrote)', reply: problem, ms: 0 }];
  delete r.note;
}

function tail(stderr: string): string {
  const line = stderr.trim().split('\n').pop();
  return line ? ` (stderr: ${line.slice(0, 200)})` : '';
}

export function summarize(scenarios: Scenario[], results: ScenarioResult[], runs: number): ScenarioSummary[] {
  return scenarios.map((sc) => {
    const rs = results.filter((r) => r.id === sc.id);
    const passed = rs.filter((r) => r.ok).length;
    const failed = rs.find((r) => !r.ok);
    const n = sc.once ? 1 : runs;
    const s: ScenarioSummary = {
      id: sc.id,
      title: sc.title,
      kind: sc.kind,
      passed,
      runs: n,
      ok: passed === n,
      flaky: passed > 0 && passed < n,
      avg_ms: rs.length ? Math.round(rs.reduce((a, r) => a + r.ms, 0) / rs.length) : 0,
    };
    if (failed?.reason) s.reason = failed.reason;
    return s;
  });
}

/**
 * The draft's tiers (§17): Certified = every core scenario and every
 * Certified check passes in every run (predictable across runs);
 * Compatible = usable (describe, status, sessions, navigation pass every
 * run) and honest about its methods; else Experimental.
 */
export function tierOf(summary: ScenarioSummary[]): { tier: Tier; missing: string[] } {
  const failing = summary.filter((s) => !s.ok);
  const missing = failing.map(
    (s) => `${s.id}: ${s.flaky ? `passed only ${s.passed} of ${s.runs} runs; ` : ''}${s.reason ?? 'failed'}`,
  );
  if (failing.length === 0) return { tier: 'Certified', missing };
  const byId = new Map(summary.map((s) => [s.id, s]));
  const usable = USABLE.every((id) => byId.get(id)?.ok !== false);
  const honest = byId.get('cert.describe_honest')?.ok !== false;
  return { tier: usable && honest ? 'Compatible' : 'Experimental', missing };
}
