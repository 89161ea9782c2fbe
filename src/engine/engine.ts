import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type {
  Backend,
  BackendBrowser,
  BackendLimits,
  BrowserFamily,
  PlacementStatus,
  SessionPlacement,
} from '../backends/backend.js';
import { type AdmissionLimits, checkAdmission } from './admission.js';
import { Deadline, DeadlineExpired, type OperationOptions, settlesWithin } from './deadline.js';
import { collectDiagnostics, type Diagnostics } from './diagnostics.js';
import { type DialogPolicyInput, parseDialogPolicy } from './dialogs.js';
import { countSessions, type EngineCounts } from './engine-stats.js';
import { TabwrightError } from './errors.js';
import { profileDir, tabwrightHome } from './home.js';
import { HumanInputStore } from './human-input.js';
import { IdSource } from './ids.js';
import { LaunchRecords } from './launch-records.js';
import { log } from './log.js';
import type { Page } from './page.js';
import { OriginPolicy, type OriginPolicyInput } from './policy.js';
import { PolicyProxy } from './policy-proxy.js';
import { Session, type SessionKind, type StuckClose } from './session.js';

export interface EngineOptions {
  /**
   * The browser backends, the default first. The composition root (src/cli/compose.ts) builds
   * them: the engine never imports a browser driver.
   */
  backends: readonly Backend[];
  /** Defaults to $TABWRIGHT_HOME or ~/.local/share/tabwright. */
  home?: string;
  headless?: boolean;
  /** The default backend's binary; defaults to its discovery ($TABWRIGHT_CHROMIUM, /usr/bin/chromium, …). */
  executablePath?: string;
  extraArgs?: string[];
  /**
   * Let sessions open and fetch file: URLs (default false: refused with permission_denied, since an
   * agent that reads local files can send them anywhere). The doors' --allow-file-urls flag.
   */
  allowFileUrls?: boolean;
  /** Back-pressure (admission.ts): a session limit and a free-memory floor for new sessions. */
  admission?: AdmissionLimits;
  /**
   * Where ephemeral sessions get their browsers: absent, from the shared launched browser; a
   * Selenium Grid placement (src/backends/grid, `--grid URL`) gives each one a browser of its own.
   */
  placement?: SessionPlacement;
}

const DIAGNOSTICS_TTL_MS = 5 * 60_000;
/** How long a retired shared browser (see stuckClose) may take to close before it is killed. */
const RETIRED_CLOSE_GRACE_MS = 2_000;

/** What every session kind accepts. */
export interface SessionCommon {
  /** The browser family (a backend's name); the engine's default backend when absent. */
  browser?: BrowserFamily;
  /**
   * A vendor build of the family to launch (Chromium: chrome, edge), found by the backend's discovery
   * ($TABWRIGHT_CHROME, …); setup_required when it is not installed. Only for browsers the engine
   * launches (ephemeral, persistent) on this machine.
   */
  product?: string;
  policy?: OriginPolicyInput;
  /** Record every request in Session.requests (default true). */
  network_recording?: boolean;
  /** How JavaScript dialogs are answered (see src/engine/dialogs.ts for the default). */
  dialogs?: DialogPolicyInput;
}

export type SessionRequest =
  | ({ kind?: 'ephemeral' } & SessionCommon)
  | ({ kind: 'persistent'; profile: string } & SessionCommon)
  | ({ kind: 'attach'; endpoint: string } & SessionCommon)
  | ({ kind: 'remote'; endpoint: string } & SessionCommon);

/**
 * The engine: sessions, their pages, and the browsers behind them. Every door
 * holds one Engine and maps its wire format onto these calls.
 *
 * Ephemeral sessions share one launched browser (a new context each: cheap).
 * When that browser dies, its sessions fail with browser_not_running and the
 * next ephemeral session launches a fresh one.
 */
export class Engine {
  readonly home: string;
  /** Requests for a person (human-in-the-loop), shared by every door and the dashboard. */
  readonly humanInput = new HumanInputStore();
  private readonly backends: readonly Backend[];
  /** EngineOptions.allowFileUrls, given to every session (url-schemes.ts). */
  readonly allowFileUrls: boolean;
  private readonly headless: boolean;
  private readonly executablePath?: string;
  private readonly extraArgs: string[];
  private readonly sessionIds = new IdSource('sess');
  private readonly pageIds = new IdSource('page');
  private readonly sessionsById = new Map<string, Session>();
  /** The shared browser of ephemeral sessions, per family and product (sharedKey). */
  private readonly shared = new Map<string, Promise<BackendBrowser>>();
  /** Each launched shared browser's entry in `shared`, so a retirement finds it without awaiting other launches. */
  private readonly sharedEntry = new WeakMap<
    BackendBrowser,
    { key: string; launching: Promise<BackendBrowser> }
  >();
  private readonly placement: SessionPlacement | undefined;
  private closing = false;
  /** Back-pressure limits (admission.ts). */
  readonly admission: AdmissionLimits;
  /** Sessions being created now: they count against the session limit. */
  private starting = 0;
  /** Session closes that did not finish within their deadline (reported in counts()). */
  private stuckCloses = 0;
  /** Shared browsers that failed to close a context in time: no new session gets them; closed when unused. */
  private readonly retired = new Set<BackendBrowser>();
  /**
   * Sessions being started on each shared browser and not yet listed (or given up). A retired browser
   * is closed only when no session uses it, and a session still starting on it uses it too.
   */
  private readonly startsOn = new Map<BackendBrowser, number>();

  constructor(opts: EngineOptions) {
    if (!opts?.backends?.length)
      throw new Error('Engine needs at least one backend (see src/cli/compose.ts).');
    this.backends = opts.backends;
    this.launchRecords = new LaunchRecords(opts.home ?? tabwrightHome());
    this.home = opts.home ?? tabwrightHome();
    this.headless = opts.headless ?? true;
    this.executablePath = opts.executablePath;
    this.extraArgs = opts.extraArgs ?? [];
    this.allowFileUrls = opts.allowFileUrls ?? false;
    this.admission = opts.admission ?? {};
    this.placement = opts.placement;
  }

  /** What the engine holds now (engine-stats.ts): sessions, pages, logs, refs, Node's handles. */
  counts(): EngineCounts {
    return countSessions(this.sessions(), this.humanInput.size, this.stuckCloses);
  }

  /** The browser families this engine can drive, the default first. */
  get browserFamilies(): BrowserFamily[] {
    return this.backends.map((b) => b.name);
  }

  /** What each family of this engine refuses or does differently, as its backend declares it. */
  browserLimits(): Record<string, BackendLimits> {
    return Object.fromEntries(this.backends.map((b) => [b.name, b.limits]));
  }

  /** The backend of a family (the default one when absent); unsupported_target when there is none. */
  backend(family?: BrowserFamily): Backend {
    if (family === undefined) return this.backends[0]!;
    const b = this.backends.find((x) => x.name === family);
    if (!b) {
      throw new TabwrightError(
        'unsupported_target',
        `This process drives ${this.browserFamilies.join(' and ')}, not ${family}. Use one of those, or start tabwright with --browser ${family}.`,
        { details: { field: 'browser', supported: this.browserFamilies } },
      );
    }
    return b;
  }

  private launchSettings(backend: Backend, product?: string) {
    const executablePath =
      product !== undefined
        ? backend.executable(product)
        : backend === this.backends[0] && this.executablePath
          ? this.executablePath
          : backend.executable();
    return {
      executablePath,
      product,
      headless: this.headless,
      args: this.extraArgs,
      workDir: this.launchRecords.newWorkDir(),
    };
  }

  /** Runs one launch with fresh settings: a launch that fails (a profile in use, a browser that
   * would not start) leaves no work directory behind; one that succeeds hands it to the browser. */
  private async withLaunchSettings<T>(
    backend: Backend,
    product: string | undefined,
    launch: (settings: ReturnType<Engine['launchSettings']>) => Promise<T>,
  ): Promise<T> {
    const settings = this.launchSettings(backend, product);
    try {
      return await launch(settings);
    } catch (err) {
      rmSync(settings.workDir, { recursive: true, force: true, maxRetries: 3 });
      throw err;
    }
  }

  /**
   * The shared browser of ephemeral sessions of one family and product, launched on first use and
   * relaunched after it dies.
   */
  private async sharedBrowser(backend: Backend, product?: string): Promise<BackendBrowser> {
    const family = backend.name;
    const key = sharedKey(family, product);
    const current = this.shared.get(key);
    if (current) {
      const b = await current.catch(() => undefined);
      if (b?.isConnected()) return b;
      if (this.shared.get(key) === current) this.shared.delete(key);
    }
    const launching = this.withLaunchSettings(backend, product, (settings) => backend.launch(settings));
    this.shared.set(key, launching);
    const forget = () => {
      if (this.shared.get(key) === launching) this.shared.delete(key);
    };
    launching.then((b) => {
      log.info({ family, product, version: b.version() }, 'shared browser launched');
      this.sharedEntry.set(b, { key, launching });
      this.track(b);
      b.onDisconnected(forget);
    }, forget);
    return launching;
  }

  /** Browsers this engine launched (shared and persistent) that are still running. */
  private readonly launched = new Set<BackendBrowser>();
  private readonly launchRecords: LaunchRecords;

  /**
   * Remembers a launched browser: for a forced close, and on disk for a crash of this process. When
   * it is gone its temporary profile and work directory are removed (the driver's own clean-up may
   * not run before the process exits).
   */
  private track(b: BackendBrowser): void {
    const p = b.launchedProcess();
    if (!p) return;
    this.launched.add(b);
    const record = this.launchRecords.add(p);
    b.onDisconnected(() => {
      this.launched.delete(b);
      record.closed();
    });
  }

  async startSession(req: SessionRequest = {}, opts: OperationOptions = {}): Promise<Session> {
    if (this.closing)
      throw new TabwrightError('not_ready', 'The engine is shutting down; start a new process.');
    const deadline = Deadline.from(opts);
    checkAdmission(this.admission, this.sessionsById.size + this.starting);
    const policy = OriginPolicy.parse(req.policy);
    const dialogPolicy = req.dialogs === undefined ? undefined : parseDialogPolicy(req.dialogs);
    const kind: SessionKind = req.kind ?? 'ephemeral';
    if (policy.restricted && (kind === 'attach' || kind === 'remote')) throw policyNeedsLaunch(kind);
    this.starting++;
    // The shared browser this start holds (see startsOn), let go once the session is listed or given up.
    let held: BackendBrowser | undefined;
    const letGo = () => {
      if (held) this.endStartOn(held);
      held = undefined;
    };
    const work = this.createSession(req, kind, policy, deadline, (b) => {
      held = b;
      this.startsOn.set(b, (this.startsOn.get(b) ?? 0) + 1);
    });
    work.then(
      () => this.starting--,
      () => {
        this.starting--;
        letGo();
      },
    );
    const session = await Promise.race([work, deadline.expired()]).catch(async (err) => {
      // A session that arrives after the caller gave up must not leak.
      work
        .then((s) => s.close())
        .catch(() => {})
        .finally(letGo);
      if (err instanceof TabwrightError) throw err;
      // A placement that knows why it is late (a full Grid) says so as the deadline passes.
      const own =
        err instanceof DeadlineExpired
          ? await settlesWithin(work, 200).then(
              () => undefined,
              (e: unknown) => e,
            )
          : undefined;
      if (own instanceof TabwrightError) throw own;
      throw new TabwrightError(
        'not_ready',
        `Starting a ${kind} session did not finish within ${deadline.timeoutMs} ms. Retry with a larger timeout_ms; run \`tabwright doctor\` if it keeps failing.`,
        { retryable: true, details: { kind } },
      );
    });
    await session.enforcePolicy().catch(async (err) => {
      // A session whose policy cannot be enforced must not be handed out.
      await session.close().catch(() => {});
      letGo();
      throw err;
    });
    if (dialogPolicy) session.dialogPolicy = dialogPolicy;
    this.sessionsById.set(session.id, session);
    letGo();
    log.info({ session_id: session.id, kind }, 'session started');
    return session;
  }

  private async createSession(
    req: SessionRequest,
    kind: SessionKind,
    policy: OriginPolicy,
    deadline: Deadline,
    /** Called with the shared browser the session is being started on, as soon as it is known. */
    startingOn: (browser: BackendBrowser) => void,
  ): Promise<Session> {
    const id = this.sessionIds.next();
    const common = {
      id,
      policy,
      pageIds: this.pageIds,
      downloadsDir: join(this.home, 'downloads', id),
      networkRecording: req.network_recording ?? true,
      allowFileUrls: this.allowFileUrls,
      onStuckClose: (s: Session, stuck: StuckClose) => this.stuckClose(s, stuck),
    };
    const backend = this.backend(req.browser);
    const product = req.product;
    const onGrid = kind === 'ephemeral' ? this.placement?.url : undefined;
    if (product !== undefined && (kind === 'attach' || kind === 'remote' || onGrid))
      throw productNeedsLaunch(product, kind, onGrid);
    switch (kind) {
      case 'ephemeral': {
        const placed = this.placement;
        if (placed && policy.restricted && !placed.sharesLoopback) throw policyNeedsLoopbackGrid(placed.url);
        const browser = placed
          ? await placed.acquire(backend, {
              headless: this.headless,
              args: this.extraArgs,
              signal: deadline.signal,
              remainingMs: () => deadline.remaining(),
            })
          : await this.sharedBrowser(backend, product);
        if (!placed) startingOn(browser);
        const created = withPolicyProxy(policy, async (proxy) => {
          const context = await browser.newContext({ proxyServer: proxy?.url });
          // A placed browser is the session's own: closing the session gives it back.
          const s = new Session({ ...common, kind, browser, context, ownsBrowser: !!placed, proxy });
          await s.newPage();
          return s;
        });
        if (!placed) return created;
        return created.catch(async (err) => {
          await browser.close().catch(() => {});
          throw err;
        });
      }
      case 'persistent': {
        const name = (req as { profile: string }).profile;
        const dir = profileDir(this.home, name);
        const existing = [...this.sessionsById.values()].find(
          (s) => s.kind === 'persistent' && s.profile === name && s.alive,
        );
        if (existing) {
          throw new TabwrightError(
            'permission_denied',
            `Profile "${name}" is already in use by session ${existing.id}. Reuse that session or close it first.`,
            { details: { profile: name, session_id: existing.id } },
          );
        }
        const profileExisted = existsSync(dir);
        mkdirSync(dir, { recursive: true });
        return withPolicyProxy(policy, async (proxy) => {
          const { browser, context } = await this.withLaunchSettings(backend, product, (settings) =>
            backend.launchPersistent(settings, dir, { proxyServer: proxy?.url }),
          );
          this.track(browser);
          const s = new Session({
            ...common,
            kind,
            browser,
            context,
            ownsBrowser: true,
            profile: name,
            profileExisted,
            proxy,
          });
          if (s.pages().length === 0) await s.newPage();
          return s;
        });
      }
      case 'attach': {
        const endpoint = checkEndpoint((req as { endpoint: string }).endpoint, [
          'http:',
          'https:',
          'ws:',
          'wss:',
        ]);
        const browser = await backend.attachCdp(endpoint, Math.max(1, deadline.remaining()));
        const context = browser.defaultContext() ?? (await browser.newContext());
        const s = new Session({ ...common, kind, browser, context, ownsBrowser: false, endpoint });
        if (s.pages().length === 0) await s.newPage();
        return s;
      }
      case 'remote': {
        const endpoint = checkEndpoint((req as { endpoint: string }).endpoint, ['ws:', 'wss:']);
        const browser = await backend.connectRemote(endpoint, Math.max(1, deadline.remaining()));
        const context = await browser.newContext();
        const s = new Session({ ...common, kind, browser, context, ownsBrowser: true, endpoint });
        await s.newPage();
        return s;
      }
      default:
        throw new TabwrightError(
          'invalid_request',
          `Unknown session kind "${String(kind)}"; use ephemeral, persistent, attach or remote.`,
          { details: { field: 'kind' } },
        );
    }
  }

  session(sessionId: string): Session {
    const s = this.sessionsById.get(sessionId);
    if (!s) {
      throw new TabwrightError(
        'session_not_found',
        `No session ${sessionId}. It was closed or never existed; start a new session.`,
        {
          details: { session_id: sessionId },
        },
      );
    }
    return s;
  }

  sessions(): Session[] {
    return [...this.sessionsById.values()];
  }

  /** Looks a page up by id across sessions. */
  page(pageId: string): Page {
    for (const s of this.sessionsById.values()) if (s.hasPage(pageId)) return s.page(pageId);
    throw new TabwrightError('page_not_found', `No open page ${pageId}. List pages with tab.list.`, {
      details: { page_id: pageId },
    });
  }

  /** Closes a session within the operation's deadline (Session.close says what happens when it is late). */
  async closeSession(sessionId: string, opts: OperationOptions = {}): Promise<void> {
    const s = this.session(sessionId);
    // close() checks its options and marks the session closed before its first await; only then does
    // the session leave the map. A bad timeout_ms fails with the session still listed and open.
    const closing = s.close(opts);
    if (s.closeStarted) this.sessionsById.delete(sessionId);
    await closing;
    log.info({ session_id: sessionId }, 'session closed');
    if (this.retired.has(s.browser)) await this.closeRetiredWhenUnused(s.browser);
  }

  /**
   * A session's close did not finish in time. It is reported (a warning, counts().stuck_closes). A
   * browser of the session's own was already closed or killed by the session; a shared one whose
   * context did not close is retired: new sessions get a fresh browser, and this one is closed (or
   * killed, its temporary profile removed) as soon as no other session uses it.
   */
  private async stuckClose(s: Session, stuck: StuckClose): Promise<void> {
    this.stuckCloses++;
    const shared = !stuck.browserClosed && s.kind === 'ephemeral' && this.launched.has(s.browser);
    log.warn(
      {
        session_id: s.id,
        kind: s.kind,
        step: stuck.step,
        timeout_ms: stuck.timeoutMs,
        pid: s.browser.launchedProcess()?.pid,
        outcome: stuck.browserClosed ? 'browser closed' : shared ? 'shared browser retired' : 'left',
      },
      `closing the session's ${stuck.step} did not finish in time`,
    );
    if (!shared) return;
    // Not by awaiting each entry: one may be a launch still under way (a Firefox takes seconds), which
    // this close, bounded by its deadline, must not wait for.
    const entry = this.sharedEntry.get(s.browser);
    if (entry && this.shared.get(entry.key) === entry.launching) this.shared.delete(entry.key);
    this.retired.add(s.browser);
    s.browser.onDisconnected(() => this.retired.delete(s.browser));
    await this.closeRetiredWhenUnused(s.browser);
  }

  /** A start on a shared browser is over (listed or given up): a retired browser left unused closes. */
  private endStartOn(browser: BackendBrowser): void {
    const left = (this.startsOn.get(browser) ?? 1) - 1;
    if (left > 0) {
      this.startsOn.set(browser, left);
      return;
    }
    this.startsOn.delete(browser);
    if (this.retired.has(browser)) void this.closeRetiredWhenUnused(browser);
  }

  private async closeRetiredWhenUnused(browser: BackendBrowser): Promise<void> {
    if (this.startsOn.has(browser) || this.sessions().some((o) => o.browser === browser)) return;
    this.retired.delete(browser);
    await settlesWithin(browser.close(), RETIRED_CLOSE_GRACE_MS).catch(() => true);
    if (browser.isConnected()) browser.forceClose();
  }

  /** Closes every session and the shared browser. */
  /**
   * Closes every session and the shared browsers. With `graceMs`, a close that takes longer (a busy
   * or hung browser, a process about to exit) is finished by force: the browsers this engine launched
   * are killed and their temporary profiles removed, so nothing is left behind either way.
   */
  async close(opts: { graceMs?: number } = {}): Promise<void> {
    this.closing = true;
    this.humanInput.close();
    const graceful = (async () => {
      await Promise.allSettled(this.sessions().map((s) => this.closeSession(s.id)));
      const shared = [...this.shared.values()];
      this.shared.clear();
      await Promise.allSettled(shared.map(async (b) => (await b.catch(() => undefined))?.close()));
      await this.placement?.close();
    })();
    if (opts.graceMs === undefined) await graceful;
    else {
      const inTime = await Promise.race([
        graceful.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), opts.graceMs).unref()),
      ]);
      if (!inTime) {
        const pids = [...this.launched].map((b) => b.launchedProcess()?.pid);
        for (const b of this.launched) b.forceClose();
        log.info({ pids }, 'browsers not closed within the grace period: killed, temporary profiles removed');
        // Placed sessions (a Grid's) are ended now rather than left to hold their slots until the
        // reaper's delete after this process exits: a Grid under load can take long to answer it.
        await this.placement?.forceClose();
      }
    }
    // Whatever this engine launched is gone now: nothing of it stays on disk.
    this.launchRecords.removeAll();
    this.closing = false;
  }

  private diagnosed: { at: number; d: Diagnostics } | undefined;

  /**
   * Browsers, versions, the profile root and writable directories (`tabwright doctor`,
   * provider.status). Reading them runs `<browser> --version`, so the answer is kept for 5 minutes
   * unless `refresh` asks for a new one.
   */
  diagnostics(opts: { createDirs?: boolean; refresh?: boolean } = {}): Diagnostics {
    if (
      opts.refresh ||
      opts.createDirs ||
      !this.diagnosed ||
      Date.now() - this.diagnosed.at > DIAGNOSTICS_TTL_MS
    )
      this.diagnosed = { at: Date.now(), d: collectDiagnostics(this.backends, { ...opts, home: this.home }) };
    return this.diagnosed.d;
  }

  /** The Selenium Grid ephemeral sessions run on (`--grid`), or undefined when they run here. */
  get gridUrl(): string | undefined {
    return this.placement?.url;
  }

  /** Where ephemeral sessions are placed (the Grid: reachable, nodes, free slots, queue), or null for local. */
  async placementStatus(timeoutMs = 3000): Promise<PlacementStatus | null> {
    return this.placement ? this.placement.status(timeoutMs) : null;
  }

  /** The shared browsers running now, one per family and product (product null: the family's own binary). */
  async sharedBrowsers(): Promise<{ family: BrowserFamily; product: string | null; pid: number | null }[]> {
    const out: { family: BrowserFamily; product: string | null; pid: number | null }[] = [];
    for (const [key, launching] of this.shared) {
      const b = await launching.catch(() => undefined);
      if (!b?.isConnected()) continue;
      const [family, product] = key.split('/') as [BrowserFamily, string | undefined];
      out.push({ family, product: product ?? null, pid: (await b.pid()) ?? null });
    }
    return out;
  }

  /** For diagnostics and tests: the OS pid of the shared browser (of a family and product), if launched. */
  async sharedBrowserPid(family?: BrowserFamily, product?: string): Promise<number | undefined> {
    const b = await this.shared
      .get(sharedKey(family ?? this.backends[0]!.name, product))
      ?.catch(() => undefined);
    return b?.pid();
  }
}

/** One shared browser per family and product: Chromium's own and Chrome's run side by side. */
function sharedKey(family: BrowserFamily, product: string | undefined): string {
  return product === undefined ? family : `${family}/${product}`;
}

/** A product is a binary tabwright launches here: an attached, remote or Grid browser is what it is. */
function productNeedsLaunch(product: string, kind: SessionKind, grid: string | undefined): TabwrightError {
  return new TabwrightError(
    'unsupported_target',
    grid
      ? `product ${product} cannot be chosen on the Selenium Grid at ${grid}: its nodes run their own browsers. Start this session without product, or run tabwright without --grid.`
      : `product ${product} applies to browsers tabwright launches (ephemeral, persistent sessions), not to ${kind === 'attach' ? 'an attached browser' : `a ${kind} session`}. Leave product out, or start an ephemeral or persistent session.`,
    { details: { field: 'product', kind } },
  );
}

/**
 * An origin policy holds only in a browser tabwright launched: there every request of the session's
 * context goes through its policy proxy and WebRTC never sends UDP (launch flags). A browser we
 * attach to over CDP, or a remote Playwright server's, has neither: its shared and service workers'
 * WebSockets and WebRTC (UDP, and TURN over TCP) leave outside anything CDP can filter (CDP Fetch
 * does not see WebSockets or WebRTC, and browser-level CDP has no Network domain), so such a session
 * is refused rather than handed out with holes.
 */
function policyNeedsLaunch(kind: 'attach' | 'remote'): TabwrightError {
  const what = kind === 'attach' ? 'a browser attached over CDP' : 'a remote browser server';
  return new TabwrightError(
    'unsupported_target',
    `An origin policy cannot be enforced in ${what}: tabwright cannot send that browser's worker WebSockets and WebRTC traffic through its filter, so data could leave the allowed origins. Start an ephemeral or persistent session with the allowlist (tabwright launches Chromium and enforces it there), or ${kind === 'attach' ? 'attach' : 'connect'} without allowed origins.`,
    { details: { kind, reason: 'policy_unenforceable' } },
  );
}

/**
 * A restricted session's traffic goes through its policy proxy on this machine's 127.0.0.1, which a
 * Grid node on another machine cannot reach (and CDP interception alone misses workers' WebSockets
 * and WebRTC, see policyNeedsLaunch): such a session is refused rather than handed out with holes.
 */
function policyNeedsLoopbackGrid(grid: string): TabwrightError {
  return new TabwrightError(
    'unsupported_target',
    `An origin policy cannot be enforced on the Selenium Grid at ${grid}: its nodes cannot reach tabwright's policy proxy on this machine's loopback, so data could leave the allowed origins. Start this session without allowed origins, run it without --grid, or use a Grid on this machine (127.0.0.1).`,
    { details: { kind: 'ephemeral', grid, reason: 'policy_unenforceable' } },
  );
}

/**
 * Runs `create` with a policy proxy for a restricted policy (none for an unrestricted one); the
 * proxy is closed again when the session could not be created.
 */
async function withPolicyProxy(
  policy: OriginPolicy,
  create: (proxy: PolicyProxy | undefined) => Promise<Session>,
): Promise<Session> {
  const proxy = policy.restricted ? await PolicyProxy.start() : undefined;
  try {
    return await create(proxy);
  } catch (err) {
    await proxy?.close();
    throw err;
  }
}

function checkEndpoint(endpoint: unknown, schemes: string[]): string {
  if (typeof endpoint !== 'string') {
    throw new TabwrightError('invalid_request', 'endpoint is required for this session kind.', {
      details: { field: 'endpoint' },
    });
  }
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    throw new TabwrightError(
      'invalid_request',
      `endpoint "${endpoint}" is not a URL; use e.g. http://127.0.0.1:9222.`,
      {
        details: { field: 'endpoint' },
      },
    );
  }
  if (!schemes.includes(u.protocol)) {
    throw new TabwrightError(
      'invalid_request',
      `endpoint must use ${schemes.join(' or ')}; got ${u.protocol}`,
      {
        details: { field: 'endpoint' },
      },
    );
  }
  return endpoint;
}
