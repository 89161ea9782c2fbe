import { TabwrightError } from '../../engine/errors.js';
import { log } from '../../engine/log.js';
import type {
  Backend,
  BackendBrowser,
  PlacementRequest,
  PlacementStatus,
  SessionPlacement,
} from '../backend.js';
import { type Capabilities, gridFamily } from './families.js';
import { GridBrowser } from './grid-browser.js';
import { gridStatus } from './grid-status.js';
import { GridReaper } from './reaper.js';
import {
  type GridEndpoint,
  GridUnreachable,
  gridEndpoint,
  WebDriverError,
  webdriver,
  within,
} from './webdriver.js';

export interface GridSettings {
  /** The Grid's URL (router or hub): http://host:4444. */
  url: string;
  /** Merged into every new-session request (platformName, node labels `se:…`, goog:chromeOptions). */
  capabilities?: Capabilities;
  /** Sent with every WebDriver request and the CDP connection (e.g. Authorization). */
  headers?: Record<string, string>;
}

/** Pause between two attempts after "session not created" (a dead node the hub still lists, a busy node). */
const RETRY_PAUSE_MS = 250;
/** How often the Grid's status is read while a session request waits (to explain a deadline). */
const QUEUE_WATCH_MS = 1000;

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
}

/**
 * Ephemeral sessions on a Selenium Grid 4: each tabwright session is a Grid session of its own
 * (WebDriver new session, then the family backend over the Grid-proxied endpoint), deleted when
 * the session closes, when its node is lost, when the engine closes, and by the reaper when this
 * process dies. The Grid does the rest: it places sessions on nodes, queues them when every slot
 * is taken and drops dead nodes.
 */
export class GridPlacement implements SessionPlacement {
  readonly kind = 'grid' as const;
  readonly url: string;
  readonly sharesLoopback: boolean;
  private readonly grid: GridEndpoint;
  private readonly capabilities: Capabilities;
  private readonly live = new Set<GridBrowser>();
  private readonly reaper: GridReaper;

  constructor(settings: GridSettings) {
    let u: URL;
    try {
      u = new URL(settings.url);
    } catch {
      throw new TabwrightError(
        'invalid_request',
        `--grid "${settings.url}" is not a URL; use the Grid's address, e.g. http://127.0.0.1:4444.`,
        { details: { field: 'grid' } },
      );
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new TabwrightError('invalid_request', `--grid must be an http(s) URL; got ${u.protocol}`, {
        details: { field: 'grid' },
      });
    this.grid = gridEndpoint(`${u.origin}${u.pathname}`, settings.headers);
    this.url = this.grid.base;
    this.sharesLoopback = isLoopbackHost(u.hostname);
    this.capabilities = settings.capabilities ?? {};
    this.reaper = new GridReaper(this.grid);
  }

  status(timeoutMs: number): Promise<PlacementStatus> {
    return gridStatus(this.grid, timeoutMs);
  }

  async acquire(backend: Backend, req: PlacementRequest): Promise<BackendBrowser> {
    const family = gridFamily(backend.name);
    const caps = family.capabilities(req, this.capabilities, this.sharesLoopback);
    const created = await this.newSession(caps, req);
    this.reaper.created(created.id);
    let inner: BackendBrowser;
    try {
      inner = await family.connect(
        backend,
        { ...created, gridBase: this.grid.base, headers: this.grid.headers },
        Math.max(1, req.remainingMs()),
      );
    } catch (err) {
      await this.deleteSession(created.id);
      if (err instanceof TabwrightError && err.code !== 'browser_not_running') throw err;
      throw new TabwrightError(
        'browser_not_running',
        `The Grid at ${this.url} created a session but its browser could not be reached over the Grid's CDP proxy: ${firstLine(err)}. Retry; check that the Grid's router forwards WebSockets (/session/<id>/se/cdp).`,
        { retryable: true, details: { grid: this.url } },
      );
    }
    const browser = new GridBrowser(inner, this.grid, created.id, (id, deleted) => {
      this.live.delete(browser);
      if (deleted) this.reaper.deleted(id);
    });
    this.live.add(browser);
    log.info({ grid: this.url, grid_session: created.id }, 'Grid session placed');
    return browser;
  }

  /**
   * WebDriver new session within the caller's deadline. "session not created" is tried again (the
   * hub still lists a dead node for 20-30 s and routes some requests there); a request the Grid
   * keeps in its queue is withdrawn when the deadline passes (the request is aborted).
   */
  private async newSession(
    caps: Capabilities,
    req: PlacementRequest,
  ): Promise<{ id: string; capabilities: Capabilities }> {
    const watch = this.watchQueue(req.signal);
    let lastError = '';
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const value = (await webdriver(this.grid, 'POST', '/session', {
            body: { capabilities: { alwaysMatch: caps } },
            signal: req.signal,
          })) as { sessionId?: string; capabilities?: Capabilities };
          if (!value?.sessionId) throw new WebDriverError(200, 'unknown error', 'no sessionId in the answer');
          return { id: value.sessionId, capabilities: value.capabilities ?? {} };
        } catch (err) {
          if (req.signal.aborted) throw this.timedOut(watch.latest(), lastError);
          if (err instanceof GridUnreachable) throw this.unreachable(err.message);
          if (err instanceof WebDriverError && err.error === 'unauthorized')
            throw new TabwrightError(
              'setup_required',
              `The Grid at ${this.url} refused our credentials (HTTP ${err.status}). Check --grid-header (or TABWRIGHT_GRID_HEADER), e.g. "Authorization: Basic …".`,
              { details: { grid: this.url, reason: 'unauthorized' } },
            );
          if (err instanceof WebDriverError && /no nodes support/i.test(err.message))
            throw new TabwrightError(
              'setup_required',
              `No node of the Grid at ${this.url} offers what the session asks for (${JSON.stringify(pick(caps))}): ${err.message}. Add a Chrome/Chromium node, or change --grid-capabilities.`,
              { details: { grid: this.url, reason: 'no_matching_node' } },
            );
          lastError = err instanceof Error ? err.message : String(err);
          const retry = err instanceof WebDriverError && err.error === 'session not created';
          if (!retry) throw this.failed(lastError);
          log.debug({ grid: this.url, attempt, err: lastError }, 'Grid session not created; trying again');
          await pause(RETRY_PAUSE_MS, req.signal);
        }
      }
    } finally {
      watch.stop();
    }
  }

  /** Reads the Grid's status every second while a request waits: a deadline can then say the Grid is full. */
  private watchQueue(signal: AbortSignal) {
    let latest: PlacementStatus | undefined;
    let stopped = false;
    const read = () =>
      void gridStatus(this.grid, QUEUE_WATCH_MS).then((s) => {
        // A read that timed out (a busy hub answers /status late) says nothing about the slots: it
        // must not replace the last answer, or a full Grid would be reported as merely slow.
        if (!stopped && (s.reachable || !latest?.reachable)) latest = s;
      });
    read();
    const timer = setInterval(read, QUEUE_WATCH_MS);
    timer.unref();
    const stop = () => {
      stopped = true;
      clearInterval(timer);
    };
    signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    return { latest: () => latest, stop };
  }

  private timedOut(s: PlacementStatus | undefined, lastError: string): TabwrightError {
    const full = s?.reachable && (s.free_slots === 0 || (s.queue ?? 0) > 0);
    if (full)
      return new TabwrightError(
        'not_ready',
        `The Selenium Grid at ${this.url} is full: all ${s.slots} slots are busy${s.queue ? ` and ${s.queue} requests wait in its queue` : ''}. The request was withdrawn from the queue at the deadline; retry later or with a larger timeout_ms, or add nodes to the Grid.`,
        {
          retryable: true,
          details: {
            grid: this.url,
            reason: 'grid_full',
            slots: s.slots,
            free_slots: s.free_slots,
            queue: s.queue,
          },
        },
      );
    return new TabwrightError(
      'not_ready',
      `The Grid at ${this.url} did not start a session before the deadline${lastError ? ` (last answer: ${lastError})` : ''}. Retry with a larger timeout_ms; run \`tabwright doctor\` to see the Grid's nodes.`,
      { retryable: true, details: { grid: this.url, reason: 'grid_slow' } },
    );
  }

  private unreachable(why: string): TabwrightError {
    return new TabwrightError(
      'setup_required',
      `Cannot reach the Selenium Grid at ${this.url} (${why}). Check that the Grid (hub or router) runs and that --grid / TABWRIGHT_GRID_URL names it, e.g. http://127.0.0.1:4444; \`tabwright doctor\` reports what it sees.`,
      { details: { grid: this.url, reason: 'grid_unreachable' } },
    );
  }

  private failed(why: string): TabwrightError {
    return new TabwrightError(
      'browser_not_running',
      `The Grid at ${this.url} could not start a browser: ${why}. Retry; if it keeps failing, check the node's logs and its driver and browser configuration.`,
      { retryable: true, details: { grid: this.url, reason: 'session_not_created' } },
    );
  }

  private async deleteSession(id: string): Promise<void> {
    const deleted = await webdriver(this.grid, 'DELETE', `/session/${id}`, { signal: within(5000) }).then(
      () => true,
      () => false,
    );
    if (deleted) this.reaper.deleted(id);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.live].map((b) => b.close()));
    this.reaper.stop();
  }

  async forceClose(): Promise<void> {
    // Each delete is bounded (DELETE_TIMEOUT_MS); one the Grid did not confirm stays with the reaper.
    await Promise.allSettled([...this.live].map((b) => b.endSession()));
  }
}

function pick(caps: Capabilities): Capabilities {
  const { 'goog:chromeOptions': _omit, ...rest } = caps;
  return rest;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
