import type { BrowserFamily } from '../../backends/backend.js';
import { OriginPolicy, ops, TabwrightError } from '../../engine/api.js';
import type { DialogPolicyInput } from '../../engine/dialogs.js';
import type { Engine } from '../../engine/engine.js';
import type { Page as EnginePage } from '../../engine/page.js';
import type { RawCdpSession } from '../../engine/raw.js';
import type { Session } from '../../engine/session.js';
import { detectBrowsers } from './discovery.js';
import type { EngineFactory } from './harness.js';
import { HarnessPage, type PageHost } from './page.js';
import { type CallOptions, engineOpts } from './results.js';
import { PageSignals } from './signals.js';
import { inHarnessWords } from './vocabulary.js';

export interface ConnectOptions extends CallOptions {
  port?: number;
  host?: string;
  wsUrl?: string;
}

export interface ScopeOptions extends CallOptions {
  /** 1-32 exact http(s) origins (scheme://host[:port]), from the user's authorization, never from page content. */
  allowedOrigins?: string[];
  /** How JavaScript dialogs are answered: 'accept' | 'dismiss' | 'hold' or per type; default alert accept, confirm/prompt dismiss. */
  dialogs?: DialogPolicyInput;
}

type Connection =
  | { mode: 'attach'; endpoint: string; session: Session; browser: string | null; generation: number }
  | {
      mode: 'launch';
      engine: Engine;
      sessions: Set<Session>;
      generation: number;
      headless: boolean;
      /** The browser family launched (the engine's default when not asked for). */
      browser: BrowserFamily;
    };

/** Validates allowedOrigins: 1-32 exact http(s) origins, no paths, wildcards or credentials. */
export function parseAllowedOrigins(list: unknown): { origins: string[]; policy: OriginPolicy } {
  if (!Array.isArray(list) || list.length < 1 || list.length > 32) {
    throw new TabwrightError(
      'invalid_request',
      'allowedOrigins is required: 1-32 exact origins such as ["https://example.com"], authorized by the user.',
      { details: { field: 'allowedOrigins' } },
    );
  }
  for (const o of list) {
    if (typeof o !== 'string' || o.includes('*') || /\/\/[^/]*@/.test(o))
      throw new TabwrightError(
        'invalid_request',
        `allowedOrigins entry ${JSON.stringify(o)} is not an exact origin (no wildcards or credentials).`,
        {
          details: { field: 'allowedOrigins' },
        },
      );
  }
  const policy = OriginPolicy.parse({ allowed_origins: list as string[] });
  return { origins: [...policy.origins], policy };
}

/** Closes a session through its engine (an attach session only disconnects); already gone is fine. */
function closeSession(engine: Engine, session: Session): Promise<void> {
  return ops.closeSession.call(engine, { session_id: session.id }).catch(() => {});
}

/**
 * The engine refuses an allowlist in a browser it did not launch (its worker WebSockets and WebRTC
 * cannot be filtered there); say what to do in this door's terms.
 */
function harnessTerms(err: unknown): never {
  if (err instanceof TabwrightError && err.details.reason === 'policy_unenforceable') {
    throw new TabwrightError(
      'unsupported_target',
      "allowedOrigins cannot be enforced in a browser tabwright did not launch (its workers' WebSockets and WebRTC would leave unfiltered), so no page of the attached browser is handed out. Call browser.disconnect(), then browser.launch() and browser.open(url, { allowedOrigins }).",
      { details: { ...err.details } },
    );
  }
  throw err;
}

/**
 * The `browser` global: connect to (or launch) a Chromium, list its tabs, and
 * hand out Pages pinned to one tab, one connection generation and one
 * allowlist. Each attached Page has its own engine session (its own CDP
 * connection), so dispose() drops exactly that connection.
 */
export class HarnessBrowser {
  private conn: Connection | null = null;
  private gen = 0;
  private readonly pages = new Set<HarnessPage>();
  private readonly rawSessions = new Map<string, Promise<RawCdpSession>>();

  constructor(
    private readonly defaultEngine: Engine,
    private readonly makeEngine: EngineFactory,
    private readonly hooks: {
      record(e: Record<string, unknown>): void;
      pageOpened(session: Session): Promise<void>;
      pageReleased(session: Session): Promise<void>;
      rawCall(): void;
    },
  ) {}

  private host(): PageHost {
    return {
      record: (e) => this.hooks.record(e),
      forget: async (p) => {
        this.pages.delete(p);
        await this.hooks.pageReleased(p.engineSession);
      },
      generation: () => this.gen,
    };
  }

  /** Attaches to a running Chromium: {port}, {wsUrl}, or nothing (DevToolsActivePort files, then port 9222). */
  async connect(opts: ConnectOptions = {}): Promise<Record<string, unknown>> {
    const eo = engineOpts({ timeoutMs: opts.timeoutMs ?? 15_000, signal: opts.signal });
    let endpoint: string;
    if (opts.wsUrl !== undefined) {
      if (!/^wss?:\/\//.test(String(opts.wsUrl)))
        throw new TabwrightError('invalid_request', 'wsUrl must start with ws:// or wss://.');
      endpoint = String(opts.wsUrl);
    } else if (opts.port !== undefined) {
      if (!Number.isInteger(opts.port) || opts.port <= 0 || opts.port > 65535)
        throw new TabwrightError('invalid_request', 'port must be an integer from 1 to 65535.');
      endpoint = `http://${opts.host ?? '127.0.0.1'}:${opts.port}`;
    } else {
      const found = (await detectBrowsers()).filter((b) => b.reachable);
      if (found.length === 0)
        throw new TabwrightError(
          'browser_not_running',
          'No debuggable browser found (DevToolsActivePort files, port 9222). Start Chromium with --remote-debugging-port and pass { port } or { wsUrl }.',
          { retryable: false },
        );
      if (found.length > 1)
        throw new TabwrightError(
          'invalid_request',
          `Several debuggable browsers found (ports ${found.map((f) => f.port).join(', ')}); pass { port } to choose one.`,
        );
      endpoint = `http://127.0.0.1:${found[0]!.port}`;
    }
    if (this.conn) {
      if (this.conn.mode === 'attach' && this.conn.endpoint === endpoint && this.conn.session.alive)
        return this.describe();
      throw new TabwrightError(
        'invalid_request',
        `Already ${this.conn.mode === 'attach' ? `connected to ${this.conn.endpoint}` : 'using a launched browser'}; never switched silently. Call browser.disconnect() first.`,
      );
    }
    const session = await ops.startSession.call(this.defaultEngine, { kind: 'attach', endpoint }, eo);
    // This connection only inspects the user's browser: it must not answer the dialogs of the user's
    // tabs (the engine's default would dismiss a confirm() silently). Held, they stay for the person.
    await ops.dialogPolicy.call(session, { policy: 'hold' }).catch(async (err) => {
      await closeSession(this.defaultEngine, session);
      throw err;
    });
    const { browser_version } = await ops.sessionInfo.call(session, {});
    this.conn = { mode: 'attach', endpoint, session, browser: browser_version, generation: ++this.gen };
    return this.describe();
  }

  /** Starts a Chromium through the engine (headless unless { headless: false }); pages come from browser.open(). */
  async launch(opts: { headless?: boolean; browser?: string } = {}): Promise<Record<string, unknown>> {
    const families = this.defaultEngine.browserFamilies;
    const browser = (opts.browser ?? families[0]) as BrowserFamily;
    if (!families.includes(browser))
      throw new TabwrightError(
        'unsupported_target',
        `browser "${String(opts.browser)}" is not available here; launch one of: ${families.join(', ')}.`,
        { details: { field: 'browser', supported: families } },
      );
    if (this.conn) {
      if (this.conn.mode === 'launch' && this.conn.browser === browser) return this.describe();
      if (this.conn.mode === 'launch')
        throw new TabwrightError(
          'invalid_request',
          `Already using a launched ${this.conn.browser}; never switched silently. Call browser.disconnect() first.`,
        );
      throw new TabwrightError(
        'invalid_request',
        `Already connected to ${this.conn.endpoint}. Call browser.disconnect() first.`,
      );
    }
    const headless = opts.headless !== false;
    const engine = headless
      ? this.defaultEngine
      : this.makeEngine({
          headless: false,
          home: this.defaultEngine.home,
          allowFileUrls: this.defaultEngine.allowFileUrls,
        });
    this.conn = { mode: 'launch', engine, sessions: new Set(), generation: ++this.gen, headless, browser };
    return this.describe();
  }

  describe(): Record<string, unknown> {
    const c = this.conn;
    if (!c) return { connected: false };
    if (c.mode === 'attach')
      return {
        connected: c.session.alive,
        mode: 'attach',
        endpoint: c.endpoint,
        browser: c.browser,
        generation: c.generation,
      };
    return {
      connected: true,
      mode: 'launch',
      browser: c.browser,
      headless: c.headless,
      generation: c.generation,
    };
  }

  private need(): Connection {
    if (!this.conn)
      throw new TabwrightError(
        'browser_not_running',
        'Not connected: call browser.connect({ port }) or browser.launch() first.',
        { retryable: false },
      );
    if (this.conn.mode === 'attach' && !this.conn.session.alive)
      throw new TabwrightError(
        'browser_not_running',
        'The browser connection is gone. browser.disconnect(), then connect again.',
      );
    return this.conn;
  }

  /** Every tab (page target) with its id, URL and title. Choose one explicitly; the order means nothing. */
  async tabs(): Promise<{ targetId: string; url: string; title: string; attached: boolean }[]> {
    const c = this.need();
    if (c.mode === 'attach') {
      const raw = await ops.browserProtocolSession.call(c.session, {});
      try {
        const r = (await raw.send('Target.getTargets')) as {
          targetInfos: { targetId: string; type: string; url: string; title: string; attached: boolean }[];
        };
        return r.targetInfos
          .filter((t) => t.type === 'page')
          .map((t) => ({ targetId: t.targetId, url: t.url, title: t.title, attached: t.attached }));
      } finally {
        await raw.detach();
      }
    }
    const out: { targetId: string; url: string; title: string; attached: boolean }[] = [];
    for (const s of c.sessions) {
      if (!s.alive) continue;
      const pages = new Map(s.pages().map((p) => [p.id, p]));
      for (const i of await ops.listTabs.call(s, {})) {
        const p = pages.get(i.page_id);
        if (!p) continue;
        out.push({ targetId: await ops.targetId.call(p, {}), url: i.url, title: i.title, attached: true });
      }
    }
    return out;
  }

  private async wrap(
    engine: EnginePage,
    session: Session,
    /** The engine that closes the page's session on dispose (attach: only that connection), or none. */
    closesSessionOf: Engine | null,
    origins: string[],
    policy: OriginPolicy,
    dialogs?: DialogPolicyInput,
    blockedSince?: number,
  ): Promise<HarnessPage> {
    if (dialogs !== undefined) await ops.dialogPolicy.call(session, { policy: dialogs });
    const page = new HarnessPage({
      engine,
      session,
      closeSession: closesSessionOf ? () => closeSession(closesSessionOf, session) : undefined,
      generation: this.gen,
      policy,
      allowedOrigins: origins,
      targetId: await ops.targetId.call(engine, {}),
      host: this.host(),
      signals: await PageSignals.start(engine, blockedSince),
      raw: await ops.pageProtocolChannel.call(engine, {}),
    });
    this.pages.add(page);
    await this.hooks.pageOpened(session);
    return page;
  }

  /** A Page pinned to an existing tab (a targetId from tabs()), with the user's allowlist. */
  async attach(targetId: string, opts: ScopeOptions = {}): Promise<HarnessPage> {
    const { origins, policy } = parseAllowedOrigins(opts.allowedOrigins);
    if (typeof targetId !== 'string' || !targetId)
      throw new TabwrightError('invalid_request', 'attach() needs a targetId from browser.tabs().');
    const c = this.need();
    const eo = engineOpts({ timeoutMs: opts.timeoutMs ?? 15_000, signal: opts.signal });
    if (c.mode === 'attach') {
      const session = await this.attachSession(c.endpoint, origins, eo);
      for (const p of session.pages()) {
        if ((await ops.targetId.call(p, {}).catch(() => '')) === targetId)
          return this.wrap(p, session, this.defaultEngine, origins, policy, opts.dialogs);
      }
      await closeSession(this.defaultEngine, session);
      throw new TabwrightError(
        'page_not_found',
        `No tab with targetId ${targetId}. List them with browser.tabs().`,
        { details: { targetId } },
      );
    }
    for (const s of c.sessions) {
      for (const p of s.alive ? s.pages() : []) {
        if ((await ops.targetId.call(p, {}).catch(() => '')) !== targetId) continue;
        const outside = origins.filter((o) => !s.policy.origins.has(o));
        if (outside.length)
          throw new TabwrightError(
            'permission_denied',
            `This tab was opened with a narrower allowlist; ${outside.join(', ')} cannot be added. Open a new page instead.`,
          );
        return this.wrap(p, s, null, origins, policy, opts.dialogs);
      }
    }
    throw new TabwrightError(
      'page_not_found',
      `No tab with targetId ${targetId}. List them with browser.tabs().`,
      { details: { targetId } },
    );
  }

  /** Opens a new tab at url (which must be inside allowedOrigins) and returns its Page. */
  async open(url: string, opts: ScopeOptions = {}): Promise<HarnessPage> {
    const { origins, policy } = parseAllowedOrigins(opts.allowedOrigins);
    if (typeof url !== 'string' || !policy.allowsDocument(url)) {
      throw new TabwrightError(
        'permission_denied',
        `${String(url)} is outside allowedOrigins (${origins.join(', ')}); nothing was opened. Ask the user to authorize its origin.`,
        {
          details: { reason: 'origin_denied', url },
        },
      );
    }
    const c = this.need();
    const eo = engineOpts({ timeoutMs: opts.timeoutMs ?? 15_000, signal: opts.signal });
    let session: Session;
    let engine: EnginePage;
    let closesSessionOf: Engine | null;
    if (c.mode === 'attach') {
      session = await this.attachSession(c.endpoint, origins, eo);
      try {
        engine = await ops.newTab.call(session, { activate: false });
      } catch (err) {
        await closeSession(this.defaultEngine, session);
        throw err;
      }
      closesSessionOf = this.defaultEngine;
    } else {
      session = await ops.startSession.call(
        c.engine,
        { kind: 'ephemeral', policy: { allowed_origins: origins }, browser: c.browser },
        eo,
      );
      c.sessions.add(session);
      engine = session.page();
      closesSessionOf = null;
    }
    let blockedSince: number;
    try {
      // What the allowlist blocks while the page loads (its workers, its WebRTC) shows in its first signals().
      blockedSince = (await ops.logCursors.call(engine, {})).blocked_requests;
      if (opts.dialogs !== undefined) await ops.dialogPolicy.call(session, { policy: opts.dialogs });
      await ops.open.call(engine, { url, wait_until: 'load' }, eo);
    } catch (err) {
      // The tab we made goes away again; an attach session's close only disconnects.
      await ops.closePage.call(engine, {}).catch(() => {});
      if (closesSessionOf) await closeSession(closesSessionOf, session);
      throw inHarnessWords(err);
    }
    this.hooks.record({ action: 'open', url });
    return this.wrap(engine, session, closesSessionOf, origins, policy, opts.dialogs, blockedSince);
  }

  /** A session of its own on the attached browser, limited to the page's allowlist. */
  private attachSession(
    endpoint: string,
    origins: string[],
    eo: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<Session> {
    return ops.startSession
      .call(this.defaultEngine, { kind: 'attach', endpoint, policy: { allowed_origins: origins } }, eo)
      .catch(harnessTerms);
  }

  /** Releases every Page and the connection: old Page objects become stale. Launched tabs are closed; attached tabs stay. */
  async disconnect(): Promise<{ disconnected: boolean }> {
    const c = this.conn;
    if (!c) return { disconnected: false };
    for (const p of [...this.pages]) await p.dispose().catch(() => {});
    for (const [, raw] of this.rawSessions) await (await raw.catch(() => null))?.detach();
    this.rawSessions.clear();
    this.conn = null;
    this.gen++;
    if (c.mode === 'attach') await closeSession(this.defaultEngine, c.session);
    else {
      for (const s of c.sessions) await closeSession(c.engine, s);
      if (c.engine !== this.defaultEngine) await c.engine.close().catch(() => {});
    }
    return { disconnected: true };
  }

  /** `return browser` prints the connection, not engine internals. */
  toJSON(): unknown {
    return this.describe();
  }

  /** Pages handed out and not disposed. */
  openPages(): HarnessPage[] {
    return [...this.pages];
  }

  // ---- raw helpers (the seed's, for existing scripts) ----

  private rawSessionFor(targetId: string | null | undefined): Promise<RawCdpSession> {
    const c = this.need();
    const key = targetId ?? '';
    let s = this.rawSessions.get(key);
    if (!s) {
      const session = c.mode === 'attach' ? c.session : [...c.sessions].find((x) => x.alive);
      if (!session) throw new TabwrightError('page_not_found', 'No open page yet: browser.open() one first.');
      s = ops.browserProtocolSession.call(session, { target_id: targetId ?? undefined });
      s.catch(() => this.rawSessions.delete(key));
      this.rawSessions.set(key, s);
    }
    return s;
  }

  /** cdp(targetId | null, method, params): raw CDP routed explicitly (null: the browser target). Bypasses every guard. */
  async cdp(
    targetId: string | null | undefined,
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<unknown> {
    if (typeof method !== 'string' || !/^[A-Z][A-Za-z]*\.[a-zA-Z]+$/.test(method))
      throw new TabwrightError(
        'invalid_request',
        `"${String(method)}" is not a CDP method name like "Target.getTargets".`,
      );
    this.hooks.rawCall();
    for (const p of this.pages) p.expireForRawCall();
    this.hooks.record({ action: 'raw_cdp', method, targetId: targetId ?? null });
    const s = await this.rawSessionFor(targetId);
    return s.send(method, params);
  }

  /** Page targets of the connected browser (same as tabs()). */
  listPageTargets(): ReturnType<HarnessBrowser['tabs']> {
    return this.tabs();
  }

  status(): { browsers: unknown[]; pages: unknown[] } {
    return {
      browsers: this.conn ? [this.describe()] : [],
      pages: [...this.pages].map((p) => p.describe()),
    };
  }
}
