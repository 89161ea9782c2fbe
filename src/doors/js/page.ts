import type { ActionSpec, Receipt, Target } from '../../engine/actions/types.js';
import { Deadline, ops, REDACTED, TabwrightError } from '../../engine/api.js';
import type { Page as EnginePage } from '../../engine/page.js';
import type { OriginPolicy } from '../../engine/policy.js';
import type { PageRawChannel } from '../../engine/raw.js';
import type { Session } from '../../engine/session.js';
import {
  type ClickOptions,
  type FillOptions,
  Locator,
  type LocatorHost,
  type LocatorSpec,
  PRESS_KEYS,
  type VerifyPredicate,
} from './locator.js';
import {
  type IssuedObservation,
  issue,
  OBSERVE_DEFAULT,
  OBSERVE_MAX,
  type Observation,
  type Operation,
  project,
} from './observe.js';
import { RefTokens, TOKEN_PATTERN } from './refs.js';
import { type ActionResult, type CallOptions, engineOpts, rest, result, resultFromError } from './results.js';
import type { PageSignals } from './signals.js';
import { SNAPSHOT_LIMITS, type SnapshotOptions, type SnapshotView, takeView } from './snapshot-view.js';
import { harnessWords } from './vocabulary.js';

/** What a Page needs from the harness: recording and bookkeeping. */
export interface PageHost {
  record(event: Record<string, unknown>): void;
  forget(page: HarnessPage): Promise<void>;
  /** The connection generation now: a Page of an older one is stale. */
  generation(): number;
}

export interface PageParts {
  engine: EnginePage;
  session: Session;
  /** Set when dispose closes the page's session: that disconnects only this page's connection (attach), leaving the tab. */
  closeSession?: () => Promise<void>;
  generation: number;
  policy: OriginPolicy;
  allowedOrigins: string[];
  targetId: string;
  host: PageHost;
  /** The page's event digest, started when it was handed out (open(): from before its navigation). */
  signals: PageSignals;
  /** The tab's raw CDP channel (page.cdp). */
  raw: PageRawChannel;
}

type LocatorOp = 'click' | 'fill' | 'press' | 'selectOption' | 'scrollIntoView';

/**
 * A Page of the harness: pinned to one tab (engine Page) and one connection
 * generation, with its own origin allowlist. Every method maps onto engine
 * calls; results use the door's {status, reason, verified, snapshot} shape.
 */
export class HarnessPage implements LocatorHost {
  readonly targetId: string;
  readonly allowedOrigins: readonly string[];
  private readonly engine: EnginePage;
  private readonly session: Session;
  private readonly host: PageHost;
  private readonly generationAtOpen: number;
  private readonly closeSession: (() => Promise<void>) | undefined;
  private readonly policy: OriginPolicy;
  private readonly tokens = new RefTokens();
  private readonly signalLog: PageSignals;
  private observation: IssuedObservation | null = null;
  private readonly raw: PageRawChannel;
  private disposed = false;
  private lastDocUrl: string;

  constructor(parts: PageParts) {
    this.engine = parts.engine;
    this.session = parts.session;
    this.host = parts.host;
    this.generationAtOpen = parts.generation;
    this.closeSession = parts.closeSession;
    this.policy = parts.policy;
    this.allowedOrigins = Object.freeze([...parts.allowedOrigins]);
    this.targetId = parts.targetId;
    this.signalLog = parts.signals;
    this.raw = parts.raw;
    this.lastDocUrl = parts.engine.url();
  }

  /** For status: a short description. */
  describe(): Record<string, unknown> {
    return {
      targetId: this.targetId,
      url: this.engine.closed ? null : this.engine.url(),
      allowedOrigins: this.allowedOrigins,
      generation: this.generationAtOpen,
      closed: this.engine.closed,
    };
  }

  get engineSession(): Session {
    return this.session;
  }

  private assertNotDisposed(): void {
    if (this.disposed) {
      throw new Error(
        'This Page was disposed (or its tab closed). Get a new one with browser.attach(targetId, {allowedOrigins}) or browser.open(url, {allowedOrigins}).',
      );
    }
  }

  /** null when usable, else why the page cannot be used (as a stale result). */
  private staleness(): ActionResult | null {
    if (this.host.generation() !== this.generationAtOpen || !this.session.alive)
      return result('stale', 'connection_changed', {
        message: 'The browser connection this Page was pinned to is gone. Connect and attach again.',
      });
    if (this.engine.crashed)
      return result('stale', 'page_crashed', {
        message:
          "The tab's renderer crashed: nothing on it can be read or done. Close it (page.close()) and open or attach another.",
      });
    if (this.engine.closed) return result('stale', 'page_closed', { message: 'The tab was closed.' });
    return null;
  }

  private throwIfStale(): void {
    const s = this.staleness();
    if (s)
      throw new TabwrightError('page_not_found', `${String(s.message)} (${s.reason})`, {
        details: { reason: s.reason },
      });
  }

  /**
   * Reads are refused like actions when the tab is at an origin outside this Page's allowlist (a
   * Page attached with a narrower allowlist than the tab's, a tab that left its scope): nothing of
   * that document is returned.
   */
  private assertReadable(): void {
    const url = this.engine.url();
    if (this.allowsDoc(url)) return;
    const origin = originOf(url);
    throw new TabwrightError(
      'permission_denied',
      `The tab is at ${origin}, outside this Page's allowedOrigins (${this.allowedOrigins.join(', ')}); nothing was read. Go back with page.goto(allowedUrl), or ask the user to authorize ${origin} and open a Page with it.`,
      { details: { reason: 'origin_denied', origin } },
    );
  }

  /** This Page's allowlist for a document (a blank one inherits; the policy allows about:, data:, blob:). */
  private allowsDoc(url: string): boolean {
    return url === '' || this.policy.allowsDocument(url);
  }

  /** A document change expires refs (the engine also reports stale refs by identity). */
  private checkDocument(): void {
    const url = this.engine.url();
    if (url !== this.lastDocUrl) {
      this.lastDocUrl = url;
      this.tokens.expireAll();
      this.observation = null;
    }
  }

  private expireEvidence(): void {
    this.tokens.expireAll();
    this.observation = null;
  }

  /** A raw CDP call elsewhere (the cdp() helper) may have changed this tab: refs and handles expire. */
  expireForRawCall(): void {
    this.expireEvidence();
  }

  // ---- reading ----

  /** {id, url, title, tree, diff, truncated, omissions}; over 50,000 characters it throws. */
  async snapshot(options: SnapshotOptions = {}): Promise<SnapshotView> {
    this.assertNotDisposed();
    this.throwIfStale();
    const o = engineOpts(options);
    this.assertReadable();
    this.checkDocument();
    const maxDepth = options.maxDepth ?? SNAPSHOT_LIMITS.depth;
    if (!Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > SNAPSHOT_LIMITS.depth)
      throw new TabwrightError(
        'invalid_request',
        `maxDepth must be an integer from 0 to ${SNAPSHOT_LIMITS.depth}.`,
      );
    const maxChars = options.maxChars ?? SNAPSHOT_LIMITS.chars;
    let scopeRef: string | undefined;
    if (options.ref !== undefined) {
      const l = this.tokens.lookup(String(options.ref));
      if (!l.ok)
        throw new TabwrightError(
          'element_not_found',
          `Ref ${String(options.ref)} is ${l.reason === 'ref_expired' ? 'stale (a snapshot, action, raw call or navigation happened since it was printed)' : 'not a ref of this page'}. Take a new snapshot and use a ref from it.`,
          { details: { reason: l.reason } },
        );
      scopeRef = l.engineRef;
    }
    if (options.frameId !== undefined) {
      const f = this.engine.frames().find((x) => x.id === String(options.frameId));
      if (f?.parentId && !this.allowsDoc(f.url))
        throw new TabwrightError(
          'permission_denied',
          `Frame ${String(options.frameId)} is at ${originOf(f.url)}, outside this Page's allowedOrigins.`,
          { details: { reason: 'origin_denied' } },
        );
      scopeRef = await this.frameRef(String(options.frameId), o);
    }
    return takeView(
      this.engine,
      this.tokens,
      {
        interactive_only: !!options.interactive,
        scope_ref: scopeRef,
        scope_selector: options.selector,
        max_depth: maxDepth,
        frame_origins: [...this.allowedOrigins],
      },
      o,
      maxChars,
    );
  }

  /**
   * The permitted frames: the main frame and iframes at allowed origins (same- and cross-process).
   * Synchronous in this API, so it reads the engine page's frame list (a plain read, no queue)
   * rather than the page.frames operation, which answers with a promise.
   */
  frames(): { frameId: string; parentId: string | null; url: string; allowed: boolean; main: boolean }[] {
    this.assertNotDisposed();
    this.throwIfStale();
    return this.engine.frames().map((f) => ({
      frameId: f.id,
      parentId: f.parentId,
      url: f.url,
      // This Page's own allowlist (it may be narrower than the tab's session).
      allowed: f.allowed && (f.parentId === null || this.allowsDoc(f.url)),
      main: f.parentId === null,
    }));
  }

  /** A view on one frame: frame(id).snapshot(options). */
  frame(frameId: string): {
    frameId: string;
    snapshot: (options?: SnapshotOptions) => Promise<SnapshotView>;
  } {
    return { frameId, snapshot: (options = {}) => this.snapshot({ ...options, frameId }) };
  }

  /** The engine ref of the iframe element that hosts frameId (the engine's page.frame_element). */
  private async frameRef(
    frameId: string,
    o: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<string | undefined> {
    try {
      return (await ops.frameElement.call(this.engine, { frame_id: frameId }, o)) ?? undefined;
    } catch (err) {
      // In this API's words: its frames come from page.frames(), its allowlist is allowedOrigins.
      const details = err instanceof TabwrightError ? err.details : {};
      if (details.reason === 'frame_not_found')
        throw new TabwrightError(
          'element_not_found',
          `No frame ${frameId} on this page; list them with page.frames().`,
        );
      if (details.reason === 'origin_denied' && details.frame === 'child')
        throw new TabwrightError(
          'permission_denied',
          `Frame ${frameId} is at ${String(details.url)}, outside this page's allowedOrigins.`,
          { details: { reason: 'origin_denied' } },
        );
      throw err;
    }
  }

  /** url, title, targetId, allowlist, the dialog waiting for an answer (if any). */
  async info(): Promise<Record<string, unknown>> {
    this.assertNotDisposed();
    const stale = this.staleness();
    if (stale) return { closed: true, reason: stale.reason, targetId: this.targetId };
    const i = await ops.info.call(this.engine, { fresh_title: true });
    return {
      targetId: this.targetId,
      url: i.url,
      title: i.title,
      allowedOrigins: this.allowedOrigins,
      allowed: this.policy.allowsDocument(i.url),
      dialog: await ops.pendingDialog.call(this.engine, {}),
      closed: false,
      generation: this.generationAtOpen,
    };
  }

  /** The bounded digest of events since the last call (drains it). */
  async signals(): Promise<Awaited<ReturnType<PageSignals['drain']>>> {
    this.assertNotDisposed();
    return this.signalLog.drain();
  }

  /** Answers a dialog held for the caller (open/attach with { dialogs: 'hold' }). */
  async handleDialog(accept: boolean, promptText?: string): Promise<unknown> {
    this.assertNotDisposed();
    this.throwIfStale();
    return ops.handleDialog.call(this.engine, { accept: !!accept, prompt_text: promptText });
  }

  // ---- locators ----

  /** A ref printed in this page's latest snapshot, or a CSS selector (main frame, exactly one element). */
  locator(refOrCss: string): Locator {
    this.assertNotDisposed();
    if (typeof refOrCss !== 'string' || refOrCss.trim() === '')
      throw new TabwrightError('invalid_request', 'locator() needs a printed ref or a CSS selector.');
    if (TOKEN_PATTERN.test(refOrCss)) return new Locator(this, { kind: 'ref', token: refOrCss });
    return new Locator(this, { kind: 'css', selector: refOrCss });
  }

  /** By role and accessible name: exact by default; { exact: false } for a substring; { context } to pick among several. */
  getByRole(role: string, opts: { name?: string; exact?: boolean; context?: string } = {}): Locator {
    this.assertNotDisposed();
    if (typeof role !== 'string' || !role)
      throw new TabwrightError('invalid_request', 'getByRole() needs a role.');
    return new Locator(this, {
      kind: 'role',
      role,
      name: opts.name,
      exact: opts.exact !== false,
      context: opts.context,
    });
  }

  async locatorAction(
    spec: LocatorSpec,
    op: LocatorOp,
    arg: unknown,
    opts: (ClickOptions & FillOptions) | undefined,
  ): Promise<ActionResult> {
    this.assertNotDisposed();
    let target: Target;
    if (spec.kind === 'ref') {
      const l = this.tokens.lookup(spec.token);
      if (!l.ok) {
        return result('stale', l.reason, {
          message: `Ref ${spec.token} ${l.reason === 'ref_expired' ? 'expired: a snapshot, action, raw call or navigation happened since it was printed' : 'was never printed for this page'}. Take a new snapshot, or use a role/CSS locator.`,
        });
      }
      target = { element_ref: l.engineRef };
    } else if (spec.kind === 'css') target = { selector: spec.selector };
    else
      target = {
        role: spec.role,
        name: spec.name,
        exact: spec.exact,
        context: spec.context,
        // The seed: names match case-sensitively, exact or as a substring.
        case_sensitive: true,
      };
    const engineSpec = this.specFor(op, arg, !!opts?.keyByKey);
    return this.perform(target, engineSpec, opts, { op, locator: describeSpec(spec) });
  }

  private specFor(op: LocatorOp | Operation, arg: unknown, keyByKey = false): ActionSpec {
    switch (op) {
      case 'click':
        return { action: 'click' };
      case 'fill':
      case 'type':
        if (typeof arg !== 'string')
          throw new TabwrightError('invalid_request', `${op} needs the text (a string).`);
        if (arg.length > 4096)
          throw new TabwrightError('invalid_request', `${op} text is limited to 4096 characters.`);
        // Key by key: the whole value replaced by typing each character (pages that filter on key events).
        if (keyByKey) return { action: 'type', text: arg, replace: true, key_by_key: true };
        return { action: 'fill', value: arg };
      case 'press':
        if (typeof arg !== 'string' || !PRESS_KEYS.includes(arg))
          throw new TabwrightError(
            'invalid_request',
            `press() takes one of ${PRESS_KEYS.join(', ')}; got ${JSON.stringify(arg)}.`,
            {
              details: { field: 'key' },
            },
          );
        return { action: 'press', key: arg === 'Space' ? ' ' : arg };
      case 'selectOption':
      case 'select':
        if (typeof arg === 'number') {
          if (!Number.isInteger(arg) || arg < 0)
            throw new TabwrightError('invalid_request', 'An option index is an integer >= 0.');
          return { action: 'select', indexes: [arg] };
        }
        if (typeof arg === 'string') return { action: 'select', labels: [arg] };
        throw new TabwrightError(
          'invalid_request',
          'selectOption() takes an option label (string) or a zero-based index.',
        );
      case 'scrollIntoView':
      case 'scroll_into_view':
        return { action: 'scroll', into_view: true };
      case 'scroll_down':
        return { action: 'scroll', pages: 1 };
      case 'scroll_up':
        return { action: 'scroll', pages: -1 };
      default:
        throw new TabwrightError('invalid_request', `Unknown operation ${String(op)}.`);
    }
  }

  /** The one pipeline: resolve exactly one element, refuse frames and (unless allowed) sensitive fills, act once, read back. */
  private async perform(
    target: Target,
    spec: ActionSpec,
    opts: (ClickOptions & FillOptions) | undefined,
    meta: Record<string, unknown>,
  ): Promise<ActionResult> {
    let eo: ReturnType<typeof engineOpts>;
    try {
      eo = engineOpts(opts);
    } catch (err) {
      // An already-aborted signal: refused before anything was sent (blocked / cancelled).
      return resultFromError(err);
    }
    const d = Deadline.from(eo);
    const verify = opts?.verify;
    if (verify !== undefined && typeof verify !== 'function')
      throw new TabwrightError(
        'invalid_request',
        'verify must be a synchronous function (snapshot) => boolean.',
      );
    const stale = this.staleness();
    if (stale) return stale;
    this.checkDocument();
    let receipt: Receipt | undefined;
    let failure: ActionResult | undefined;
    const blockedSeq = (await ops.logCursors.call(this.engine, {})).blocked_requests;
    try {
      // The engine resolves exactly one element and refuses iframe targets and (unless the caller
      // opted in) sensitive fields before anything is sent, in the same queue slot as the input.
      receipt = await ops.act.call(
        this.engine,
        {
          target,
          spec,
          refuse: {
            child_frames: true,
            sensitive: !opts?.allowSensitive,
            unsupported: true,
            // This Page's allowlist, which may be narrower than its tab's session (attach).
            origins: [...this.allowedOrigins],
          },
        },
        rest(d),
      );
    } catch (err) {
      failure = resultFromError(err);
      if (failure.reason === 'frame_unsupported')
        failure.message =
          'The element is inside a frame: frames can be read (page.frame(id).snapshot()) but not acted on here.';
      else if (failure.reason === 'sensitive_field')
        failure.message = `The field is sensitive (${String((err as TabwrightError).details.sensitive)}); nothing was typed. Pass { allowSensitive: true } on this call only if the user asked for it.`;
    }
    // Typing the caller marked sensitive, or that was refused as sensitive, is never recorded.
    const masked = !!opts?.allowSensitive || failure?.reason === 'sensitive_field';
    this.host.record({
      ...meta,
      action: spec.action,
      ...(spec.action === 'fill' ? { text: masked ? '••••••' : spec.value } : {}),
      ...(spec.action === 'type' ? { text: masked ? '••••••' : spec.text, keyByKey: true } : {}),
      ...(spec.action === 'press' ? { key: spec.key } : {}),
      status: failure?.status ?? receipt?.status,
      url: this.engine.closed ? null : this.engine.url(),
    });
    if (failure) {
      if (failure.status === 'outcome_unknown') this.expireEvidence();
      return failure;
    }
    const r = receipt!;
    // fill({ keyByKey }) types: verified by the value read back, as fill is.
    let verified = r.verified;
    if (spec.action === 'type') {
      const after = r.changes.value?.after;
      verified = typeof after === 'string' && after !== REDACTED ? after === spec.text : null;
    }
    // Any action expires printed refs and observation handles.
    this.expireEvidence();
    if (r.changes.navigated)
      this.signalLog.note({
        kind: 'navigation',
        text: `navigated: ${r.changes.url?.after ?? this.engine.url()}`,
        url: r.changes.url?.after ?? this.engine.url(),
      });
    const out = result(r.status, r.status === 'executed' ? 'dispatched' : 'dispatch_unconfirmed', {
      verified,
      changed: r.changed,
      navigated: r.changes.navigated,
      url: r.changes.url?.after ?? this.engine.url(),
      newPages: r.changes.new_pages.length,
      dialog: r.dialog,
      downloads: r.downloads,
      ...(r.warnings.length ? { warnings: r.warnings.map(harnessWords) } : {}),
      ...(r.hint ? { note: harnessWords(r.hint) } : {}),
    });
    // A navigation or popup the action caused that the allowlist stopped: say so (the page stayed where it was).
    const blocked = (
      await ops.blocked.call(this.session, { since_seq: blockedSeq, page_id: this.engine.id })
    ).filter((b) => b.kind !== 'subresource');
    if (blocked.length) {
      out.blockedNavigation = blocked.map((b) => ({ kind: b.kind, url: b.url, origin: b.origin }));
      out.note = `The action led to ${blocked[0]!.origin}, outside allowedOrigins; that navigation was blocked and the page stayed.`;
    }
    await this.readBack(out, d, verify);
    return out;
  }

  /** The snapshot after an operation, and the verify predicate on it. */
  private async readBack(out: ActionResult, d: Deadline, verify: VerifyPredicate | undefined): Promise<void> {
    if (this.engine.closed) {
      if (verify) out.verificationError = 'The tab closed after the operation; nothing to verify.';
      return;
    }
    // A dialog held for an answer blocks the page's scripts: nothing can be read until it is answered.
    const held = await ops.pendingDialog.call(this.engine, {}).catch(() => null);
    if (held) {
      out.verificationError = `A ${held.type} dialog is open and held: the page can be read after page.handleDialog(accept, promptText?) answers it.`;
      return;
    }
    try {
      const budget = Math.min(Math.max(d.remaining(), 1500), 5000);
      out.snapshot = await takeView(
        this.engine,
        this.tokens,
        { max_depth: SNAPSHOT_LIMITS.depth, frame_origins: [...this.allowedOrigins] },
        { timeoutMs: budget },
        SNAPSHOT_LIMITS.chars,
      );
    } catch (err) {
      out.snapshot = null;
      out.verificationError = `No snapshot after the operation: ${err instanceof Error ? err.message : String(err)}`;
      if (verify) out.verified = null;
      return;
    }
    if (verify) {
      try {
        out.verified = Boolean(verify(out.snapshot));
      } catch (err) {
        out.verified = null;
        out.verificationError = `verify threw: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
  }

  // ---- navigation and lifecycle ----

  /** Navigates within the allowlist and waits for load; an action receipt. */
  async goto(url: string, opts?: CallOptions): Promise<ActionResult> {
    this.assertNotDisposed();
    let eo: ReturnType<typeof engineOpts>;
    try {
      eo = engineOpts(opts);
    } catch (err) {
      return resultFromError(err);
    }
    const stale = this.staleness();
    if (stale) return stale;
    // This Page's allowlist may be narrower than its tab's session (attach): checked here first.
    if (typeof url === 'string' && !this.policy.allowsDocument(url)) {
      this.host.record({ action: 'goto', url, status: 'blocked', reason: 'origin_denied' });
      return result('blocked', 'origin_denied', {
        message: `${url} is outside this Page's allowedOrigins (${this.allowedOrigins.join(', ')}); nothing was sent. Ask the user to authorize its origin.`,
        origin: originOf(url),
      });
    }
    const d = Deadline.from(eo);
    let out: ActionResult;
    try {
      const nav = await ops.open.call(this.engine, { url, wait_until: 'load' }, rest(d));
      this.expireEvidence();
      this.signalLog.note({ kind: 'navigation', text: `navigated: ${nav.url}`, url: nav.url });
      this.lastDocUrl = nav.url;
      out = result('executed', 'navigated', { url: nav.url, title: nav.title, httpStatus: nav.status });
      if (nav.download) out.download = nav.download;
    } catch (err) {
      out = resultFromError(err);
      if (out.status === 'outcome_unknown') this.expireEvidence();
    }
    this.host.record({ action: 'goto', url, status: out.status, reason: out.reason });
    if (out.status === 'executed') await this.readBack(out, d, undefined);
    return out;
  }

  /** Closes the tab, then releases the wrapper. */
  async close(): Promise<void> {
    if (this.disposed) return;
    // A crashed tab is closed too (the engine no longer lists it, but it stays in the browser until closed).
    if (this.session.alive) await ops.closePage.call(this.engine, {}).catch(() => {});
    await this.dispose();
  }

  /** Releases the wrapper and the connection it owns; the tab stays open. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.expireEvidence();
    await this.raw.detach();
    await this.host.forget(this);
    await this.closeSession?.().catch(() => {});
  }

  // ---- bounded decisions ----

  /** Candidates with one-time handles, their operations, context and a revision. */
  async observe(opts: { maxElements?: number } & CallOptions = {}): Promise<Observation> {
    this.assertNotDisposed();
    this.throwIfStale();
    const max = opts.maxElements ?? OBSERVE_DEFAULT;
    if (!Number.isInteger(max) || max < 1 || max > OBSERVE_MAX)
      throw new TabwrightError('invalid_request', `maxElements must be an integer from 1 to ${OBSERVE_MAX}.`);
    this.assertReadable();
    this.checkDocument();
    const p = await project(this.engine, this.generationAtOpen, max, engineOpts(opts));
    const { observation, issued } = issue(p);
    this.observation = issued;
    this.lastMax = max;
    return observation;
  }

  private lastMax = OBSERVE_DEFAULT;

  /** One operation through a handle of the latest observation; the attempt consumes the observation. */
  async act(
    observation: { observationId?: string } | null | undefined,
    choice: { targetId?: string; operation?: string; text?: string; option?: number | string; key?: string },
    opts: (ClickOptions & FillOptions) | undefined = undefined,
  ): Promise<ActionResult> {
    this.assertNotDisposed();
    const cur = this.observation;
    if (!cur || !observation || observation.observationId !== cur.observationId || cur.consumed) {
      return result('stale', 'observation_expired', {
        message:
          'This observation was used, replaced, or expired (navigation, raw call, action). Observe again and decide again.',
      });
    }
    cur.consumed = true;
    const handle = cur.handles.get(String(choice?.targetId));
    if (!handle)
      return result('stale', 'unknown_target', { message: 'targetId is not a handle of this observation.' });
    const operation = String(choice?.operation) as Operation;
    if (!handle.candidate.operations.includes(operation)) {
      return result('blocked', 'unsupported_action', {
        message: `This candidate offers ${handle.candidate.operations.join(', ')}; not ${operation}.`,
      });
    }
    const arg =
      operation === 'type'
        ? choice.text
        : operation === 'select'
          ? choice.option
          : operation === 'press'
            ? choice.key
            : undefined;
    const spec = this.specFor(operation, arg, !!opts?.keyByKey);
    return this.perform({ element_ref: handle.engineRef }, spec, opts, {
      op: `act:${operation}`,
      label: handle.candidate.label,
    });
  }

  /** Waits until the observed state's revision differs from `revision` (or waitMs passes): {changed, observation}. */
  async waitForChange(
    revision: string,
    opts: { waitMs?: number; maxElements?: number } & CallOptions = {},
  ): Promise<{ changed: boolean; observation: Observation }> {
    this.assertNotDisposed();
    this.throwIfStale();
    const waitMs = opts.waitMs ?? 5000;
    if (!Number.isFinite(waitMs) || waitMs < 0 || waitMs > 60_000)
      throw new TabwrightError('invalid_request', 'waitMs must be from 0 to 60000.');
    const max = opts.maxElements ?? this.lastMax;
    const base = engineOpts({ ...opts, timeoutMs: Math.min(60_000, waitMs + 10_000) });
    this.assertReadable();
    const end = Date.now() + waitMs;
    let p = await project(this.engine, this.generationAtOpen, max, base);
    while (p.revision === revision && Date.now() < end) {
      if (base.signal?.aborted) break;
      await new Promise((r) => setTimeout(r, Math.min(500, Math.max(0, end - Date.now()))));
      p = await project(this.engine, this.generationAtOpen, max, { ...base, timeoutMs: 10_000 });
    }
    this.checkDocument();
    const { observation, issued } = issue(p);
    this.observation = issued;
    return { changed: p.revision !== revision, observation };
  }

  // ---- raw ----

  /**
   * Raw CDP on this tab. It bypasses the origin policy and every guard, expires
   * printed refs and observation handles, and is recorded. Never use it to get
   * around a blocked result.
   */
  async cdp(method: string, params: Record<string, unknown> = {}, opts?: CallOptions): Promise<unknown> {
    this.assertNotDisposed();
    this.throwIfStale();
    if (typeof method !== 'string' || !/^[A-Z][A-Za-z]*\.[a-zA-Z]+$/.test(method))
      throw new TabwrightError(
        'invalid_request',
        `"${String(method)}" is not a CDP method name like "Runtime.evaluate".`,
      );
    this.expireEvidence();
    this.host.record({ action: 'cdp', method });
    return this.raw.send(method, params, engineOpts(opts));
  }

  toJSON(): unknown {
    return { page: this.describe() };
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function describeSpec(s: LocatorSpec): string {
  if (s.kind === 'ref') return `ref ${s.token}`;
  if (s.kind === 'css') return `css ${s.selector}`;
  return `role ${s.role}${s.name !== undefined ? ` "${s.name}"` : ''}`;
}
