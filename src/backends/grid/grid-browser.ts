import { log } from '../../engine/log.js';
import type { BackendBrowser, BackendContext, ContextNetworkOptions, LaunchedProcess } from '../backend.js';
import type { RawBackendOps } from '../raw.js';
import { type GridEndpoint, GridUnreachable, WebDriverError, webdriver, within } from './webdriver.js';

/** How often a Grid session is probed: the probe is also the traffic that keeps an idle session alive. */
export const PROBE_INTERVAL_MS = 1000;
/** A probe that takes longer than this is given up (a dead node's router answers in well under 0.1 s). */
const PROBE_TIMEOUT_MS = 1500;
/** Failed probes in a row (errors the Grid answered) that mean the session is gone: one may be a hiccup. */
const PROBE_FAILURES = 2;
/**
 * How long probes may go unanswered before the session counts as gone: a silent Grid is more likely
 * busy (an overloaded machine answers late) than dead, since a dead node's router answers at once.
 */
const PROBE_SILENCE_MS = 20_000;
const DELETE_TIMEOUT_MS = 5000;

/**
 * A browser on a Grid node: the family backend's browser (connected over the Grid-proxied endpoint)
 * plus the Grid session it lives in. It probes that session over WebDriver every second: the
 * Grid counts the probe as traffic (an idle CDP connection does not, and the node would end the
 * session after its --session-timeout), and when the node dies the CDP connection may stay open
 * and hang, while the probe fails at once: the browser is then reported disconnected, so the
 * session's calls fail with browser_not_running in seconds. Closing it deletes the Grid session.
 */
export class GridBrowser implements BackendBrowser {
  readonly family: BackendBrowser['family'];
  readonly label: string;
  private gone = false;
  private readonly listeners: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;
  private probing = false;
  private failures = 0;
  private lastAnswer = Date.now();
  private deleted: Promise<void> | undefined;

  constructor(
    private readonly inner: BackendBrowser,
    private readonly grid: GridEndpoint,
    readonly gridSessionId: string,
    /** `deleted`: the Grid no longer holds the session (false: the delete did not get through). */
    private readonly onReleased: (id: string, deleted: boolean) => void,
  ) {
    this.family = inner.family;
    this.label = `${inner.label} on Selenium Grid`;
    inner.onDisconnected(() => this.lost('connection closed'));
    this.timer = setInterval(() => void this.probe(), PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.gone) return;
    this.probing = true;
    try {
      await webdriver(this.grid, 'GET', `/session/${this.gridSessionId}/window/handles`, {
        signal: within(PROBE_TIMEOUT_MS),
      });
      this.failures = 0;
      this.lastAnswer = Date.now();
    } catch (err) {
      if (err instanceof WebDriverError || err instanceof GridUnreachable) {
        // The Grid no longer knows the session (its node is gone or ended it): no need to ask again.
        const unknown = err instanceof WebDriverError && err.error === 'invalid session id';
        this.failures = unknown ? PROBE_FAILURES : this.failures + 1;
        this.lastAnswer = Date.now();
        if (this.failures >= PROBE_FAILURES) this.lost(err.message);
      } else if (Date.now() - this.lastAnswer > PROBE_SILENCE_MS) {
        this.lost(`the Grid did not answer for ${PROBE_SILENCE_MS / 1000} s`);
      }
    } finally {
      this.probing = false;
    }
  }

  /** The session is lost (node died, connection closed): listeners fire once, the Grid session is deleted. */
  private lost(why: string): void {
    if (this.gone) return;
    this.gone = true;
    clearInterval(this.timer);
    log.warn({ grid_session: this.gridSessionId, why }, 'Grid session lost');
    void this.release();
    void this.inner.close().catch(() => {});
    for (const l of this.listeners.splice(0)) l();
  }

  /** Deletes the Grid session once (best effort: a dead node's session is already gone). */
  private release(): Promise<void> {
    this.deleted ??= webdriver(this.grid, 'DELETE', `/session/${this.gridSessionId}`, {
      signal: within(DELETE_TIMEOUT_MS),
    }).then(
      () => this.onReleased(this.gridSessionId, true),
      (err: unknown) => {
        // The Grid no longer knows it: gone. Otherwise (a slow or unreachable Grid) the reaper keeps
        // it and tries again when this process ends.
        const gone = err instanceof WebDriverError && err.error === 'invalid session id';
        this.onReleased(this.gridSessionId, gone);
        log.debug({ grid_session: this.gridSessionId, err: String(err) }, 'Grid session delete failed');
      },
    );
    return this.deleted;
  }

  version(): string {
    return this.inner.version();
  }
  isConnected(): boolean {
    return !this.gone && this.inner.isConnected();
  }
  onDisconnected(listener: () => void): void {
    if (this.gone) queueMicrotask(listener);
    else this.listeners.push(listener);
  }
  newContext(opts?: ContextNetworkOptions): Promise<BackendContext> {
    return this.inner.newContext(opts);
  }
  defaultContext(): BackendContext | undefined {
    return this.inner.defaultContext();
  }
  async close(): Promise<void> {
    const wasGone = this.gone;
    this.gone = true;
    clearInterval(this.timer);
    // The browser is the Grid's: disconnect (closing our contexts), then end the Grid session, which
    // quits the browser and frees the slot. A hung connection never holds the slot.
    if (!wasGone)
      await Promise.race([
        this.inner.close().catch(() => {}),
        new Promise((r) => setTimeout(r, DELETE_TIMEOUT_MS).unref()),
      ]);
    await this.release();
    if (!wasGone) for (const l of this.listeners.splice(0)) l();
  }
  pid(): Promise<number | undefined> {
    // A process on another machine: its pid means nothing here.
    return Promise.resolve(undefined);
  }
  raw(): RawBackendOps | undefined {
    const r = this.inner.raw();
    // Raw browser-level sessions belong to the connection this browser wraps.
    return r && { ...r, browserCdpSession: (b, t) => r.browserCdpSession(b === this ? this.inner : b, t) };
  }
  launchedProcess(): LaunchedProcess | null {
    return null;
  }
  forceClose(): void {
    void this.endSession();
  }

  /** Ends the Grid session now (no context is closed first); resolves once the Grid was asked. */
  endSession(): Promise<void> {
    this.gone = true;
    clearInterval(this.timer);
    return this.release();
  }
}
