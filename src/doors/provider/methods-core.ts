import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { BrowserFamily } from '../../backends/backend.js';
import { type InputOf, ops, TabwrightError } from '../../engine/api.js';
import type { Session } from '../../engine/session.js';
import { DOM_ATTRIBUTES } from '../kit/index.js';
import {
  ELEMENT_TARGET,
  FIELD_TARGET,
  opOptions,
  pageOf,
  runAction,
  sessionOf,
  targetOf,
  waitUntil,
} from './helpers.js';
import { rootOnly, toPageSnapshotV1 } from './page-snapshot.js';
import {
  PageClickParams,
  PageOpenParams,
  PageScreenshotParams,
  PageSnapshotParams,
  PageTypeParams,
  PageWaitParams,
  SessionCloseParams,
  SessionEnsureParams,
} from './schemas.js';
import { type CallContext, method, type ProviderMethod } from './table.js';

/** browser_preference → the family that serves it ("chrome" and "edge" are Chromium builds). */
const FAMILY_OF: Record<string, BrowserFamily | undefined> = {
  chromium: 'chromium',
  chrome: 'chromium',
  edge: 'chromium',
  firefox: 'firefox',
};

/** Options that shape a new session; on reuse they are ignored (with a warning). */
const SHAPING = [
  'browser_preference',
  'isolation',
  'attach',
  'persist',
  'profile',
  'cdp_endpoint',
  'allowed_origins',
  'allowed_host_patterns',
  'subresources',
] as const;

async function sessionResult(s: Session, reused: boolean, events: boolean): Promise<Record<string, unknown>> {
  const info = await ops.sessionInfo.call(s, {});
  return {
    session_id: info.session_id,
    browser_family: info.browser_family,
    browser_label: info.browser_label,
    browser_version: info.browser_version,
    attached_to_existing_browser: info.attached_to_existing_browser,
    isolation:
      info.kind === 'persistent'
        ? 'shared_profile'
        : info.kind === 'attach'
          ? 'attached_browser'
          : 'per_session',
    kind: info.kind,
    profile: info.profile,
    default_page_id: info.default_page_id,
    reused,
    events,
  };
}

/** The live session a client_session_id was given, if it still is alive. */
async function liveSession(call: CallContext, sessionId: string | undefined): Promise<Session | undefined> {
  if (sessionId === undefined) return undefined;
  const all = await ops.listSessions.call(call.engine, {});
  return all.some((i) => i.session_id === sessionId && i.alive) ? call.engine.session(sessionId) : undefined;
}

async function ensureSession(p: z.output<typeof SessionEnsureParams>, call: CallContext) {
  const pref = p.browser_preference ?? 'auto';
  const family = pref === 'auto' ? call.options.browser : FAMILY_OF[pref];
  if (!family || !call.options.families.includes(family)) {
    const supported = ['auto', ...call.options.families];
    throw new TabwrightError(
      'unsupported_target',
      `This provider drives ${call.options.families.join(' and ')}; browser_preference "${pref}" is not available${family ? ' here (is it installed? see provider.status)' : ''}. Use one of: ${supported.join(', ')}.`,
      { details: { field: 'browser_preference', supported } },
    );
  }
  if (p.attach === 'require' && !p.cdp_endpoint) {
    throw new TabwrightError(
      'invalid_request',
      'attach "require" needs cdp_endpoint (e.g. http://127.0.0.1:9222 of a Chromium started with --remote-debugging-port).',
      { details: { field: 'cdp_endpoint' } },
    );
  }
  const key = p.client_session_id;
  if (key !== undefined) {
    const known = call.clientSessions.get(key);
    const live = await liveSession(call, known);
    if (live) {
      const ignored = SHAPING.filter((k) => p[k] !== undefined);
      if (ignored.length > 0) {
        call.warn(
          'options_ignored_on_reuse',
          `Session ${live.id} was reused as is; ${ignored.join(', ')} only apply to a new session (close it first to change them).`,
        );
      }
      if (p.events) call.subscribe(live.id);
      return sessionResult(live, true, p.events === true);
    }
    if (known) call.clientSessions.delete(key);
  }
  const policy =
    p.allowed_origins || p.allowed_host_patterns || p.subresources
      ? {
          allowed_origins: p.allowed_origins,
          allowed_host_patterns: p.allowed_host_patterns,
          subresources: p.subresources,
        }
      : undefined;
  const opts = opOptions(p, call);
  let req: InputOf<typeof ops.startSession>;
  const browser = family;
  if (p.cdp_endpoint && p.attach !== 'never')
    req = { kind: 'attach', endpoint: p.cdp_endpoint, policy, browser };
  else if (p.persist || p.profile || p.isolation === 'shared_profile')
    req = { kind: 'persistent', profile: p.profile ?? 'default', policy, browser };
  else req = { kind: 'ephemeral', policy, browser };
  if (p.cdp_endpoint && p.attach === 'never')
    call.warn('cdp_endpoint_ignored', 'attach is "never", so cdp_endpoint was not used.');
  let session: Session;
  try {
    session = await ops.startSession.call(call.engine, req, opts);
  } catch (err) {
    if (req.kind !== 'attach' || p.attach !== 'prefer' || !(err instanceof TabwrightError)) throw err;
    call.warn(
      'attach_failed',
      `Could not attach to ${p.cdp_endpoint} (${err.code}: ${err.message}); launched a new browser session instead.`,
    );
    session = await ops.startSession.call(call.engine, { kind: 'ephemeral', policy, browser }, opts);
  }
  if (key !== undefined) call.clientSessions.set(key, session.id);
  if (p.events) call.subscribe(session.id);
  return sessionResult(session, false, p.events === true);
}

export const CORE_SESSION_METHODS: ProviderMethod[] = [
  method({
    name: 'session.ensure',
    summary:
      'Create a browser session, or return the live one of the same client_session_id. Ephemeral (isolated context) by default; persist/profile for a persistent profile; cdp_endpoint to attach.',
    ops: [ops.startSession, ops.listSessions, ops.sessionInfo],
    meta: {
      group: 'core',
      stability: 'stable',
      features: ['attach_existing_browser', 'persistent_profile', 'isolated_contexts'],
    },
    params: SessionEnsureParams,
    run: (call, p) => ensureSession(p, call),
  }),
  method({
    name: 'session.close',
    summary:
      "Close the session: ephemeral closes its context, persistent closes its browser (the profile stays on disk), attach only disconnects (the user's browser and tabs stay).",
    ops: [ops.closeSession],
    meta: { group: 'core', stability: 'stable' },
    params: SessionCloseParams,
    async run(call, p) {
      const detached = call.engine.session(p.session_id).kind === 'attach';
      await ops.closeSession.call(call.engine, { session_id: p.session_id }, opOptions(p, call));
      for (const [k, v] of call.clientSessions) if (v === p.session_id) call.clientSessions.delete(k);
      call.dropEvents(p.session_id);
      return { session_id: p.session_id, closed: true, detached };
    },
  }),
];

let shotSeq = 0;

export const CORE_PAGE_METHODS: ProviderMethod[] = [
  method({
    name: 'page.open',
    summary: 'Navigate the current page (or page_id), or a new page with new_page, to a URL.',
    ops: [ops.open, ops.newTab, ops.activateTab],
    meta: { group: 'core', stability: 'stable' },
    params: PageOpenParams,
    async run(call, p) {
      const s = sessionOf(call, p.session_id);
      if (p.new_page && p.page_id !== undefined) {
        throw new TabwrightError(
          'invalid_request',
          'page.open: give page_id (navigate that page) or new_page: true (open another), not both.',
          { details: { field: 'new_page' } },
        );
      }
      const opts = opOptions(p, call);
      const page = p.new_page
        ? await ops.newTab.call(s, { activate: p.foreground !== false }, opts)
        : s.page(p.page_id ?? null);
      if (!p.new_page && p.foreground === true && s.activePageId !== page.id)
        await ops.activateTab.call(s, { page_id: page.id }, opts);
      const nav = await ops.open.call(page, { url: p.url, wait_until: waitUntil(p.wait_until) }, opts);
      return {
        ...nav,
        navigation_state: nav.download ? 'download_started' : 'complete',
        new_page: p.new_page === true,
      };
    },
  }),
  method({
    name: 'page.snapshot',
    summary:
      'The page as jcode.page_snapshot.v1 (snapshot), a flat list of actionable elements with refs (elements) and agent text with refs inline (text).',
    ops: [ops.snapshot, ops.readPageHtml, ops.screenshot],
    meta: {
      group: 'core',
      stability: 'stable',
      features: ['element_refs', 'a11y_snapshot', 'dom_snapshot', 'html_snapshot'],
    },
    params: PageSnapshotParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const {
        session_id: _s,
        page_id: _p,
        include_screenshot,
        include_html,
        include_dom,
        include_a11y: _a,
        include_text,
        include_nodes,
        include_elements,
        timeout_ms: _t,
        ...snapshotOptions
      } = p;
      const opts = opOptions(p, call);
      // include_dom shows these attributes unless the caller names its own (the engine reports none by default).
      const r = await ops.snapshot.call(
        page,
        include_dom && !snapshotOptions.attributes
          ? { ...snapshotOptions, attributes: [...DOM_ATTRIBUTES] }
          : snapshotOptions,
        opts,
      );
      const out: Record<string, unknown> = {
        page_id: r.page_id,
        url: r.url,
        title: r.title,
        // Asked to leave out: the shape stays the draft's (a root, no nodes; an empty list).
        snapshot:
          include_nodes === false
            ? rootOnly(r.model)
            : toPageSnapshotV1(r.model, p.max_nodes, { dom: include_dom === true }),
        elements: include_elements === false ? [] : r.elements,
        text: include_text === false ? '' : r.text,
        truncated: r.truncated,
        timing: r.timing,
      };
      if (r.omitted) out.omitted = r.omitted;
      if (r.diff) out.diff = r.diff;
      if (include_dom) out.provider_data = { model: r.model, frames: r.frames, viewport: r.viewport };
      if (include_html) out.html = (await ops.readPageHtml.call(page, {}, opts)).content;
      if (include_screenshot) {
        const shot = await ops.screenshot.call(page, {}, opts);
        out.screenshot = {
          image: shot.data.toString('base64'),
          media_type: shot.mediaType,
          width: shot.width,
          height: shot.height,
        };
      }
      return out;
    },
  }),
  method({
    name: 'page.click',
    summary:
      'Click one element (element_ref, selector, text_query) or a point (position {x, y}, CSS px) with trusted input after an actionability check; returns a receipt of what changed.',
    ops: [ops.click],
    meta: { group: 'core', stability: 'stable', features: ['element_refs'] },
    params: PageClickParams,
    run: (call, p) =>
      runAction(call, p, {
        target: () => targetOf(p, 'page.click'),
        perform: (page, base, o) =>
          ops.click.call(
            page,
            {
              ...base,
              button: p.button,
              click_count: p.click_count,
              modifiers: p.modifiers,
              synthetic: p.synthetic,
            },
            o,
          ),
        reply: (r) => ({ clicked: r.status === 'executed' }),
      }),
  }),
  method({
    name: 'page.type',
    summary:
      'Type text into an input (element_ref or selector): appended, or replacing the value with replace: true; submit: true presses Enter after.',
    ops: [ops.type],
    meta: { group: 'core', stability: 'stable', features: ['element_refs'] },
    params: PageTypeParams,
    run: (call, p) =>
      runAction(call, p, {
        target: () => targetOf(p, 'page.type', FIELD_TARGET),
        perform: (page, base, o) =>
          ops.type.call(
            page,
            { ...base, text: p.text, replace: p.replace, submit: p.submit, key_by_key: p.key_by_key },
            o,
          ),
        reply: (r) => ({ typed: r.status === 'executed' }),
      }),
  }),
  method({
    name: 'page.wait',
    summary:
      'Wait until every given condition holds (mode "any": the first). Unmet at timeout_ms: not_ready, retryable, details.reason "wait_timeout".',
    ops: [ops.wait],
    meta: { group: 'core', stability: 'stable', features: ['element_refs'] },
    params: PageWaitParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const { session_id: _s, page_id: _p, mode, timeout_ms: _t, ...conditions } = p;
      const r = await ops.wait.call(page, { conditions, mode }, opOptions(p, call));
      return { page_id: page.id, ...r };
    },
  }),
  method({
    name: 'page.screenshot',
    summary:
      'PNG (or JPEG) of the viewport, the full page, a clip {x, y, width, height} (document CSS px) or one element; inline base64 `image`, or a file path in `image_ref` with image_mode "file".',
    ops: [ops.screenshot],
    meta: { group: 'core', stability: 'stable', features: ['element_refs', 'full_page_screenshot'] },
    params: PageScreenshotParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const target = targetOf(p, 'page.screenshot', ELEMENT_TARGET, true);
      const element =
        target && 'element_ref' in target
          ? { ref: target.element_ref }
          : target && 'selector' in target
            ? { selector: target.selector }
            : undefined;
      const shot = await ops.screenshot.call(
        page,
        {
          full_page: p.full_page,
          clip: p.clip,
          element,
          format: p.format,
          quality: p.quality,
          max_height: p.max_height,
        },
        opOptions(p, call),
      );
      const out: Record<string, unknown> = {
        page_id: page.id,
        media_type: shot.mediaType,
        width: shot.width,
        height: shot.height,
        mode: shot.mode,
        truncated: shot.truncated,
        requested_height: shot.requested_height,
      };
      if (p.image_mode === 'file') {
        const dir = join(call.options.home, 'screenshots', page.session.id);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = join(
          dir,
          `${page.id}-${Date.now()}-${++shotSeq}.${shot.mediaType === 'image/png' ? 'png' : 'jpg'}`,
        );
        writeFileSync(file, shot.data, { mode: 0o600 });
        out.image_ref = file;
      } else {
        out.image = shot.data.toString('base64');
      }
      return out;
    },
  }),
];
