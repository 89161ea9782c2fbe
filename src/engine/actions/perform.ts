import type { BackendFrame, Point } from '../../backends/backend.js';
import { takeSnapshot } from '../../snapshot/snapshot.js';
import { Deadline, DeadlineExpired } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import { mainFrame as mainFrameOf } from '../frames.js';
import type { Page } from '../page.js';
import { parseInput } from '../schemas.js';
import { buildChecks, type Check, runWait } from '../waits.js';
import { elementCall, frameCall, locatePinned, type PinnedElement } from './element-calls.js';
import { waitActionable } from './guard.js';
import type { Fingerprint, ProbeKind } from './injected/probe.js';
import {
  DEFAULT_OBSERVE_CAP_MS,
  NOTHING_OBSERVED,
  preparePage,
  QUIET_MS,
  readFingerprint,
  type SecretTarget,
  type SettleResult,
  settle,
  VALUE_QUIET_MS,
} from './observe.js';
import type { ElementOp } from './page-functions.js';
import {
  addWarning,
  errorText,
  type HintCode,
  type Note,
  setHint,
  type WarningCode,
} from './receipt-notes.js';
import { refuseOrigins, refuseTarget } from './refuse.js';
import { frameOffset, parseTarget, type ResolvedTarget, resolveTarget } from './resolve.js';
import { markSignals, pendingRequests, signalsSince } from './signals.js';
import { ActionSpec as ActionSpecSchema } from './spec.js';
import type {
  ActionName,
  ActionOptions,
  ActionSpec,
  PipelineSpec,
  Receipt,
  Target,
  ValueChange,
} from './types.js';

const KIND: Record<ActionName, ProbeKind> = {
  click: 'click',
  hover: 'hover',
  focus: 'focus',
  type: 'type',
  fill: 'fill',
  press: 'focus',
  select: 'select',
  check: 'check',
  uncheck: 'check',
  scroll: 'scroll',
  drag: 'click',
  set_files: 'files',
};

/** Actions that may go without a target (they act on the focused element or the page). */
const TARGETLESS = new Set(['press', 'scroll', 'type']);

/**
 * The action pipeline: resolve exactly one target, check the origin policy,
 * wait for actionability, dispatch trusted input once, then observe and
 * report what changed. No automatic retry after dispatch.
 */
export async function performAction(
  page: Page,
  target: Target | undefined,
  spec: ActionSpec,
  opts: ActionOptions = {},
): Promise<Receipt> {
  const t = target === undefined && TARGETLESS.has(spec?.action) ? undefined : parseTarget(target);
  spec = parseInput(ActionSpecSchema, spec, 'action');
  // Checked before anything runs: a bad verify condition must not follow a dispatched action.
  const verifyChecks = opts.verify ? buildChecks(opts.verify, { mode: opts.verify_mode }) : undefined;
  return page.run(`page.${spec.action}`, 'action', opts, (d) => run(page, t, spec, opts, d, verifyChecks));
}

/**
 * The pipeline's file step on one input (guard, dispatch once, observation window, receipt). Only
 * the upload operation calls it (src/engine/uploads.ts: it picks the input and reads the files back).
 */
export async function performFiles(
  page: Page,
  elementRef: string,
  files: string[],
  opts: ActionOptions = {},
): Promise<Receipt> {
  const t = parseTarget({ element_ref: elementRef });
  const verifyChecks = opts.verify ? buildChecks(opts.verify, { mode: opts.verify_mode }) : undefined;
  const step: PipelineSpec = { action: 'set_files', files };
  return page.run('page.set_files', 'action', opts, (d) => run(page, t, step, opts, d, verifyChecks));
}

/** The page, and the target's frame, must be at origins the session's policy allows (before any dispatch). */
function assertAllowed(page: Page, frame?: BackendFrame): void {
  page.assertPageAllowed(frame?.parentId ? [frame.url()] : []);
}

async function toPagePoint(page: Page, frame: BackendFrame, p: Point, d: Deadline): Promise<Point> {
  if (!frame.parentId) return p;
  const o = await frameOffset(page, frame, d);
  return { x: p.x + o.x, y: p.y + o.y };
}

/**
 * How long one read of typed text (sent together with it) waits in the page for the text's
 * `beforeinput` (fired also when the page cancels the insertion) before the engine asks again, up
 * to the window's cap: the text may cross a busy machine late. Only text that reaches no editable
 * element waits the cap out.
 */
const TYPED_INPUT_WAIT_MS = 100;

/** Text inserted as one input event, nothing else: its window can start with the dispatch. */
function typedText(spec: PipelineSpec): boolean {
  return spec.action === 'type' && spec.text !== '' && !spec.key_by_key && !spec.submit;
}

/** Clicks, keys, hovers and drags start menus and route changes a step later; value changes render at once. */
function quietFor(spec: PipelineSpec): number {
  const valueChange =
    ['fill', 'select', 'check', 'uncheck', 'focus', 'set_files'].includes(spec.action) ||
    (spec.action === 'type' && !spec.submit);
  return valueChange ? VALUE_QUIET_MS : QUIET_MS;
}

/** How the guard's round trip leaves focus for the action that follows. */
function focusMode(spec: PipelineSpec): 'plain' | 'end' | 'all' | undefined {
  if (spec.action === 'focus' || spec.action === 'press') return 'plain';
  if (spec.action === 'type') return spec.replace ? 'all' : 'end';
  if (spec.action === 'fill') return 'all';
  return undefined;
}

const VALUE_KIND: Partial<Record<ActionName, 'value' | 'checked'>> = {
  type: 'value',
  fill: 'value',
  select: 'value',
  check: 'checked',
  uncheck: 'checked',
};

async function run(
  page: Page,
  target: Target | undefined,
  spec: PipelineSpec,
  opts: ActionOptions,
  d: Deadline,
  verifyChecks: Check[] | undefined,
): Promise<Receipt> {
  // A held dialog blocks the page's scripts: nothing could be guarded or observed.
  page.dialogs.assertNoneHeld(`page.${spec.action}`);
  assertAllowed(page);
  const narrower = opts.refuse?.origins;
  if (narrower) refuseOrigins(page, null, narrower);
  const mainFrame = mainFrameOf(page);
  const resolved: ResolvedTarget | undefined = target ? await resolveTarget(page, target, d) : undefined;
  const el = resolved?.kind === 'element' ? resolved : undefined;
  assertAllowed(page, el?.frame);
  if (narrower && el?.frame.parentId) refuseOrigins(page, el.frame.url(), narrower);
  if (el && opts.refuse && spec.action !== 'set_files') await refuseTarget(page, el, spec, opts.refuse, d);
  const valueKind = VALUE_KIND[spec.action] ?? null;

  // The drag destination is checked first, so the source's observer starts last.
  let dragTo: Point | undefined;
  if (spec.action === 'drag') {
    const dest = await resolveTarget(page, spec.to, d);
    if (dest.kind === 'element') {
      assertAllowed(page, dest.frame);
      const g = await waitActionable(page, dest, 'hover', d);
      dragTo = await toPagePoint(page, dest.frame, g.point!, d);
    } else dragTo = { x: dest.x, y: dest.y };
  }

  // Guard (waits for actionability) + value + fingerprint + observer, in one round trip per attempt.
  const observedFrame = el?.frame ?? mainFrame;
  let point: Point | undefined;
  let frameBefore: Fingerprint | null = null;
  let valueBefore: string | boolean | null = null;
  let focused: boolean | undefined;
  let secret: SecretTarget = null;
  // What the action is measured against (pages, dialogs, downloads, requests): taken just before
  // the dispatch is sent, which for a pipelined step is together with the guard.
  let pagesBefore = new Set<string>();
  let marks = markSignals(page);
  let urlBefore = observedFrame.url();
  const mark = () => {
    pagesBefore = new Set(page.session.pages().map((p) => p.id));
    marks = markSignals(page);
    urlBefore = observedFrame.url();
  };
  // Observe: the adaptive window, then the state after (nothing can be read while a dialog is held).
  const capMs = Math.max(0, Math.min(opts.observe_ms ?? DEFAULT_OBSERVE_CAP_MS, 5000));
  const observeWindow = (awaitInputMs: number, gate?: number) =>
    settle(
      page,
      observedFrame,
      capMs,
      d,
      () => pendingRequests(page),
      el && valueKind ? { doc: el.doc, id: el.id } : undefined,
      valueKind,
      frameBefore?.url ?? urlBefore,
      {
        popup: () => page.session.pages().some((p) => !pagesBefore.has(p.id)),
        download: () => page.session.downloads.lastSeq > marks.downloadSeq,
        // Only an intercepted chooser is reported; a headed browser shows the native dialog instead.
        fileChooser: () =>
          !page.backend.interceptsFileChoosers() || page.fileChoosers.lastSeq > marks.fileChooserSeq,
        navigation: () =>
          observedFrame.isDetached() ||
          observedFrame.url() !== (frameBefore?.url ?? urlBefore) ||
          page.network.counters().started > marks.requestsStarted ||
          page.session.network.lastSeq > marks.blockedSeq,
      },
      Math.min(opts.observe_min_ms ?? 0, capMs),
      quietFor(spec),
      awaitInputMs,
      gate,
    );
  // A step the page can run right after its guard passes (select) goes out with the guard, and the
  // window's read behind it, without waiting for the guard's reply: CDP runs a session's calls in
  // order, and both wait in the page for that guard (its gate). One round trip instead of three.
  let piped: { step: Promise<unknown>; window: Promise<SettleResult> } | undefined;
  let dialogWatch: ReturnType<typeof watchDialogs> | undefined;
  if (el) {
    const kind = spec.action === 'click' && spec.synthetic ? 'synthetic' : KIND[spec.action];
    // Main frame only: a child frame's target needs the main frame's fingerprint read before dispatch.
    const step = el.frame.parentId ? undefined : pipelinedStep(spec);
    const gate = step ? nextGate() : undefined;
    if (step) {
      mark();
      // The step may open a dialog before the guard's reply is read here.
      dialogWatch = watchDialogs(page);
    }
    const guarding = waitActionable(page, el, kind, d, {
      value: valueKind,
      focus: focusMode(spec),
      gate,
    });
    if (step && gate !== undefined) {
      piped = {
        step: elementCall(el, { op: 'gated', gate, run: step }, d),
        window: observeWindow(0, gate),
      };
      piped.step.catch(() => {});
      piped.window.catch(() => {});
    }
    const g = await guarding.catch((err) => {
      dialogWatch?.stop();
      throw err;
    });
    focused = g.focused;
    secret = g.secret ?? null;
    if (g.point) point = await toPagePoint(page, el.frame, g.point, d);
    frameBefore = g.fingerprint ?? null;
    valueBefore = g.value ?? null;
  } else {
    if (resolved?.kind === 'point') point = { x: resolved.x, y: resolved.y };
    const prepared = await preparePage(mainFrame, d);
    frameBefore = prepared.fingerprint;
    secret = prepared.secret;
  }
  // Text bound for a secret field is a secret from now on: registered before it is sent, so nothing
  // the action causes (the receipt, a request carrying it, a log line) can show it.
  if (secret) registerTyped(page, spec, secret);
  const before = observedFrame === mainFrame ? frameBefore : await readFingerprint(mainFrame, d);
  if (!piped) mark();
  const warnings: Note<WarningCode>[] = [];

  // The caller gave up (deadline or abort) while the target was guarded: send nothing (a pipelined
  // step went out with the guard: it is the dispatch, and its receipt follows).
  if (d.signal.aborted && !piped) throw new DeadlineExpired(d);
  // Dispatch, exactly once.
  let status: Receipt['status'] = 'executed';
  let verified: boolean | null = null;
  let note: Note<HintCode> | undefined;
  let nothingSent = false;
  const dialogs = dialogWatch ?? watchDialogs(page);
  let early: Promise<SettleResult> | undefined = piped?.window;
  try {
    const dispatching: Promise<DispatchResult & { window?: Promise<SettleResult> }> =
      piped && el
        ? dispatchPiped(piped, el, () => dispatch(page, el, spec, point, dragTo, valueBefore, focused, d), d)
        : dispatch(page, el, spec, point, dragTo, valueBefore, focused, d);
    dispatching.catch(() => {});
    // Typed text and the window's read go out together (one round trip less); the page starts
    // counting quiet once the text's beforeinput or input event has arrived (see the page's settle).
    // Not sent with the guard: tried, and slower on a loaded machine (the read queued behind the
    // guard's call seemed to delay that call's reply, which the text waits for).
    if (el && typedText(spec)) {
      early = observeWindow(Math.min(TYPED_INPUT_WAIT_MS, capMs));
      early.catch(() => {});
    }
    const r = await Promise.race([
      dispatching,
      dialogs.opened.then((): DispatchResult => ({ verified: null })),
    ]);
    verified = r.verified;
    note = r.note;
    nothingSent = r.nothingSent === true;
    if (piped) early = 'window' in r ? r.window : undefined;
  } catch (err) {
    if (
      err instanceof TabwrightError &&
      (err.code === 'browser_not_running' || err.details.status === 'blocked')
    )
      throw err;
    // Stopped at the deadline or by the caller (typing checks between keys): the caller has its answer; free the page.
    if (d.signal.aborted) throw new DeadlineExpired(d);
    status = 'outcome_unknown';
    warnings.push({ code: 'input_failed', params: { error: errorText(err) } });
  }

  dialogs.stop();
  const heldDialog = dialogs.held();
  const win = heldDialog ? NOTHING_OBSERVED : await windowAfter(early, observeWindow);
  const frameAfter = heldDialog ? null : (win.fingerprint ?? (await readFingerprint(observedFrame, d)));
  const after = heldDialog || observedFrame === mainFrame ? frameAfter : await readFingerprint(mainFrame, d);
  const signals = signalsSince(page, marks);
  const pagesAfter = page.session.pages();
  const newPages = pagesAfter
    .filter((p) => !pagesBefore.has(p.id))
    .map((p) => ({ page_id: p.id, url: p.url() }));
  if (!heldDialog && (frameBefore === null || frameAfter === null)) {
    warnings.push({ code: 'partly_unreadable' });
  }

  const receipt = buildReceipt({
    spec,
    resolved,
    status,
    verified,
    before,
    after,
    frameBefore,
    frameAfter,
    tabBefore: pagesBefore.size,
    tabAfter: pagesAfter.length,
    newPages,
    value:
      el && valueBefore !== null
        ? { before: valueBefore, after: win.targetGone ? null : win.value }
        : undefined,
    mutations: win.mutations,
    navigated: win.documentReplaced || (before !== null && after !== null && before.url !== after.url),
    signals,
    window: { window_ms: win.windowMs, cap_ms: capMs, quiet: win.quiet },
    warnings,
    note,
  });
  receipt.mode = nothingSent ? 'none' : spec.action === 'click' && spec.synthetic ? 'synthetic' : 'trusted';
  if (heldDialog && (opts.verify || opts.snapshot_diff)) {
    addWarning(receipt, { code: 'dialog_blocks_checks' });
  } else if (opts.verify && verifyChecks) {
    const vd = Deadline.from({ timeoutMs: Math.max(1, d.remaining() - 150) });
    const t0 = Date.now();
    try {
      const r = await runWait(page, opts.verify, { mode: opts.verify_mode }, vd, verifyChecks);
      receipt.verified = true;
      receipt.verification = { satisfied: true, waited_ms: r.waited_ms, matched: r.matched_conditions };
    } catch (err) {
      if (!(err instanceof TabwrightError) || err.code !== 'not_ready') throw err;
      receipt.verified = false;
      receipt.verification = { satisfied: false, waited_ms: Date.now() - t0, failed: err.details.conditions };
    }
  }
  if (opts.snapshot_diff && !heldDialog) {
    try {
      receipt.diff = (await takeSnapshot(page, { diff: true }, d)).text;
    } catch (err) {
      addWarning(receipt, { code: 'no_snapshot_diff', params: { error: errorText(err) } });
    }
  }
  // A receipt is a record: secret values and secret URL parameters are masked.
  return page.session.secrets.scrubRecord(receipt);
}

/** Registers what `spec` types into a secret field (and the field's name, for form bodies). */
function registerTyped(page: Page, spec: PipelineSpec, secret: NonNullable<SecretTarget>): void {
  const text = spec.action === 'type' ? spec.text : spec.action === 'fill' ? spec.value : null;
  page.session.secrets.add(text, secret.name);
}

/**
 * A dialog held for the caller blocks the page: input that opened it never "returns". The dialog
 * opening ends dispatch; the rest of the input call completes once it is answered.
 */
function watchDialogs(page: Page): { opened: Promise<void>; held: () => boolean; stop: () => void } {
  let held = false;
  let stop = () => {};
  const opened = new Promise<void>((resolve) => {
    stop = page.dialogs.onOpened((rec) => {
      if (rec.state === 'pending') {
        held = true;
        resolve();
      }
    });
  });
  return { opened, held: () => held, stop };
}

let gates = 0;
/** A token for one pipelined guard (unique within the process, so an old gate never matches). */
function nextGate(): number {
  gates = (gates + 1) % Number.MAX_SAFE_INTEGER;
  return gates;
}

/** The dispatch the page can run in the guard's wake, when the guard passes (select: no trusted input exists for it). */
function pipelinedStep(spec: PipelineSpec): ElementOp | undefined {
  return spec.action === 'select' ? selectOp(spec) : undefined;
}

/** The page's select op for a select step (sent with the guard or on its own). */
function selectOp(spec: Extract<PipelineSpec, { action: 'select' }>): ElementOp {
  return { op: 'select', spec: { values: spec.values, labels: spec.labels, indexes: spec.indexes } };
}

type SelectReply = { ok: true; selected: string[] } | { ok: false; missing: string[]; ambiguous?: true };

/** The select op's answer: unknown or disabled options are refused (nothing was changed). */
function selectVerdict(el: PinnedElement, r: SelectReply): DispatchResult {
  if (!r.ok) {
    throw new TabwrightError(
      'element_not_found',
      `No such option on ${el.ref}: ${r.missing.join(', ')}. Read the options from a snapshot and pick existing ones${r.ambiguous ? ' (a shared label by its index)' : ''}.`,
      {
        details: {
          element_ref: el.ref,
          reason: r.ambiguous ? 'ambiguous_option' : 'no_such_option',
          missing: r.missing,
          status: 'blocked',
        },
      },
    );
  }
  return { verified: true };
}

/**
 * The pipelined step's outcome, with the window read sent behind it. When the step did not run
 * although the guard passed (its call reached the page before the guard's, or found no script):
 * the usual dispatch, then a window of its own (the piped read may have stopped the observer).
 */
async function dispatchPiped(
  piped: { step: Promise<unknown>; window: Promise<SettleResult> },
  el: PinnedElement,
  sequential: () => Promise<DispatchResult>,
  d: Deadline,
): Promise<DispatchResult & { window?: Promise<SettleResult> }> {
  const r = await piped.step;
  if (!(typeof r === 'object' && r !== null && (r as { skipped?: unknown }).skipped === true))
    return { ...selectVerdict(el, r as SelectReply), window: piped.window };
  const w = await piped.window.catch(() => null);
  // The caller gave up while the target was guarded (a retry passed late): send nothing.
  if (d.signal.aborted) throw new DeadlineExpired(d);
  if (w && !w.skipped) await frameCall(el.frame, { op: 'observeStart' }, d).catch(() => {});
  return { ...(await sequential()), window: undefined };
}

/** The window's result: the one already under way, unless it observed nothing (skipped). */
async function windowAfter(
  early: Promise<SettleResult> | undefined,
  observe: (awaitInputMs: number) => Promise<SettleResult>,
): Promise<SettleResult> {
  const w = early ? await early : undefined;
  return w && !w.skipped ? w : observe(0);
}

interface ScrollMetrics {
  top: number;
  left: number;
  height: number;
  width: number;
  /** The furthest scroll positions (scroll size minus client size): 0 when the content fits. */
  maxTop: number;
  maxLeft: number;
}

/**
 * Why a wheel of (dx, dy) cannot move a scroller at `m`, or null when it has room in a direction
 * asked for. A browser drops such a wheel (or hands it to the scroller's parent), so nothing is
 * waited for.
 */
function noRoomToScroll(
  m: ScrollMetrics,
  dx: number,
  dy: number,
  target: 'element' | 'page',
): Note<HintCode> | null {
  const room = (pos: number, max: number, delta: number) =>
    delta > 0 ? pos < max - 0.5 : delta < 0 ? pos > 0.5 : false;
  if (room(m.top, m.maxTop, dy) || room(m.left, m.maxLeft, dx)) return null;
  const fits = (dy === 0 || m.maxTop < 1) && (dx === 0 || m.maxLeft < 1);
  if (fits) return { code: target === 'page' ? 'scroll_page_fits' : 'scroll_element_fits' };
  const ends = [dy > 0 ? 'bottom' : dy < 0 ? 'top' : null, dx > 0 ? 'right' : dx < 0 ? 'left' : null].filter(
    (e) => e !== null,
  );
  return { code: 'scroll_at_end', params: { ends: ends.join(',') } };
}

interface DispatchResult {
  verified: boolean | null;
  /** What the receipt's hint says instead of the default one (e.g. the checkbox was already checked). */
  note?: Note<HintCode>;
  /** Nothing had to be sent: the receipt's mode is none. */
  nothingSent?: boolean;
}

async function dispatch(
  page: Page,
  el: PinnedElement | undefined,
  spec: PipelineSpec,
  point: Point | undefined,
  dragTo: Point | undefined,
  valueBefore: string | boolean | null,
  focused: boolean | undefined,
  d: Deadline,
): Promise<DispatchResult> {
  const input = page.backend.input;
  const needPoint = (): Point => {
    if (!point)
      throw new TabwrightError('invalid_request', `${spec.action} needs a target on screen.`, {
        details: { field: 'target' },
      });
    return point;
  };
  switch (spec.action) {
    case 'click':
      if (spec.synthetic) {
        if (!el)
          throw new TabwrightError('invalid_request', 'A synthetic click needs an element target.', {
            details: { field: 'target' },
          });
        await elementCall(el, { op: 'syntheticClick', clickCount: spec.click_count ?? 1 }, d);
        return { verified: null };
      }
      await input.click(needPoint(), {
        button: spec.button ?? 'left',
        clickCount: spec.click_count ?? 1,
        modifiers: spec.modifiers ?? [],
      });
      return { verified: null };
    case 'hover':
      await input.move(needPoint());
      return { verified: null };
    case 'focus':
      return { verified: focused ?? false };
    case 'type': {
      // Focus and caret (end, or everything with replace) were set by the guard's round trip.
      // Typed text replaces a selection; only an empty replacement needs an explicit delete.
      if (spec.replace && spec.text === '') await input.press('Delete');
      // One input event with the whole text by default (fast, what paste and IMEs do);
      // key by key when the page reacts to individual keys (autocomplete, key handlers).
      if (spec.key_by_key) await input.type(spec.text, d.signal);
      else if (spec.text !== '') await input.insertText(spec.text);
      if (spec.submit) await input.press('Enter');
      return { verified: null };
    }
    case 'fill': {
      if (!el)
        throw new TabwrightError('invalid_request', 'fill needs a target.', { details: { field: 'target' } });
      // The guard focused the field and selected its content; typing replaces the selection.
      if (spec.value === '') await input.press('Delete');
      else await input.insertText(spec.value);
      const ok = await elementCall<boolean>(el, { op: 'valueIs', expected: spec.value }, d).catch(() => null);
      return { verified: ok };
    }
    case 'press':
      await input.press(spec.key);
      return { verified: null };
    case 'select': {
      if (!el)
        throw new TabwrightError('invalid_request', 'select needs a target.', {
          details: { field: 'target' },
        });
      const r = await elementCall<SelectReply>(el, selectOp(spec), d);
      return selectVerdict(el, r);
    }
    case 'check':
    case 'uncheck': {
      if (!el)
        throw new TabwrightError('invalid_request', `${spec.action} needs a target.`, {
          details: { field: 'target' },
        });
      const want = spec.action === 'check';
      if (valueBefore === want)
        return {
          verified: true,
          nothingSent: true,
          note: { code: want ? 'already_checked' : 'already_unchecked' },
        };
      await input.click(needPoint(), { button: 'left', clickCount: 1, modifiers: [] });
      const now = await elementCall<boolean | null>(el, { op: 'checked' }, d).catch(() => null);
      return { verified: now === want };
    }
    case 'scroll': {
      if (el && spec.into_view) {
        const r = await elementCall<{ inView: boolean }>(el, { op: 'scroll', intoView: true }, d);
        return { verified: r.inView };
      }
      // Wheel input scrolls on the compositor, after the call returns: read the position until it moves.
      const metrics = () =>
        el
          ? elementCall<ScrollMetrics>(el, { op: 'scrollMetrics' }, d)
          : frameCall<ScrollMetrics>(mainFrameOf(page), { op: 'scrollMetrics' }, d);
      const m0 = await metrics();
      const dy =
        spec.pages !== undefined
          ? spec.pages * m0.height * 0.9
          : (spec.dy ?? (spec.dx ? 0 : m0.height * 0.9));
      await input.wheel(point ?? { x: m0.width / 2, y: m0.height / 2 }, spec.dx ?? 0, dy);
      const noRoom = noRoomToScroll(m0, spec.dx ?? 0, dy, el ? 'element' : 'page');
      if (noRoom) return { verified: false, note: noRoom };
      const until = Date.now() + Math.min(2000, Math.max(0, d.remaining() - 200));
      for (;;) {
        const m = await metrics();
        if (m.top !== m0.top || m.left !== m0.left) return { verified: true };
        if (Date.now() >= until) {
          return {
            verified: false,
            note: { code: 'scroll_did_not_move' },
          };
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    case 'drag':
      await input.drag(needPoint(), dragTo!);
      return { verified: null };
    case 'set_files': {
      if (!el)
        throw new TabwrightError('invalid_request', 'set_files needs a target.', {
          details: { field: 'target' },
        });
      const ok = await el.frame.setInputFiles(
        locatePinned,
        { doc: el.doc, id: el.id },
        spec.files,
        Math.max(1, d.remaining()),
      );
      if (!ok)
        throw new TabwrightError('element_not_found', `Element ref ${el.ref} is stale.`, {
          details: { reason: 'stale_ref', element_ref: el.ref },
        });
      return { verified: null };
    }
  }
}

function buildReceipt(o: {
  spec: PipelineSpec;
  resolved: ResolvedTarget | undefined;
  status: Receipt['status'];
  verified: boolean | null;
  before: Fingerprint | null;
  after: Fingerprint | null;
  frameBefore: Fingerprint | null;
  frameAfter: Fingerprint | null;
  tabBefore: number;
  tabAfter: number;
  newPages: { page_id: string; url: string }[];
  value: ValueChange | undefined;
  mutations: number;
  navigated: boolean;
  signals: ReturnType<typeof signalsSince>;
  window: Receipt['observation'];
  warnings: Note<WarningCode>[];
  note?: Note<HintCode>;
}): Receipt {
  const { before, after, frameBefore, frameAfter } = o;
  const differs = (a: Fingerprint | null, b: Fingerprint | null, k: keyof Fingerprint) =>
    a !== null && b !== null && a[k] !== b[k];
  const textChanged = differs(before, after, 'text') || differs(frameBefore, frameAfter, 'text');
  const structureChanged =
    differs(before, after, 'structure') || differs(frameBefore, frameAfter, 'structure');
  const formChanged = differs(before, after, 'forms') || differs(frameBefore, frameAfter, 'forms');
  const urlChanged = differs(before, after, 'url');
  const titleChanged = differs(before, after, 'title');
  const valueChanged = o.value !== undefined && o.value.before !== o.value.after;
  const changed =
    urlChanged ||
    titleChanged ||
    o.tabBefore !== o.tabAfter ||
    textChanged ||
    structureChanged ||
    formChanged ||
    valueChanged ||
    o.navigated ||
    o.signals.dialog !== null ||
    o.signals.file_chooser !== null ||
    o.signals.blocked.length > 0 ||
    o.signals.downloads.length > 0;
  const readable = before !== null && after !== null;
  const target: Receipt['target'] = {};
  if (o.resolved?.kind === 'element') {
    target.element_ref = o.resolved.ref;
    if (o.resolved.role) target.role = o.resolved.role;
    if (o.resolved.name !== undefined) target.name = o.resolved.name;
  } else if (o.resolved?.kind === 'point') target.point = { x: o.resolved.x, y: o.resolved.y };
  const receipt: Receipt = {
    action: o.spec.action,
    status: o.status,
    target,
    verified: o.verified,
    changed,
    change_status: changed ? 'observed' : readable ? 'not_observed' : 'unknown',
    changes: {
      new_pages: o.newPages,
      navigated: o.navigated,
      text_changed: textChanged,
      structure_changed: structureChanged,
      form_changed: formChanged,
      dom_mutations: o.mutations,
    },
    dialog: o.signals.dialog ? { type: o.signals.dialog.type, message: o.signals.dialog.message } : null,
    file_chooser: o.signals.file_chooser,
    downloads: o.signals.downloads,
    observation: o.window,
    requests: o.signals.requests,
    blocked_requests: o.signals.blocked,
    mode: 'trusted',
    warnings: [],
    notes: { warnings: [] },
  };
  for (const w of o.warnings) addWarning(receipt, w);
  if (urlChanged) receipt.changes.url = { before: before!.url, after: after!.url };
  if (titleChanged) receipt.changes.title = { before: before!.title, after: after!.title };
  if (o.tabBefore !== o.tabAfter) receipt.changes.tab_count = { before: o.tabBefore, after: o.tabAfter };
  if (before && after) receipt.changes.text_length = { before: before.textLength, after: after.textLength };
  if (o.value) receipt.changes.value = o.value;
  if (o.note) setHint(receipt, o.note);
  else if (!changed) {
    setHint(
      receipt,
      receipt.change_status === 'unknown'
        ? { code: 'unreadable_after' }
        : { code: 'not_observed', params: { window_ms: o.window.window_ms } },
    );
  }
  if (o.signals.dialog?.state === 'pending') {
    addWarning(receipt, { code: 'dialog_held', params: { type: o.signals.dialog.type } });
  }
  return receipt;
}
