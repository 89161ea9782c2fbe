import type { BackendLimits } from '../../backends/backend.js';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  type OperationOptions,
  ops,
  placementProblems,
  toJsonSchema,
  toTabwrightError,
} from '../../engine/api.js';
import { VERSION } from '../../version.js';
import type { MethodTable } from '../kit/index.js';
import { PROTOCOL_VERSION } from './envelope.js';
import { EVENT_NAMES } from './events.js';
import { MAX_LINE_BYTES } from './framing.js';
import { DescribeParams, SetupGuideParams, StatusParams, VerifyParams } from './schemas.js';
import {
  type CallContext,
  FEATURES,
  type Feature,
  method,
  type ProviderMeta,
  type ProviderMethod,
  type ProviderOptions,
} from './table.js';

/** Feature → the methods that take part in it (their rows' meta.features), over every method of the door. */
function featureMethods(all: readonly ProviderMethod[]): Map<Feature, string[]> {
  const out = new Map<Feature, string[]>(FEATURES.map((f) => [f, []]));
  for (const m of all) for (const f of m.meta.features ?? []) out.get(f)!.push(m.name);
  return out;
}

/**
 * provider.describe, generated from the method table: the methods listed are exactly the ones
 * `live` serves; a feature is listed only when it has methods and every one of them is served
 * (`all` is every method of the door, so a feature whose method this process cannot serve is not).
 */
export function buildDescribe(
  all: readonly ProviderMethod[],
  live: MethodTable<CallContext, ProviderMeta, unknown>,
  opts: ProviderOptions,
  /** Per family, what its backend refuses (Engine.browserLimits). */
  limits: Readonly<Record<string, BackendLimits>> = {},
): Record<string, unknown> {
  const methods = live.list();
  const byFeature = featureMethods(all);
  const features = FEATURES.filter((f) => {
    const names = byFeature.get(f)!;
    return names.length > 0 && names.every((n) => live.has(n));
  });
  const stability: Record<string, string> = {};
  const schemas: Record<string, unknown> = {};
  for (const m of methods) {
    stability[m.name] = m.meta.stability;
    schemas[m.name] = toJsonSchema(m.params);
  }
  return {
    provider_id: 'tabwright',
    provider_label: `tabwright (${opts.families.map((f) => limits[f]?.label ?? f).join(', ')})`,
    provider_version: VERSION,
    protocol_version: PROTOCOL_VERSION,
    browser_families: [...opts.families],
    default_browser_family: opts.browser,
    // What each family cannot do (yet), as its backend declares it: the methods answer unsupported_method there.
    family_limits: Object.fromEntries(opts.families.map((f) => [f, familyLimits(all, limits[f])])),
    transport: opts.transport,
    // Not a self-declaration: a candidate, with the last run of the suite on this machine as evidence.
    certification_tier: 'candidate',
    certification: certificationOf(opts),
    capabilities: {
      core_methods: methods.filter((m) => m.meta.group === 'core').map((m) => m.name),
      optional_methods: methods
        .filter((m) => m.meta.group === 'optional' || m.meta.group === 'setup')
        .map((m) => m.name),
      features,
      custom_methods: methods
        .filter((m) => m.meta.group === 'custom')
        .map((m) => ({
          name: m.name,
          description: m.summary,
          stability: m.meta.stability,
          input_schema: toJsonSchema(m.params),
          output_schema: m.meta.output ? toJsonSchema(m.meta.output) : { type: 'object' },
        })),
      stability,
      feature_methods: Object.fromEntries(features.map((f) => [f, byFeature.get(f)])),
      input_schemas: schemas,
      events: [...EVENT_NAMES],
    },
    session_close: {
      ephemeral:
        'closes the session’s browser context and its pages; the shared browser stays for other sessions',
      persistent: 'closes the profile’s browser; cookies and storage stay on disk',
      attach: 'disconnects; the user’s browser and tabs stay open',
    },
    limits: {
      max_line_bytes: MAX_LINE_BYTES,
      default_timeout_ms: DEFAULT_TIMEOUT_MS,
      max_timeout_ms: MAX_TIMEOUT_MS,
      pipelining: true,
    },
    refs: {
      format: 'opaque string (today e<N>)',
      lifetime:
        'identity-based: a ref names one element until it is removed or its document is replaced; never recycled',
      stale: 'element_not_found with details.reason "stale_ref"',
    },
  };
}

/**
 * What the suite found, not what we claim: the tier is granted by `tabwright conformance`, so
 * describe says `candidate` and shows the last recorded run of the suite against this provider
 * (written by the CLI into the tabwright home), marking whether it was this version.
 */
function certificationOf(opts: ProviderOptions): Record<string, unknown> {
  const last = opts.lastCertification?.(opts.browser) ?? null;
  return {
    granted_by: 'tabwright conformance',
    how: 'run `tabwright conformance` (3 runs against this provider); its result is recorded here',
    last_run: last ? { ...last, this_version: last.provider_version === VERSION } : null,
  };
}

/**
 * A family's limits in this door's names: every method of the door that runs an operation the
 * family's backend refuses, with the backend's reason, and the backend's notes.
 */
function familyLimits(
  all: readonly ProviderMethod[],
  limits: BackendLimits | undefined,
): { unsupported_methods: Record<string, string>; notes: string[] } {
  const refused = limits?.unsupportedOps ?? {};
  const unsupported_methods: Record<string, string> = {};
  for (const m of all) {
    const op = m.ops.find((o) => o.name in refused);
    if (op) unsupported_methods[m.name] = `${refused[op.name]}: unsupported_method on such a session`;
  }
  return { unsupported_methods, notes: [...(limits?.notes ?? [])] };
}

function level(code: string): 'error' | 'warning' {
  return ['browser_missing', 'browser_path_invalid', 'grid_unreachable'].includes(code) ? 'error' : 'warning';
}

/** provider.status from the diagnostics: availability, setup_state and the steps always agree. */
export async function buildStatus(call: CallContext): Promise<Record<string, unknown>> {
  const d = await ops.diagnostics.call(call.engine, {});
  const grid = await ops.placement.call(call.engine, {});
  // On a Grid the browsers are the nodes': a local Chromium does not matter, the Grid does.
  const problems = grid ? placementProblems(grid) : d.problems;
  const detected = grid ? grid.reachable && grid.nodes_up > 0 : d.selected_browser !== null;
  const selected = d.browsers.find((b) => b.selected);
  const sessions = (await ops.listSessions.call(call.engine, {})).filter((s) => s.alive);
  // Any shared browser counts (a Firefox-only or Chrome-only one too), not only the default family's.
  const shared = await ops.sharedBrowser.call(call.engine, {});
  const running = sessions.length > 0 || shared.running;
  const diags: Record<string, unknown>[] = [];
  if (grid?.reachable) {
    diags.push({
      level: 'info',
      code: 'grid_reachable',
      message: `Selenium Grid at ${grid.url}: ${grid.nodes_up}/${grid.nodes} nodes up, ${grid.free_slots}/${grid.slots} slots free, ${grid.queue ?? '?'} queued`,
    });
  } else if (detected) {
    diags.push({
      level: 'info',
      code: 'browser_detected',
      message: `${selected?.version ?? 'Chromium'} at ${d.selected_browser}`,
    });
  }
  for (const p of problems)
    diags.push({ level: level(p.code), code: p.code, message: p.message, manual_steps: p.manual_steps });
  const blocking = problems.some((p) => level(p.code) === 'error') || !detected;
  const manual = [...new Set(problems.flatMap((p) => p.manual_steps))];
  return {
    availability: blocking ? 'unavailable' : d.problems.length > 0 ? 'degraded' : 'ready',
    browser_detected: detected,
    browser_running: running,
    setup_state: blocking ? 'required' : d.problems.length > 0 ? 'partial' : 'complete',
    requires_manual_setup: manual.length > 0,
    recommended_browser: 'chromium',
    manual_steps: manual,
    diagnostics: diags,
    browser_path: d.selected_browser,
    browser_version: selected?.version ?? null,
    /** Vendor builds installed here (chrome, edge) by path: what session.start `product` can launch. */
    browser_products: d.products,
    /** The shared browsers running now (what ephemeral sessions use), per family and product, with pids. */
    shared_browsers: shared.browsers,
    headless: !call.options.headed,
    sessions: sessions.length,
    home: d.home,
    grid,
  };
}

/** A real launch, open, snapshot, click, wait, screenshot and close; each step reported, none fatal. */
async function verify(p: { timeout_ms?: number }, call: CallContext): Promise<Record<string, unknown>> {
  await ops.diagnostics.call(call.engine, { refresh: true });
  const checks: { check: string; ok: boolean; ms: number; message?: string; code?: string }[] = [];
  const timeoutMs = p.timeout_ms ?? 20_000;
  const o: OperationOptions = { timeoutMs };
  const step = async <T>(check: string, fn: () => Promise<T>): Promise<T | undefined> => {
    const t0 = Date.now();
    try {
      const v = await fn();
      checks.push({ check, ok: true, ms: Date.now() - t0 });
      return v;
    } catch (err) {
      const e = toTabwrightError(err);
      checks.push({ check, ok: false, ms: Date.now() - t0, code: e.code, message: e.message });
      return undefined;
    }
  };
  const session = await step('launch', () =>
    ops.startSession.call(call.engine, {}, { timeoutMs, signal: call.signal }),
  );
  if (session) {
    const page = session.page();
    const html = '<title>verify</title><button onclick="this.textContent=\'done\'">go</button>';
    const url = `data:text/html,${encodeURIComponent(html)}`;
    await step('open', () => ops.open.call(page, { url, wait_until: 'load' }, o));
    const snap = await step('snapshot', () => ops.snapshot.call(page, {}, o));
    const ref = snap?.elements[0]?.element_ref;
    await step('click', async () => {
      if (!ref) throw new Error('the snapshot had no element ref');
      await ops.click.call(page, { target: { element_ref: ref } }, o);
      await ops.wait.call(page, { conditions: { text_present: 'done' } }, { timeoutMs: 5000 });
    });
    await step('screenshot', () => ops.screenshot.call(page, {}, o));
    await step('close', () => ops.closeSession.call(call.engine, { session_id: session.id }));
  }
  const status = await buildStatus(call);
  return { ok: checks.every((c) => c.ok) && checks.length === 6, checks, status };
}

async function setupGuide(call: CallContext): Promise<Record<string, unknown>> {
  const d = await ops.diagnostics.call(call.engine, {});
  return {
    browser: 'chromium',
    summary:
      'tabwright drives a local Chromium (Debian: /usr/bin/chromium). No extension, native host or remote debugging is needed.',
    steps: [
      'Install Chromium: apt-get update && apt-get install -y chromium (as root), or set TABWRIGHT_CHROMIUM to a Chromium/Chrome binary.',
      'Check with `tabwright doctor` or provider.status; provider.verify runs a real launch, snapshot, click and screenshot.',
      'Optional: attach to your own browser by starting it with --remote-debugging-port=9222 and passing cdp_endpoint to session.ensure.',
    ],
    environment: {
      TABWRIGHT_CHROMIUM: 'the browser binary to use',
      TABWRIGHT_CHROME: 'the Google Chrome binary of sessions started with product "chrome"',
      TABWRIGHT_EDGE: 'the Microsoft Edge binary of sessions started with product "edge"',
      TABWRIGHT_BROWSER_PATHS: 'colon-separated search paths replacing the defaults',
      TABWRIGHT_HOME: 'where profiles, downloads and screenshot files live',
      TABWRIGHT_LOG: 'log level; logs are JSON on stderr',
    },
    files: { home: d.home, dirs: d.dirs, browsers: d.browsers },
    urls: ['https://packages.debian.org/stable/chromium'],
    permissions: [
      'Running as root launches Chromium with --no-sandbox.',
      'Socket transport: the socket file is created with mode 0600.',
    ],
    troubleshooting: [
      'browser_not_running: the browser crashed or was killed; call session.ensure again (it relaunches).',
      'setup_required: no Chromium found; follow manual_steps of provider.status.',
    ],
    headless: !call.options.headed,
  };
}

export const PROVIDER_METHODS: ProviderMethod[] = [
  method({
    name: 'provider.describe',
    summary: 'Static metadata and capabilities: every listed method works; others answer unsupported_method.',
    meta: { group: 'core', stability: 'stable' },
    params: DescribeParams,
    run: (call) => call.describe(),
  }),
  method({
    name: 'provider.status',
    summary: 'Availability, browser detection, setup state and diagnostics with manual steps.',
    ops: [ops.diagnostics, ops.listSessions, ops.sharedBrowser, ops.placement],
    meta: { group: 'core', stability: 'stable' },
    params: StatusParams,
    run: (call) => buildStatus(call),
  }),
  method({
    name: 'provider.setup_guide',
    summary: 'How to set this provider up: install command, environment, files, troubleshooting.',
    ops: [ops.diagnostics],
    meta: { group: 'setup', stability: 'stable' },
    params: SetupGuideParams,
    run: (call) => setupGuide(call),
  }),
  method({
    name: 'provider.verify',
    summary:
      'Checks that setup works end to end: launch, open, snapshot, click, screenshot, close. Reports per-check results (ok: false is a result, not an error).',
    ops: [
      ops.diagnostics,
      ops.startSession,
      ops.open,
      ops.snapshot,
      ops.click,
      ops.wait,
      ops.screenshot,
      ops.closeSession,
    ],
    meta: { group: 'setup', stability: 'stable' },
    params: VerifyParams,
    run: (call, p) => verify(p, call),
  }),
];
