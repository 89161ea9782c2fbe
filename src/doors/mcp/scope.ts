import { log, narrowPolicy, type OriginPolicyInput, TabwrightError } from '../../engine/api.js';
import type { Engine, SessionRequest } from '../../engine/engine.js';
import type { Page } from '../../engine/page.js';
import type { Session } from '../../engine/session.js';

export interface ScopeOptions {
  /** Origin policy of the sessions this client starts without one (CLI --allow-origin). */
  policy?: OriginPolicyInput;
  /** Directories `upload` may take files from (default: the working directory and the OS temp dir). */
  uploadRoots?: string[];
  /** Called with every session this client starts (the stdio door records browser pids). */
  onSession?: (session: Session) => void;
}

/**
 * What one MCP client owns: the engine sessions it started. Page tools only
 * see pages of these sessions, so two clients never share a tab by accident.
 * The first page tool starts an ephemeral session; `close()` closes them all
 * (client gone, transport closed, process exiting).
 */
export class ClientScope {
  private readonly owned = new Map<string, Session>();
  private currentId: string | null = null;
  private starting: Promise<Session> | null = null;
  private closed = false;

  constructor(
    readonly engine: Engine,
    readonly opts: ScopeOptions = {},
  ) {}

  /** The client's current session, started on first use (and again after its browser died). */
  async session(): Promise<Session> {
    const cur = this.currentId ? this.owned.get(this.currentId) : undefined;
    if (cur?.alive) return cur;
    if (cur) await this.closeSession(cur.id).catch(() => {});
    this.starting ??= this.startSession({}).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  async startSession(req: SessionRequest, timeoutMs?: number): Promise<Session> {
    if (this.closed) throw new TabwrightError('not_ready', 'This MCP connection is closing; reconnect.');
    // The server's --allow-origin is a ceiling: a client may narrow it, never widen it (engine rule).
    const withPolicy = { ...req, policy: narrowPolicy(this.opts.policy, req.policy) } as SessionRequest;
    const s = await this.engine.startSession(withPolicy, { timeoutMs: timeoutMs ?? 30_000 });
    if (this.closed) {
      await this.engine.closeSession(s.id).catch(() => {});
      throw new TabwrightError('not_ready', 'This MCP connection is closing; reconnect.');
    }
    this.owned.set(s.id, s);
    this.currentId = s.id;
    this.opts.onSession?.(s);
    return s;
  }

  /** Sessions of this client, current first. */
  sessions(): Session[] {
    const all = [...this.owned.values()];
    return all.sort((a, b) => (a.id === this.currentId ? -1 : b.id === this.currentId ? 1 : 0));
  }

  get currentSessionId(): string | null {
    return this.currentId;
  }

  useSession(id: string): Session {
    const s = this.owned.get(id);
    if (!s) {
      throw new TabwrightError(
        'session_not_found',
        `No session ${id} in this MCP connection. Call session with action "list".`,
        { details: { session_id: id } },
      );
    }
    this.currentId = id;
    return s;
  }

  /** The page `pageId` of one of this client's sessions, or the current session's active page. */
  async page(pageId?: string): Promise<Page> {
    if (!pageId) return (await this.session()).page();
    for (const s of this.owned.values()) if (s.hasPage(pageId)) return s.page(pageId);
    throw new TabwrightError(
      'page_not_found',
      `No open page ${pageId} in this MCP connection. Call tabs to list the open pages.`,
      { details: { page_id: pageId } },
    );
  }

  /** The session holding `pageId`, or the current one. */
  async sessionOf(pageId?: string): Promise<Session> {
    if (!pageId) return this.session();
    return (await this.page(pageId)).session;
  }

  async closeSession(id: string): Promise<void> {
    if (!this.owned.delete(id)) return;
    if (this.currentId === id) this.currentId = this.owned.keys().next().value ?? null;
    await this.engine.closeSession(id).catch((err) => {
      if (!(err instanceof TabwrightError && err.code === 'session_not_found')) throw err;
    });
  }

  /** Closes every session this client started. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const ids = [...this.owned.keys()];
    await this.starting?.catch(() => {});
    const all = [...new Set([...ids, ...this.owned.keys()])];
    await Promise.allSettled(all.map((id) => this.closeSession(id)));
    if (all.length) log.info({ sessions: all }, 'mcp: client scope closed');
  }
}
