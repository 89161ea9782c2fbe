import { ProviderClient } from './client.js';
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
  provider: { id: string | null; version: string | null; label: string | null };
  runs: number;
  tier: Tier;
  certified: boolean;
  /** What keeps the provider from the next tier up, in words. */
  missing: string[];
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

export async function runSuite(opts: SuiteOptions): Promise<SuiteResult> {
  const runs = opts.runs ?? 3;
  const scenarios = opts.scenarios ?? SCENARIOS;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const t0 = Date.now();
  const server = await startPageServer();
  const results: ScenarioResult[] = [];
  const seenSessionIds = new Set<string>();
  let provider: SuiteResult['provider'] = { id: null, version: null, label: null };
  try {
    let client: ProviderClient | undefined;
    for (let run = 1; run <= runs; run++) {
      if (!client || opts.restart || !client.alive)
        client = ProviderClient.spawn(opts.command, { env: opts.env, cwd: opts.cwd });
      const ctx: RunContext = { client, base: server.url, run, timeoutMs, seenSessionIds };
      try {
        for (const [i, sc] of scenarios.entries()) {
          const s0 = Date.now();
          let r: ScenarioResult;
          if (!client.alive) {
            r = {
              id: sc.id,
              title: sc.title,
              kind: sc.kind,
              run,
              ok: false,
              reason: `the provider exited${tail(client.stderr)}`,
              ms: 0,
            };
          } else {
            try {
              const note = await sc.run(ctx);
              r = { id: sc.id, title: sc.title, kind: sc.kind, run, ok: true, ms: Date.now() - s0 };
              if (note) r.note = note;
            } catch (err) {
              const reason =
                err instanceof Fail
                  ? err.message
                  : `unexpected: ${err instanceof Error ? err.message : String(err)}`;
              r = { id: sc.id, title: sc.title, kind: sc.kind, run, ok: false, reason, ms: Date.now() - s0 };
            }
          }
          results.push(r);
          opts.onResult?.(r, (run - 1) * scenarios.length + i + 1, runs * scenarios.length);
        }
        if (ctx.describe) {
          provider = {
            id: ctx.describe.provider_id ?? null,
            version: ctx.describe.provider_version ?? null,
            label: ctx.describe.provider_label ?? null,
          };
        }
        if (ctx.sessionId)
          await client.request('session.close', { session_id: ctx.sessionId }, { timeoutMs: 10_000 });
      } finally {
        if (opts.restart || run === runs) await client.close(15_000);
      }
    }
  } finally {
    await server.close();
  }
  const summary = summarize(scenarios, results, runs);
  const { tier, missing } = tierOf(summary);
  return {
    command: Array.isArray(opts.command) ? opts.command.join(' ') : opts.command,
    provider,
    runs,
    tier,
    certified: tier === 'Certified',
    missing,
    summary,
    results,
    duration_ms: Date.now() - t0,
  };
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
    const s: ScenarioSummary = {
      id: sc.id,
      title: sc.title,
      kind: sc.kind,
      passed,
      runs,
      ok: passed === runs,
      flaky: passed > 0 && passed < runs,
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
