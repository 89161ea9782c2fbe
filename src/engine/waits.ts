import type { BackendFrame } from '../backends/backend.js';
import { evaluateOnRef, resolveRef } from '../snapshot/index.js';
import { Deadline, type OperationOptions } from './deadline.js';
import { DEEP_QUERY_SOURCE, DEEP_TEXT_SOURCE } from './deep-text.js';
import { TabwrightError } from './errors.js';
import { frameById } from './frames.js';
import type { Page } from './page.js';

/** An element box in CSS pixels, relative to the main frame's document (not the viewport). */
export interface ElementBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a ref resolver says about a ref: null when the element is gone (stale or never existed). */
export interface ResolvedElement {
  /** null when the element exists but has no layout box (display:none, detached from rendering). */
  box: ElementBox | null;
}

/**
 * Turns a snapshot ref into an element. It runs inside the page's queue, so
 * it must use `page.backend` directly (never Page methods that queue).
 * The snapshot module registers one with setElementResolver(); callers may
 * pass their own per call.
 */
export type ElementResolver = (
  ref: string,
  ctx: { page: Page; timeoutMs: number },
) => Promise<ResolvedElement | null>;

let defaultResolver: ElementResolver | undefined;

/** Registers the engine-wide ref resolver (the snapshot module does this). */
export function setElementResolver(resolver: ElementResolver | undefined): void {
  defaultResolver = resolver;
}

/** The resolver in force: the caller's, else the registered one, else snapshot refs (src/snapshot/). */
export function elementResolver(override?: ElementResolver): ElementResolver {
  return override ?? defaultResolver ?? snapshotRefResolver;
}

/** The element's box relative to its own document (CSS px), or null without a layout box. */
function boxInDocument(el: Element): ElementBox | null {
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return null;
  return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
}

/** Where a frame's viewport starts inside its parent's document (run on the iframe element). */
function frameOffset(el: unknown): { x: number; y: number } {
  const e = el as Element;
  const r = e.getBoundingClientRect();
  const w = e.ownerDocument.defaultView!;
  return { x: r.left + e.clientLeft + w.scrollX, y: r.top + e.clientTop + w.scrollY };
}

/**
 * Snapshot refs (e12): null when the ref is stale (its element or document
 * is gone); other ref errors (not a ref, never issued, another page) throw.
 * Boxes of elements inside iframes are moved into main-document coordinates.
 */
export const snapshotRefResolver: ElementResolver = async (ref, { page, timeoutMs }) => {
  const d = Deadline.from({ timeoutMs: Math.max(1, Math.min(timeoutMs, 60_000)) });
  let found: { box: ElementBox | null; frameId: string };
  try {
    const target = await resolveRef(page, ref, d);
    const box = await evaluateOnRef(page, ref, boxInDocument, null, d);
    found = { box, frameId: target.frameId };
  } catch (err) {
    if (
      err instanceof TabwrightError &&
      err.code === 'element_not_found' &&
      err.details.reason === 'stale_ref'
    )
      return null;
    throw err;
  }
  if (!found.box) return { box: null };
  const frames = page.backend.frames();
  let frame = frames.find((f) => f.id === found.frameId);
  const box = { ...found.box };
  while (frame?.parentId) {
    // Inside an iframe: its document scroll does not move the element in the parent.
    const inner = await frame.evaluate(() => ({ x: scrollX, y: scrollY }), null, Math.max(1, d.remaining()));
    const off = await frame.evaluateOnOwner(frameOffset, null, Math.max(1, d.remaining()));
    if (!off) return null;
    box.x += off.x - inner.x;
    box.y += off.y - inner.y;
    const parentId: string = frame.parentId;
    frame = frames.find((f) => f.id === parentId);
  }
  return { box };
};

export type LoadState = 'load' | 'domcontentloaded' | 'networkidle';

import type { WaitConditions } from './schemas.js';

export type { WaitConditions } from './schemas.js';

export type ConditionName = keyof WaitConditions;

export interface WaitRequestOptions {
  mode?: 'all' | 'any';
  /** Overrides the registered ref resolver for element_ref_present. */
  resolveElement?: ElementResolver;
  /** Polling interval, default 100 ms. */
  poll_ms?: number;
  /**
   * Observe the DOM conditions (text, selectors, dom_stable, js_predicate) in this frame (an engine
   * frame id, `pageFrames()`) instead of the main document. The origin policy must allow the frame.
   */
  frame?: string;
}

export interface WaitResult {
  satisfied: true;
  /** The condition that held (mode any), or the first of them (mode all). */
  matched_condition: ConditionName;
  matched_conditions: ConditionName[];
  waited_ms: number;
  url: string;
}

export interface ConditionState {
  condition: ConditionName;
  satisfied: boolean;
  /** The last observed value (text found or not, element count, URL, requests in flight, …). */
  observed: unknown;
}

const NAMES: readonly ConditionName[] = [
  'text_present',
  'text_absent',
  'selector_present',
  'selector_absent',
  'element_ref_present',
  'url_matches',
  'navigation_complete',
  'network_idle',
  'dom_stable',
  'js_predicate',
  'selector_count',
];

function invalid(message: string, field: string): TabwrightError {
  return new TabwrightError('invalid_request', message, { details: { field } });
}

/** A glob (`*` any run without "/", `**` any run) or `/regex/flags` as a RegExp over the whole URL. */
export function urlPattern(pattern: string): RegExp {
  const re = /^\/(.+)\/([dgimsuvy]*)$/.exec(pattern);
  if (re) {
    try {
      return new RegExp(re[1]!, re[2]!.replace('g', ''));
    } catch (err) {
      throw invalid(
        `url_matches ${pattern} is not a valid regular expression: ${(err as Error).message}.`,
        'url_matches',
      );
    }
  }
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        out += '.*';
        i++;
      } else out += '[^/]*';
    } else out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** In-page checks, one array entry per DOM condition. Must stay self-contained (it is serialized). */
type ProbeItem =
  | { k: 'text'; text: string }
  | { k: 'sel'; selector: string; visible: boolean }
  | { k: 'count'; selector: string }
  | { k: 'ready' }
  | { k: 'mutations' };

type ProbeOut = { ok: true; v: unknown } | { ok: false; invalidSelector: string };

function probe(
  items: ProbeItem[],
  deepText: (root: Document) => string,
  deepQuery: (selector: string) => Element[],
): ProbeOut[] {
  // No named inner functions: the test runner's transpiler would wrap them in a helper the page lacks.
  const key = Symbol.for('tabwright.mutations');
  const w = window as unknown as Record<symbol, { last: number } | undefined>;
  if (!w[key]) {
    const state = { last: Date.now() };
    new MutationObserver(() => {
      state.last = Date.now();
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    w[key] = state;
  }
  const outs: ProbeOut[] = [];
  let body: string | null = null;
  for (const it of items) {
    if (it.k === 'text') {
      // Visible text, with shadow roots and same-origin frames: what the snapshot shows.
      if (body === null) body = deepText(document).replace(/\s+/g, ' ');
      outs.push({ ok: true, v: body.includes(it.text) });
    } else if (it.k === 'sel' || it.k === 'count') {
      let els: Element[];
      try {
        // `host >>> inner` steps into shadow roots.
        els = it.selector.includes('>>>')
          ? deepQuery(it.selector)
          : Array.from(document.querySelectorAll(it.selector));
      } catch {
        outs.push({ ok: false, invalidSelector: it.selector });
        continue;
      }
      if (it.k === 'sel' && it.visible) {
        els = els.filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
        });
      }
      outs.push({ ok: true, v: els.length });
    } else if (it.k === 'ready') {
      outs.push({ ok: true, v: document.readyState });
    } else {
      outs.push({ ok: true, v: Date.now() - w[key]!.last });
    }
  }
  return outs;
}

/** The probe with its shadow-root and frame helpers (src/engine/deep-text.ts), as one page function. */
const probeInPage = new Function(
  'items',
  `return (${probe.toString()})(items, ${DEEP_TEXT_SOURCE}, ${DEEP_QUERY_SOURCE});`,
) as (items: ProbeItem[]) => ProbeOut[];

export interface Check {
  name: ConditionName;
  /** Index into the probe results, when it needs one. */
  item?: ProbeItem;
  evaluate(ctx: PollContext, probed: unknown): Promise<ConditionState> | ConditionState;
}

interface PollContext {
  page: Page;
  /** Where the DOM conditions are observed: the main frame or the request's frame. */
  scope(): Pick<BackendFrame, 'evaluate' | 'evaluateExpression'>;
  deadline: Deadline;
  /** Time one browser call of this poll may take: what is left minus the reporting margin, at most 2 s. */
  budget(): number;
}

function selectorSpec(
  v: WaitConditions['selector_present'],
  field: string,
): { selector: string; visible: boolean } {
  const spec =
    typeof v === 'string'
      ? { selector: v, visible: false }
      : { selector: v?.selector, visible: !!v?.visible };
  if (typeof spec.selector !== 'string' || spec.selector.trim() === '')
    throw invalid(`${field} needs a CSS selector.`, field);
  return spec as { selector: string; visible: boolean };
}

function nonEmpty(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '') throw invalid(`${field} needs a non-empty string.`, field);
  return v;
}

/** Validates the conditions and builds their checks. */
export function buildChecks(conds: WaitConditions, opts: WaitRequestOptions): Check[] {
  if (!conds || typeof conds !== 'object') throw invalid('Pass at least one wait condition.', 'conditions');
  const unknown = Object.keys(conds).filter((k) => !NAMES.includes(k as ConditionName));
  if (unknown.length) {
    throw invalid(`Unknown wait condition ${unknown.join(', ')}; use ${NAMES.join(', ')}.`, unknown[0]!);
  }
  const checks: Check[] = [];
  const st = (name: ConditionName, satisfied: boolean, observed: unknown): ConditionState => ({
    condition: name,
    satisfied,
    observed,
  });
  for (const name of NAMES) {
    const v = conds[name];
    if (v === undefined || v === false) continue;
    switch (name) {
      case 'text_present':
      case 'text_absent': {
        const text = nonEmpty(v, name).replace(/\s+/g, ' ');
        const want = name === 'text_present';
        checks.push({
          name,
          item: { k: 'text', text },
          evaluate: (_c, found) => st(name, found === want, { text_found: found }),
        });
        break;
      }
      case 'selector_present':
      case 'selector_absent': {
        const spec = selectorSpec(v as WaitConditions['selector_present'], name);
        const want = name === 'selector_present';
        checks.push({
          name,
          item: { k: 'sel', ...spec },
          evaluate: (_c, n) => st(name, (n as number) > 0 === want, { count: n }),
        });
        break;
      }
      case 'selector_count': {
        const c = v as WaitConditions['selector_count'];
        const selector = selectorSpec(c?.selector, 'selector_count').selector;
        const { min, max, equals } = c ?? {};
        const nums = [min, max, equals].filter((x) => x !== undefined);
        if (nums.length === 0 || nums.some((x) => !Number.isInteger(x) || (x as number) < 0)) {
          throw invalid(
            'selector_count needs at least one of min, max, equals (integers ≥ 0).',
            'selector_count',
          );
        }
        checks.push({
          name,
          item: { k: 'count', selector },
          evaluate: (_c, n) => {
            const k = n as number;
            const ok =
              (min === undefined || k >= min) &&
              (max === undefined || k <= max) &&
              (equals === undefined || k === equals);
            return st(name, ok, { count: k });
          },
        });
        break;
      }
      case 'element_ref_present': {
        const ref = nonEmpty(v, name);
        const resolver = elementResolver(opts.resolveElement);
        checks.push({
          name,
          evaluate: async (c) => {
            try {
              const el = await resolver(ref, { page: c.page, timeoutMs: c.budget() });
              return st(name, el !== null, { ref, present: el !== null });
            } catch (err) {
              // A bad, unknown or foreign ref (and a dead page) ends the wait; a slow or navigating page
              // is observed again on the next poll.
              const fatal = ['invalid_request', 'element_not_found', 'browser_not_running', 'page_not_found'];
              if (!(err instanceof TabwrightError) || fatal.includes(err.code)) throw err;
              return st(name, false, { ref, present: false, error: err.message });
            }
          },
        });
        break;
      }
      case 'url_matches': {
        const re = urlPattern(nonEmpty(v, name));
        checks.push({
          name,
          evaluate: (c) => {
            const url = c.page.url();
            return st(name, re.test(url), { url });
          },
        });
        break;
      }
      case 'navigation_complete': {
        const state: LoadState = v === true ? 'load' : (v as LoadState);
        if (!['load', 'domcontentloaded', 'networkidle'].includes(state)) {
          throw invalid('navigation_complete is true or one of load, domcontentloaded, networkidle.', name);
        }
        checks.push({
          name,
          item: { k: 'ready' },
          evaluate: (c, ready) => {
            const loaded = ready === 'complete';
            if (state === 'domcontentloaded') return st(name, ready !== 'loading', { ready_state: ready });
            if (state === 'load') return st(name, loaded, { ready_state: ready });
            const quiet = c.page.network.quietFor(0);
            return st(name, loaded && quiet >= 500, {
              ready_state: ready,
              inflight: c.page.network.inflightCount(),
              quiet_ms: quiet,
            });
          },
        });
        break;
      }
      case 'network_idle': {
        const cfg = v === true ? {} : (v as { idle_ms?: number; max_inflight?: number });
        const idle = cfg.idle_ms ?? 500;
        const maxInflight = cfg.max_inflight ?? 0;
        if (!(idle >= 0) || !Number.isInteger(maxInflight) || maxInflight < 0) {
          throw invalid('network_idle takes idle_ms ≥ 0 and max_inflight (an integer ≥ 0).', name);
        }
        checks.push({
          name,
          evaluate: (c) => {
            const quiet = c.page.network.quietFor(maxInflight);
            return st(name, quiet >= idle, {
              inflight: c.page.network.inflightCount(),
              quiet_ms: quiet,
              pending: c.page.network.inflightUrls(3),
            });
          },
        });
        break;
      }
      case 'dom_stable': {
        const quietMs = v === true ? 500 : (v as number);
        if (typeof quietMs !== 'number' || !(quietMs >= 0))
          throw invalid('dom_stable is true or a number of ms.', name);
        checks.push({
          name,
          item: { k: 'mutations' },
          evaluate: (_c, since) => st(name, (since as number) >= quietMs, { ms_since_last_mutation: since }),
        });
        break;
      }
      case 'js_predicate': {
        const expression = nonEmpty(v, name);
        checks.push({
          name,
          evaluate: async (c) => {
            try {
              const value = await c.scope().evaluateExpression(expression, c.budget());
              return st(name, !!value, { value: preview(value) });
            } catch (err) {
              const cause =
                err instanceof TabwrightError ? String(err.details.cause ?? err.message) : String(err);
              if (/SyntaxError/.test(cause)) {
                throw invalid(`js_predicate is not valid JavaScript: ${cause}`, 'js_predicate');
              }
              if (
                err instanceof TabwrightError &&
                ['browser_not_running', 'page_not_found'].includes(err.code)
              )
                throw err;
              return st(name, false, { error: cause });
            }
          },
        });
        break;
      }
    }
  }
  if (checks.length === 0) {
    throw invalid(`Pass at least one wait condition (${NAMES.join(', ')}).`, 'conditions');
  }
  return checks;
}

function preview(value: unknown): unknown {
  if (value === null || typeof value !== 'object')
    return typeof value === 'string' ? value.slice(0, 200) : value;
  const s = JSON.stringify(value);
  return s && s.length > 200 ? `${s.slice(0, 200)}…` : value;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The least time a poll's browser calls get; with less left, the wait reports what it saw last. */
const MIN_POLL_MS = 50;

/**
 * Polls the conditions (every 100 ms) until all hold (mode "all", default)
 * or one does (mode "any"). Runs inside the page's queue under `deadline`;
 * at the deadline it fails with not_ready (retryable) listing every
 * condition, whether it held and the value last observed.
 */
export async function runWait(
  page: Page,
  conds: WaitConditions,
  req: WaitRequestOptions,
  deadline: Deadline,
  checks: Check[],
): Promise<WaitResult> {
  const mode = req.mode ?? 'all';
  const poll = Math.max(20, Math.min(req.poll_ms ?? 100, 1000));
  const items = checks.filter((c) => c.item).map((c) => c.item!);
  let states: ConditionState[] = [];
  // The last successful in-page observation: reported (marked stale) when a later probe fails.
  let lastProbe: ProbeOut[] | null = null;
  // Stop observing this long before the deadline, so the detailed failure below reaches the caller
  // before the page queue's own (generic) deadline error, even on a loaded machine.
  const margin = Math.min(300, Math.max(60, deadline.timeoutMs * 0.1));
  const ctx: PollContext = {
    page,
    // Looked up on every poll: a frame that goes away fails the wait at once (never a silent timeout).
    scope: () => (req.frame === undefined ? page.backend : frameById(page, req.frame)),
    deadline,
    budget: () => Math.min(2000, Math.max(1, deadline.remaining() - margin)),
  };
  for (;;) {
    page.dialogs.assertNoneHeld('page.wait');
    let probed: ProbeOut[] | null = null;
    let probeError: string | null = null;
    if (items.length) {
      const scope = ctx.scope();
      try {
        probed = await scope.evaluate(probeInPage, items, ctx.budget());
      } catch (err) {
        if (err instanceof TabwrightError && ['browser_not_running', 'page_not_found'].includes(err.code))
          throw err;
        // Navigating (no document right now) or busy: observe again on the next poll.
        probeError = err instanceof TabwrightError ? String(err.details.cause ?? err.code) : String(err);
      }
    }
    const bad = probed?.find((p) => !p.ok) as { invalidSelector: string } | undefined;
    if (bad) {
      throw new TabwrightError(
        'invalid_selector',
        `"${bad.invalidSelector}" is not a valid CSS selector. Fix the selector (or wait for a ref or text instead).`,
        { details: { selector: bad.invalidSelector } },
      );
    }
    if (probed) lastProbe = probed;
    const source = probed ?? lastProbe;
    states = [];
    let i = 0;
    for (const c of checks) {
      if (c.item) {
        const p = source?.[i++];
        if (!p?.ok) {
          states.push({ condition: c.name, satisfied: false, observed: { error: probeError } });
          continue;
        }
        const st = await c.evaluate(ctx, p.v);
        if (!probed) {
          // Could not look this time (navigating, busy): never claim success from an old observation,
          // but a timeout report keeps what was last seen (marked stale) instead of inventing a failure.
          st.observed = {
            ...(st.observed as object),
            stale: true,
            last_satisfied: st.satisfied,
            error: probeError,
          };
          st.satisfied = false;
        }
        states.push(st);
      } else {
        states.push(await c.evaluate(ctx, undefined));
      }
    }
    const held = states.filter((s) => s.satisfied);
    if (mode === 'any' ? held.length > 0 : held.length === states.length) {
      return {
        satisfied: true,
        matched_condition: held[0]!.condition,
        matched_conditions: held.map((s) => s.condition),
        waited_ms: deadline.elapsed(),
        url: page.url(),
      };
    }
    // Leave time to report before the queue's own deadline fires.
    if (deadline.remaining() <= poll + margin || deadline.signal.aborted) break;
    await sleep(poll);
    // A loaded machine can oversleep: a poll left with almost no time would only time out its own
    // evaluate, and that cut-short call would replace the last real observation in the report.
    if (deadline.remaining() - margin < MIN_POLL_MS) break;
  }
  // The report: a stale condition counts as what it was when last observed.
  const lastSeen = (s: ConditionState) =>
    s.satisfied ||
    (s.observed as { stale?: boolean; last_satisfied?: boolean } | null)?.last_satisfied === true;
  states = states.map((s) => (lastSeen(s) && !s.satisfied ? { ...s, satisfied: true } : s));
  const failed = states.filter((s) => !s.satisfied);
  throw new TabwrightError(
    'not_ready',
    `page.wait: ${mode === 'any' ? 'none of' : 'not all of'} ${Object.keys(conds).join(', ')} held within ${deadline.timeoutMs} ms (still failing: ${failed
      .map((s) => s.condition)
      .join(
        ', ',
      )}). Read details.conditions for the last observed values; wait again, raise timeout_ms, or check the page.`,
    {
      retryable: true,
      details: {
        reason: 'wait_timeout',
        mode,
        waited_ms: deadline.elapsed(),
        timeout_ms: deadline.timeoutMs,
        url: page.url(),
        conditions: states,
        failed: failed.map((s) => s.condition),
        aborted: deadline.callerAborted(),
      },
    },
  );
}

/** Validates, then runs the wait in the page's queue (used by Page.wait). */
export async function waitOnPage(
  page: Page,
  conds: WaitConditions,
  req: WaitRequestOptions = {},
  opts?: OperationOptions,
): Promise<WaitResult> {
  if (req.mode !== undefined && req.mode !== 'all' && req.mode !== 'any') {
    throw invalid('mode is "all" or "any".', 'mode');
  }
  const checks = buildChecks(conds, req);
  if (req.frame !== undefined) frameById(page, req.frame);
  return page.run('page.wait', 'read', opts, (d) => runWait(page, conds, req, d, checks));
}
