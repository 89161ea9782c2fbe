import { exerciseCapabilities, featuresWithoutMethods } from './capabilities.js';
import type { Reply } from './client.js';
import {
  call,
  check,
  checkImageSize,
  Fail,
  FORM_CONTROLS,
  findElement,
  findRef,
  need,
  ok,
  openForm,
  openLab,
  type RunContext,
  refLabels,
  session,
  shows,
  snapshotText,
  textNow,
} from './steps.js';

export { Fail, findRef, type RunContext } from './steps.js';

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

export interface Scenario {
  id: string;
  title: string;
  kind: 'core' | 'certified';
  /** What a provider failing this scenario should change (the report's what-to-fix list). */
  fix: string;
  /** Run in the first run only (costly checks of what does not vary between runs). */
  once?: boolean;
  run(ctx: RunContext): Promise<string | undefined>;
}

/** Ids of every JSON type and shape a caller may choose (the echo must be exact: same type, same value). */
const ODD_IDS: (string | number)[] = [
  7,
  0,
  -12,
  Number.MAX_SAFE_INTEGER,
  '42',
  '7',
  'r 1',
  'id-\u00e9\u4e2d\ud83d\ude00"\\/\n\t\u2028',
  'x'.repeat(256),
];

/**
 * Every listed feature and optional method exercised on the lab page; `only` limits it to some
 * features and methods (for runs that target one of them, like the suite's own defect tests).
 */
export function capabilitiesScenario(only?: string[]): Scenario {
  return {
    id: 'cert.capabilities_work',
    title: 'every listed feature and optional method works in practice',
    kind: 'certified',
    fix: "List only what works: every listed feature and optional method must do what it says on the conformance lab page (see the reason); fix it or drop it from provider.describe (the draft's honest capability reports).",
    once: true,
    async run(ctx) {
      const d = need(ctx.describe, 'provider.describe');
      const { failures, exercised, skipped } = await exerciseCapabilities(ctx, d, only);
      check(failures.length === 0, failures.join('; '));
      return `${exercised.length} exercised${skipped.length ? `; not exercisable here: ${skipped.join(', ')}` : ''}`;
    },
  };
}

export const SCENARIOS: Scenario[] = [
  {
    id: 'core.describe',
    title: 'provider.describe succeeds',
    kind: 'core',
    fix: 'Answer provider.describe with protocol_version "0.1", a provider_id and capabilities.core_methods / features arrays.',
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
    fix: 'Make provider.status coherent: availability, setup_state and requires_manual_setup must agree with browser_detected and the manual steps (and be usable: not unavailable).',
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
    fix: 'session.ensure must return a session_id, and the same client_session_id must return the same session while it lives.',
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
    fix: 'Never hand out a session_id twice, not even after a restart (add a random or time-based part).',
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
    fix: "page.open must navigate the session's page and return its page_id, the final url and the title.",
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
    fix: 'page.snapshot must return jcode.page_snapshot.v1 with text, and an element_ref with the right role and name for every actionable element of the page.',
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
      // A weak snapshot (refs for some controls only, no roles) is not usable: every control counts.
      const weak: string[] = [];
      for (const [name, role] of FORM_CONTROLS) {
        const e = findElement(snap, name);
        if (!e) weak.push(`no element_ref for "${name}"`);
        else if (e.role !== role) weak.push(`"${name}" has role ${JSON.stringify(e.role)}, not ${role}`);
      }
      check(weak.length === 0, `weak snapshot: ${weak.join('; ')}`);
      const seen = new Map<string, string>();
      for (const e of (snap.elements ?? []) as any[]) {
        const label = String(e?.name || e?.text || '');
        const before = seen.get(e?.element_ref);
        check(
          before === undefined || before === label,
          `ref ${e?.element_ref} names two elements ("${before}" and "${label}") in one snapshot`,
        );
        if (typeof e?.element_ref === 'string') seen.set(e.element_ref, label);
      }
      return `${snap.snapshot.nodes.length} nodes, ${(snap.elements ?? []).length} elements`;
    },
  },
  {
    id: 'core.page_click',
    title: 'page.click activates a known element',
    kind: 'core',
    fix: 'page.click with an element_ref from the last snapshot must click that element (and answer clicked: true).',
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
    fix: 'page.type with an element_ref must fill that input (and answer typed: true).',
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
    fix: 'page.wait must wait until a condition holds (satisfied: true) and must not report an absent text as present.',
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
    fix: 'page.screenshot must return a base64 PNG or JPEG whose own size equals width/height and whose format matches media_type.',
    async run(ctx) {
      const r = await ok(ctx, 'page.screenshot', session(ctx));
      check(typeof r.image === 'string' || typeof r.image_ref === 'string', 'neither image nor image_ref');
      // The stated size must be the image's own (decoded from its header, not trusted).
      checkImageSize(r, 'page.screenshot');
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
    fix: 'Give an element the same ref in every snapshot while it lives (identity-based refs).',
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
    fix: 'Refuse a ref whose element is gone (element_not_found), also after a new snapshot, and never let a ref of an old document act on a new one.',
    async run(ctx) {
      await openForm(ctx);
      const { snap } = await snapshotText(ctx);
      const rm = findRef(snap, 'Remove me');
      const inc = findRef(snap, 'Increment');
      check(rm && inc, 'no refs for "Remove me" / "Increment"');
      await ok(ctx, 'page.click', { ...session(ctx), element_ref: rm });
      // A new snapshot first: a provider that numbers refs by position would now hand "rm" to another element.
      await snapshotText(ctx);
      const again = await call(ctx, 'page.click', { ...session(ctx), element_ref: rm });
      check(!again.ok, 'clicking a removed element succeeded');
      check(
        again.error.code === 'element_not_found' || again.error.code === 'element_not_actionable',
        `a removed element answered ${again.error.code}, not element_not_found`,
      );
      await openForm(ctx);
      await snapshotText(ctx);
      const old = await call(ctx, 'page.click', { ...session(ctx), element_ref: inc });
      check(!old.ok, 'a ref from the previous document clicked on the new one');
      check(await shows(ctx, 'Count: 0'), 'the new document was changed by an old ref');
      return again.error.details?.reason ? `reason ${String(again.error.details.reason)}` : undefined;
    },
  },
  {
    id: 'cert.refs_follow_elements',
    title: 'refs follow their element through reorders; never re-issued for another',
    kind: 'certified',
    fix: 'Tie each ref to its element, not to a position: after a reorder an old ref must name the same element (or be refused), and a ref must never be issued again for another element.',
    async run(ctx) {
      await openLab(ctx);
      const a = (await snapshotText(ctx)).snap;
      const before = refLabels(a);
      const apple = findRef(a, 'Pick Apple');
      const cherry = findRef(a, 'Pick Cherry');
      const reverse = findRef(a, 'Reverse the list');
      const replace = findRef(a, 'Replace Cherry');
      check(apple && cherry && reverse && replace, 'no refs for the lab list and its buttons');
      await ok(ctx, 'page.click', { ...session(ctx), element_ref: reverse });
      await ok(ctx, 'page.click', { ...session(ctx), element_ref: replace });
      const b = (await snapshotText(ctx)).snap;
      const after = refLabels(b);
      check(findRef(b, 'Pick Damson'), 'the new "Pick Damson" button has no ref');
      check(!findRef(b, 'Pick Cherry'), 'the removed "Pick Cherry" button still has a ref');
      // A ref seen before must name the same element now (labels of these nodes do not change).
      for (const [ref, label] of after) {
        const was = before.get(ref);
        check(
          was === undefined || was === label,
          `ref ${ref} named "${was}" before the reorder and "${label}" after it: a ref was re-issued for another element`,
        );
      }
      // Old refs in use: the moved one still hits its own element, the removed one is refused.
      const moved = await call(ctx, 'page.click', { ...session(ctx), element_ref: apple });
      if (moved.ok)
        check(
          await shows(ctx, 'Picked: Apple'),
          `the old ref ${apple} of "Pick Apple" clicked another element`,
        );
      else
        check(
          (await textNow(ctx)).includes('Picked: none'),
          `the old ref ${apple} of "Pick Apple" was refused, yet a fruit was picked`,
        );
      const gone = await call(ctx, 'page.click', { ...session(ctx), element_ref: cherry });
      check(!gone.ok, `the ref ${cherry} of the removed "Pick Cherry" button clicked something`);
      check(
        gone.error.code === 'element_not_found' || gone.error.code === 'element_not_actionable',
        `the removed element's ref answered ${gone.error.code}, not element_not_found`,
      );
      check(!(await textNow(ctx)).includes('Picked: Banana'), 'an old ref clicked "Pick Banana"');
      return moved.ok ? 'old refs follow their elements' : 'old refs are refused after a change';
    },
  },
  {
    id: 'cert.id_echo',
    title: 'request ids are echoed exactly: integers, strings, unusual ids',
    kind: 'certified',
    fix: 'Echo every request id exactly: same JSON type and value (integers stay integers, strings stay strings, unusual characters unchanged).',
    async run(ctx) {
      const c = ctx.client;
      const seen = c.orphans.length;
      const wait = Math.min(ctx.timeoutMs, 5000);
      /** A reply whose id is the same text as `id` but not the same JSON value (a changed echo). */
      const changedEcho = async (id: string | number): Promise<Reply | undefined> => {
        const end = Date.now() + wait;
        for (let i = seen; Date.now() < end; i++) {
          const o = await c.nextOrphan(i, end - Date.now());
          if (!o) return undefined;
          if (o.id !== null && o.id !== id && String(o.id) === String(id)) return o;
        }
        return undefined;
      };
      const ids: (string | number)[] = [...ODD_IDS, 8];
      // All at once; a changed echo is noticed as soon as it arrives, not after a timeout.
      const replies = await Promise.all(
        ids.map((id, i) =>
          Promise.race([
            c.request(
              i < ODD_IDS.length ? 'provider.status' : 'conformance.no_such_method',
              {},
              { id, timeoutMs: wait },
            ),
            changedEcho(id).then((o) => o ?? new Promise<never>(() => {})),
          ]),
        ),
      );
      const wrong: string[] = [];
      for (const [i, r] of replies.entries()) {
        const id = ids[i]!;
        if (r.id === id && typeof r.id === typeof id) continue;
        wrong.push(
          !r.ok && r.error.code === 'client_timeout'
            ? `no reply for id ${JSON.stringify(id).slice(0, 40)}`
            : `${JSON.stringify(id).slice(0, 40)} came back as ${JSON.stringify(r.id).slice(0, 40)}`,
        );
      }
      check(wrong.length === 0, `ids not echoed exactly: ${wrong.join('; ')}`);
      return `${ids.length} ids`;
    },
  },
  capabilitiesScenario(),
  {
    id: 'core.session_close',
    title: 'session.close cleans up or detaches',
    kind: 'core',
    fix: 'session.close must end the session; calls on it afterwards must answer session_not_found.',
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
    fix: 'Answer bad input with the standard codes: invalid JSON and a wrong protocol_version or params → invalid_request, an unknown method → unsupported_method, an unknown session → session_not_found.',
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
    fix: 'Make capabilities match behaviour: every listed method answers (not unsupported_method), every unlisted normalized method answers unsupported_method, custom methods are namespaced with description and stability.',
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
      const orphans = featuresWithoutMethods(d);
      check(orphans.length === 0, orphans.join('; '));
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
    fix: 'Write only protocol envelopes on stdout (logs go to stderr), each with protocol_version "0.1", a standard error code, boolean retryable and object details.',
    async run(ctx) {
      const c = ctx.client;
      const bad = c.badLines[0] ?? c.envelopeProblems[0];
      if (bad) c.transcript?.push({ request: '(none: what the provider wrote)', reply: bad, ms: 0 });
      check(c.badLines.length === 0, `stdout carried non-envelope lines: ${c.badLines[0]}`);
      check(c.envelopeProblems.length === 0, c.envelopeProblems[0] ?? '');
      return `${c.replyCount} replies checked`;
    },
  },
];
