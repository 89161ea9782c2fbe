import type { ProviderClient, Reply } from './client.js';

/**
 * The conformance scenarios: the draft's ten minimal scenarios (kind
 * "core") and the checks behind the Certified definition (kind
 * "certified"). A scenario throws Fail with the reason, or returns a note.
 */

export const CORE_METHODS = [
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
];

/** Normalized names outside the core (draft §9, §13). */
export const OPTIONAL_NAMES = [
  'page.go_back',
  'page.go_forward',
  'page.reload',
  'page.press',
  'page.select',
  'page.hover',
  'page.scroll',
  'page.eval',
  'tab.list',
  'tab.new',
  'tab.activate',
  'tab.close',
  'network.list',
  'console.list',
  'storage.get',
  'cookie.list',
  'download.list',
  'download.wait',
  'upload.set_files',
  'provider.setup_guide',
  'provider.verify',
];

export class Fail extends Error {}

export interface RunContext {
  client: ProviderClient;
  /** Base URL of the suite's page server. */
  base: string;
  run: number;
  timeoutMs: number;
  describe?: any;
  sessionId?: string;
  pageId?: string;
  /** Session ids seen in every run so far (never recycled). */
  seenSessionIds: Set<string>;
}

export interface Scenario {
  id: string;
  title: string;
  kind: 'core' | 'certified';
  run(ctx: RunContext): Promise<string | undefined>;
}

async function call(ctx: RunContext, method: string, params: Record<string, unknown> = {}): Promise<Reply> {
  return ctx.client.request(method, params, { timeoutMs: ctx.timeoutMs });
}

async function ok(ctx: RunContext, method: string, params: Record<string, unknown> = {}): Promise<any> {
  const r = await call(ctx, method, params);
  if (!r.ok) throw new Fail(`${method} failed: ${r.error.code}: ${r.error.message}`);
  if (!r.result || typeof r.result !== 'object') throw new Fail(`${method} returned no result object`);
  return r.result;
}

function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Fail(`skipped: ${what} did not succeed earlier`);
  return v;
}

function check(cond: unknown, reason: string): asserts cond {
  if (!cond) throw new Fail(reason);
}

function session(ctx: RunContext): { session_id: string } {
  return { session_id: need(ctx.sessionId, 'session.ensure') };
}

/** The ref of the actionable element whose name (or text) contains `name`, from elements or snapshot nodes. */
export function findRef(snap: any, name: string): string | undefined {
  const pools = [snap?.elements, snap?.snapshot?.nodes].filter(Array.isArray) as any[][];
  for (const pool of pools) {
    for (const e of pool) {
      const label = `${e?.name ?? ''} ${e?.text ?? ''}`;
      if (typeof e?.element_ref === 'string' && e.element_ref && label.includes(name)) return e.element_ref;
    }
  }
  return undefined;
}

async function snapshotText(ctx: RunContext): Promise<{ snap: any; text: string }> {
  const snap = await ok(ctx, 'page.snapshot', session(ctx));
  const text = typeof snap.text === 'string' ? snap.text : '';
  return { snap, text };
}

/** Whether `text` shows up on the page: page.wait when it works, else snapshot text. */
async function shows(ctx: RunContext, text: string): Promise<boolean> {
  const w = await call(ctx, 'page.wait', { ...session(ctx), text_present: text, timeout_ms: 3000 });
  if (w.ok && w.result?.satisfied === true) return true;
  const { snap, text: t } = await snapshotText(ctx);
  return t.includes(text) || JSON.stringify(snap.snapshot ?? {}).includes(text);
}

async function openForm(ctx: RunContext): Promise<any> {
  const r = await ok(ctx, 'page.open', { ...session(ctx), url: `${ctx.base}/form.html` });
  return r;
}

export const SCENARIOS: Scenario[] = [
  {
    id: 'core.describe',
    title: 'provider.describe succeeds',
    kind: 'core',
    async run(ctx) {
      const d = await ok(ctx, 'provider.describe');
      check(
        d.protocol_version === '0.1',
        `protocol_version is ${JSON.stringify(d.protocol_version)}, not "0.1"`,
      );
      check(typeof d.provider_id === 'string' && d.provider_id, 'provider_id missing');
      const caps = d.capabilities;
      check(caps && Array.isArray(caps.core_methods), 'capabilities.core_methods missing');
      check(Array.isArray(caps.features ?? []), 'capabilities.features is not an array');
      ctx.describe = d;
      return `${d.provider_id} ${d.provider_version ?? ''}`.trim();
    },
  },
  {
    id: 'core.status',
    title: 'provider.status reports a coherent state',
    kind: 'core',
    async run(ctx) {
      const s = await ok(ctx, 'provider.status');
      check(['ready', 'degraded', 'unavailable'].includes(s.availability), `availability ${s.availability}`);
      check(
        ['complete', 'partial', 'required', 'broken'].includes(s.setup_state),
        `setup_state ${s.setup_state}`,
      );
      check(typeof s.browser_detected === 'boolean', 'browser_detected is not a boolean');
      check(typeof s.browser_running === 'boolean', 'browser_running is not a boolean');
      check(typeof s.requires_manual_setup === 'boolean', 'requires_manual_setup is not a boolean');
      check(Array.isArray(s.manual_steps), 'manual_steps is not an array');
      check(Array.isArray(s.diagnostics), 'diagnostics is not an array');
      for (const d of s.diagnostics) {
        check(
          typeof d.level === 'string' && typeof d.code === 'string' && typeof d.message === 'string',
          'a diagnostic lacks level, code or message',
        );
      }
      if (s.availability === 'ready') {
        check(s.browser_detected, 'ready without a detected browser');
        check(
          s.setup_state === 'complete' || s.setup_state === 'partial',
          `ready with setup_state ${s.setup_state}`,
        );
      }
      if (!s.browser_detected) check(s.availability !== 'ready', 'no browser detected but ready');
      if (s.setup_state === 'required') check(s.availability !== 'ready', 'setup required but ready');
      if (s.requires_manual_setup) {
        const steps = s.manual_steps.length + s.diagnostics.filter((d: any) => d.manual_steps?.length).length;
        check(steps > 0, 'requires_manual_setup without any manual_steps');
      }
      check(
        s.availability !== 'unavailable',
        `the provider is unavailable: ${JSON.stringify(s.manual_steps)}`,
      );
      return `${s.availability}, setup ${s.setup_state}`;
    },
  },
  {
    id: 'core.session_ensure',
    title: 'session.ensure creates a session or reuses one',
    kind: 'core',
    async run(ctx) {
      const key = `conformance-run-${ctx.run}-${Date.now()}`;
      const a = await ok(ctx, 'session.ensure', { client_session_id: key });
      check(typeof a.session_id === 'string' && a.session_id, 'no session_id');
      ctx.sessionId = a.session_id;
      const b = await ok(ctx, 'session.ensure', { client_session_id: key });
      check(
        b.session_id === a.session_id,
        `the same client_session_id gave ${b.session_id}, not ${a.session_id}`,
      );
      return a.session_id;
    },
  },
  {
    id: 'cert.fresh_ids',
    title: 'session ids are never handed out twice, across runs',
    kind: 'certified',
    async run(ctx) {
      const id = need(ctx.sessionId, 'session.ensure');
      const again = ctx.seenSessionIds.has(id);
      ctx.seenSessionIds.add(id);
      check(!again, `session_id ${id} was handed out in an earlier run`);
      return undefined;
    },
  },
  {
    id: 'core.page_open',
    title: 'page.open navigates to a test page',
    kind: 'core',
    async run(ctx) {
      const r = await openForm(ctx);
      check(typeof r.page_id === 'string' && r.page_id, 'no page_id');
      check(typeof r.url === 'string' && r.url.endsWith('/form.html'), `url is ${r.url}`);
      if (r.title !== undefined) check(r.title === 'Conformance form', `title is ${JSON.stringify(r.title)}`);
      ctx.pageId = r.page_id;
      return r.page_id;
    },
  },
  {
    id: 'core.page_snapshot',
    title: 'page.snapshot returns usable text and an actionable ref',
    kind: 'core',
    async run(ctx) {
      const { snap, text } = await snapshotText(ctx);
      check(text.includes('Increment'), 'snapshot text does not mention the "Increment" button');
      check(
        snap.snapshot?.format === 'jcode.page_snapshot.v1',
        `snapshot.format is ${snap.snapshot?.format}`,
      );
      check(
        snap.snapshot?.root && Array.isArray(snap.snapshot.nodes),
        'snapshot.root or snapshot.nodes missing',
      );
      if (ctx.pageId)
        check(snap.page_id === ctx.pageId, `page_id changed from ${ctx.pageId} to ${snap.page_id}`);
      const ref = findRef(snap, 'Increment');
      check(ref, 'no actionable element_ref for the "Increment" button');
      return `${snap.snapshot.nodes.length} nodes, ${(snap.elements ?? []).length} elements`;
    },
  },
  {
    id: 'core.page_click',
    title: 'page.click activates a known element',
    kind: 'core',
    async run(ctx) {
      const { snap } = await snapshotText(ctx);
      const ref = findRef(snap, 'Increment');
      check(ref, 'no ref for "Increment"');
      const r = await ok(ctx, 'page.click', { ...session(ctx), element_ref: ref });
      check(r.clicked === true, 'clicked is not true');
      check(await shows(ctx, 'Count: 1'), 'the page does not show "Count: 1" after the click');
      return undefined;
    },
  },
  {
    id: 'core.page_type',
    title: 'page.type fills a known input',
    kind: 'core',
    async run(ctx) {
      const { snap } = await snapshotText(ctx);
      const ref = findRef(snap, 'Your name');
      check(ref, 'no ref for the "Your name" input');
      const r = await ok(ctx, 'page.type', { ...session(ctx), element_ref: ref, text: 'Ada', replace: true });
      check(r.typed === true, 'typed is not true');
      check(await shows(ctx, 'Hello, Ada'), 'the page does not show "Hello, Ada" after typing');
      return undefined;
    },
  },
  {
    id: 'core.page_wait',
    title: 'page.wait observes a deterministic change',
    kind: 'core',
    async run(ctx) {
      const { snap } = await snapshotText(ctx);
      const ref = findRef(snap, 'Reveal later');
      check(ref, 'no ref for "Reveal later"');
      await ok(ctx, 'page.click', { ...session(ctx), element_ref: ref });
      const w = await ok(ctx, 'page.wait', { ...session(ctx), text_present: 'Ready now', timeout_ms: 5000 });
      check(w.satisfied === true, 'satisfied is not true');
      const neg = await call(ctx, 'page.wait', {
        ...session(ctx),
        text_present: 'Never shown',
        timeout_ms: 300,
      });
      check(!(neg.ok && neg.result?.satisfied === true), 'a wait for absent text was satisfied');
      return undefined;
    },
  },
  {
    id: 'core.page_screenshot',
    title: 'page.screenshot returns an image',
    kind: 'core',
    async run(ctx) {
      const r = await ok(ctx, 'page.screenshot', session(ctx));
      check(typeof r.image === 'string' || typeof r.image_ref === 'string', 'neither image nor image_ref');
      if (typeof r.image === 'string') {
        const bytes = Buffer.from(r.image, 'base64');
        const png = bytes.subarray(1, 4).toString() === 'PNG';
        const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
        check(png || jpeg, 'image is not base64 PNG or JPEG');
      }
      check(
        typeof r.media_type === 'string' && r.media_type.startsWith('image/'),
        `media_type ${r.media_type}`,
      );
      if (r.width !== undefined) check(r.width > 0 && r.height > 0, 'width/height not positive');
      return `${r.width}x${r.height}`;
    },
  },
  {
    id: 'cert.ref_stability',
    title: 'refs are stable across snapshots of an unchanged page',
    kind: 'certified',
    async run(ctx) {
      await openForm(ctx);
      const a = findRef((await snapshotText(ctx)).snap, 'Increment');
      const b = findRef((await snapshotText(ctx)).snap, 'Increment');
      check(a && b, 'no ref for "Increment"');
      check(a === b, `the same element got ${a} and then ${b}`);
      return undefined;
    },
  },
  {
    id: 'cert.stale_ref',
    title: 'stale refs are refused, never re-aimed',
    kind: 'certified',
    async run(ctx) {
      await openForm(ctx);
      const { snap } = await snapshotText(ctx);
      const rm = findRef(snap, 'Remove me');
      const inc = findRef(snap, 'Increment');
      check(rm && inc, 'no refs for "Remove me" / "Increment"');
      await ok(ctx, 'page.click', { ...session(ctx), element_ref: rm });
      const again = await call(ctx, 'page.click', { ...session(ctx), element_ref: rm });
      check(!again.ok, 'clicking a removed element succeeded');
      check(
        again.error.code === 'element_not_found' || again.error.code === 'element_not_actionable',
        `a removed element answered ${again.error.code}, not element_not_found`,
      );
      await openForm(ctx);
      const old = await call(ctx, 'page.click', { ...session(ctx), element_ref: inc });
      check(!old.ok, 'a ref from the previous document clicked on the new one');
      check(await shows(ctx, 'Count: 0'), 'the new document was changed by an old ref');
      return again.error.details?.reason ? `reason ${String(again.error.details.reason)}` : undefined;
    },
  },
  {
    id: 'core.session_close',
    title: 'session.close cleans up or detaches',
    kind: 'core',
    async run(ctx) {
      const s = session(ctx);
      await ok(ctx, 'session.close', s);
      ctx.sessionId = undefined;
      const after = await call(ctx, 'page.snapshot', s);
      check(!after.ok, 'the closed session still answers');
      check(
        after.error.code === 'session_not_found',
        `a closed session answered ${after.error.code}, not session_not_found`,
      );
      return undefined;
    },
  },
  {
    id: 'cert.bad_input',
    title: 'bad input gets the right error codes and the provider survives',
    kind: 'certified',
    async run(ctx) {
      const c = ctx.client;
      const seen = c.orphans.length;
      c.sendRaw('{ this is not json');
      const bad = await c.nextOrphan(seen, ctx.timeoutMs);
      check(bad && !bad.ok, 'invalid JSON got no error envelope with id null');
      check(bad.id === null, 'invalid JSON: id is not null');
      check(bad.error.code === 'invalid_request', `invalid JSON answered ${bad.error.code}`);
      const v = await c.request('provider.status', {}, { protocolVersion: '9.9', timeoutMs: ctx.timeoutMs });
      check(!v.ok && v.error.code === 'invalid_request', 'a wrong protocol_version was not invalid_request');
      const u = await call(ctx, 'conformance.no_such_method');
      check(!u.ok && u.error.code === 'unsupported_method', 'an unknown method was not unsupported_method');
      const m = await call(ctx, 'page.open', { url: `${ctx.base}/form.html` });
      check(
        !m.ok && m.error.code === 'invalid_request',
        'page.open without session_id was not invalid_request',
      );
      const live = await ok(ctx, 'session.ensure', {});
      const t = await call(ctx, 'page.open', { session_id: live.session_id, url: 42 });
      await call(ctx, 'session.close', { session_id: live.session_id });
      check(
        !t.ok && t.error.code === 'invalid_request',
        'page.open with a numeric url was not invalid_request',
      );
      const s = await call(ctx, 'page.snapshot', { session_id: 'conformance-no-such-session' });
      check(
        !s.ok && s.error.code === 'session_not_found',
        `an unknown session answered ${s.ok ? 'ok' : s.error.code}`,
      );
      await ok(ctx, 'provider.status');
      return undefined;
    },
  },
  {
    id: 'cert.describe_honest',
    title: 'every method in describe works; others answer unsupported_method',
    kind: 'certified',
    async run(ctx) {
      const d = need(ctx.describe, 'provider.describe');
      const caps = d.capabilities ?? {};
      const listed = new Set<string>([...(caps.core_methods ?? []), ...(caps.optional_methods ?? [])]);
      const customs: any[] = caps.custom_methods ?? [];
      for (const cm of customs) {
        check(
          typeof cm.name === 'string' && cm.name.includes('.'),
          `custom method ${cm.name} is not namespaced`,
        );
        check(
          CORE_METHODS.concat(OPTIONAL_NAMES).indexOf(cm.name) < 0,
          `custom method ${cm.name} uses a normalized name`,
        );
        check(
          typeof cm.description === 'string' && cm.description,
          `custom method ${cm.name} has no description`,
        );
        check(
          ['stable', 'experimental', 'deprecated'].includes(cm.stability),
          `custom method ${cm.name}: stability ${cm.stability}`,
        );
      }
      const broken: string[] = [];
      const created: string[] = [];
      for (const m of [...listed].filter((x) => x !== 'provider.verify')) {
        const r = await call(ctx, m, {});
        if (!r.ok && r.error.code === 'unsupported_method') broken.push(m);
        if (r.ok && typeof r.result?.session_id === 'string' && m === 'session.ensure')
          created.push(r.result.session_id);
      }
      for (const id of created) await call(ctx, 'session.close', { session_id: id });
      check(broken.length === 0, `listed but unsupported_method: ${broken.join(', ')}`);
      const liars: string[] = [];
      for (const m of [...CORE_METHODS, ...OPTIONAL_NAMES].filter((x) => !listed.has(x))) {
        if (m === 'provider.describe' || m === 'provider.status') continue;
        const r = await call(ctx, m, {});
        if (r.ok || r.error.code !== 'unsupported_method') liars.push(m);
      }
      check(liars.length === 0, `not listed but answered (not unsupported_method): ${liars.join(', ')}`);
      return `${listed.size} methods listed, ${customs.length} custom`;
    },
  },
  {
    id: 'cert.envelopes',
    title: 'every reply is a well-formed envelope with a standard error code',
    kind: 'certified',
    async run(ctx) {
      const c = ctx.client;
      check(c.badLines.length === 0, `stdout carried non-envelope lines: ${c.badLines[0]}`);
      check(c.envelopeProblems.length === 0, c.envelopeProblems[0] ?? '');
      return `${c.replyCount} replies checked`;
    },
  },
];
