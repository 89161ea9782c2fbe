import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../../engine/deadline.js';
import { toTabwrightError } from '../../engine/errors.js';
import { toJsonSchema } from '../../engine/schemas.js';
import { VERSION } from '../../version.js';
import { PROTOCOL_VERSION } from './envelope.js';
import { EVENT_NAMES } from './events.js';
import { MAX_LINE_BYTES } from './framing.js';
import { DescribeParams, SetupGuideParams, StatusParams, VerifyParams } from './schemas.js';
import type { CallContext, MethodDef, ProviderOptions } from './table.js';
import { method } from './table.js';

export const CORE_METHOD_NAMES = [
  'provider.describe',
  'provider.status',
  'session.ensure',
  'session.close',
  'page.open',
  'page.snapshot',
  'page.click',
  'page.type',
  'page.wait',
  'page.screenshot',
] as const;

/** Which methods a feature implies (describe.capabilities.feature_methods). */
const FEATURE_METHODS: Record<string, string[]> = {
  element_refs: ['page.snapshot', 'page.click', 'page.type', 'page.wait', 'page.screenshot'],
  a11y_snapshot: ['page.snapshot'],
  dom_snapshot: ['page.snapshot'],
  html_snapshot: ['page.snapshot'],
  full_page_screenshot: ['page.screenshot'],
  attach_existing_browser: ['session.ensure'],
  persistent_profile: ['session.ensure'],
  isolated_contexts: ['session.ensure'],
  js_eval: ['page.eval'],
  console_observe: ['console.list'],
  network_observe: ['network.list'],
  file_upload: ['upload.set_files'],
  download_observe: ['download.list', 'download.wait'],
};

type Listed = { def: MethodDef; listed: boolean };

/** Builds provider.describe from the method table: listed = exactly the methods that answer. */
export function buildDescribe(table: Listed[], opts: ProviderOptions): Record<string, unknown> {
  const live = table.filter((m) => m.listed).map((m) => m.def);
  const names = new Set(live.map((m) => m.name));
  const features = Object.entries(FEATURE_METHODS)
    .filter(([, methods]) => methods.every((m) => names.has(m)))
    .map(([f]) => f);
  const stability: Record<string, string> = {};
  const schemas: Record<string, unknown> = {};
  for (const m of live) {
    stability[m.name] = m.stability;
    schemas[m.name] = toJsonSchema(m.input);
  }
  return {
    provider_id: 'tabwright',
    provider_label: 'tabwright (Chromium)',
    provider_version: VERSION,
    protocol_version: PROTOCOL_VERSION,
    browser_families: [opts.browser],
    transport: opts.transport,
    certification_tier: 'certified',
    capabilities: {
      core_methods: live.filter((m) => m.group === 'core').map((m) => m.name),
      optional_methods: live.filter((m) => m.group === 'optional' || m.group === 'setup').map((m) => m.name),
      features,
      custom_methods: live
        .filter((m) => m.group === 'custom')
        .map((m) => ({
          name: m.name,
          description: m.description,
          stability: m.stability,
          input_schema: toJsonSchema(m.input),
          output_schema: m.output ? toJsonSchema(m.output) : { type: 'object' },
        })),
      stability,
      feature_methods: Object.fromEntries(features.map((f) => [f, FEATURE_METHODS[f]])),
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

function level(code: string): 'error' | 'warning' {
  return code === 'browser_missing' || code === 'browser_path_invalid' ? 'error' : 'warning';
}

/** provider.status from the diagnostics: availability, setup_state and the steps always agree. */
export async function buildStatus(call: CallContext): Promise<Record<string, unknown>> {
  const d = call.engine.diagnostics();
  const detected = d.selected_browser !== null;
  const selected = d.browsers.find((b) => b.selected);
  const sessions = call.engine.sessions().filter((s) => s.alive);
  const running = sessions.length > 0 || (await call.engine.sharedBrowserPid()) !== undefined;
  const diags: Record<string, unknown>[] = [];
  if (detected) {
    diags.push({
      level: 'info',
      code: 'browser_detected',
      message: `${selected?.version ?? 'Chromium'} at ${d.selected_browser}`,
    });
  }
  for (const p of d.problems)
    diags.push({ level: level(p.code), code: p.code, message: p.message, manual_steps: p.manual_steps });
  const blocking = d.problems.some((p) => level(p.code) === 'error') || !detected;
  const manual = [...new Set(d.problems.flatMap((p) => p.manual_steps))];
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
    headless: !call.options.headed,
    sessions: sessions.length,
    home: d.home,
  };
}

async function verify(p: { timeout_ms?: number }, call: CallContext): Promise<Record<string, unknown>> {
  call.engine.diagnostics({ refresh: true });
  const checks: { check: string; ok: boolean; ms: number; message?: string; code?: string }[] = [];
  const timeoutMs = p.timeout_ms ?? 20_000;
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
    call.engine.startSession({}, { timeoutMs, signal: call.signal }),
  );
  if (session) {
    const page = session.page();
    const html = '<title>verify</title><button onclick="this.textContent=\'done\'">go</button>';
    await step('open', () => page.open(`data:text/html,${encodeURIComponent(html)}`, 'load', { timeoutMs }));
    const snap = await step('snapshot', () => page.snapshot({}, { timeoutMs }));
    const ref = snap?.elements[0]?.element_ref;
    await step('click', async () => {
      if (!ref) throw new Error('the snapshot had no element ref');
      await page.act({ element_ref: ref }, { action: 'click' }, { timeoutMs });
      await page.wait({ text_present: 'done' }, {}, { timeoutMs: 5000 });
    });
    await step('screenshot', () => page.screenshot({}, { timeoutMs }));
    await step('close', () => call.engine.closeSession(session.id));
  }
  const status = await buildStatus(call);
  return { ok: checks.every((c) => c.ok) && checks.length === 6, checks, status };
}

function setupGuide(call: CallContext): Record<string, unknown> {
  const d = call.engine.diagnostics();
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

export const PROVIDER_METHODS: MethodDef[] = [
  method({
    name: 'provider.describe',
    group: 'core',
    stability: 'stable',
    description:
      'Static metadata and capabilities: every listed method works; others answer unsupported_method.',
    input: DescribeParams,
    handler: () => {
      throw new Error('provider.describe is answered by the registry');
    },
  }),
  method({
    name: 'provider.status',
    group: 'core',
    stability: 'stable',
    description: 'Availability, browser detection, setup state and diagnostics with manual steps.',
    input: StatusParams,
    handler: (_p, call) => buildStatus(call),
  }),
  method({
    name: 'provider.setup_guide',
    group: 'setup',
    stability: 'stable',
    description: 'How to set this provider up: install command, environment, files, troubleshooting.',
    input: SetupGuideParams,
    handler: (_p, call) => setupGuide(call),
  }),
  method({
    name: 'provider.verify',
    group: 'setup',
    stability: 'stable',
    description:
      'Checks that setup works end to end: launch, open, snapshot, click, screenshot, close. Reports per-check results (ok: false is a result, not an error).',
    input: VerifyParams,
    handler: verify,
  }),
];
