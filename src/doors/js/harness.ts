import type { Engine, EngineOptions } from '../../engine/engine.js';
import type { Logger } from '../../engine/log.js';
import type { Session } from '../../engine/session.js';
import { HarnessBrowser } from './browser.js';
import { cdpSession, type RawSend, sessionClass } from './cdp-session.js';
import { detectBrowsers, resolveWsUrl } from './discovery.js';
import { Locator, PRESS_KEYS } from './locator.js';
import { HarnessPage } from './page.js';
import { Recorder } from './recording.js';

/** Makes an engine with the composition root's backends (src/cli/compose.ts). */
export type EngineFactory = (settings: Omit<EngineOptions, 'backends'>) => Engine;

/**
 * Everything a snippet sees: `browser`, the classes, the seed's raw helpers
 * and the recording globals. One Engine per daemon; the door holds no
 * browser logic of its own.
 */
export class Harness {
  readonly engine: Engine;
  readonly browser: HarnessBrowser;
  readonly recorder: Recorder;

  constructor(opts: { log: Logger; makeEngine: EngineFactory }) {
    this.engine = opts.makeEngine({});
    this.recorder = new Recorder(this.engine.home, opts.log);
    this.browser = new HarnessBrowser(this.engine, opts.makeEngine, {
      record: (e) => this.recorder.record(e),
      pageOpened: (s: Session) => this.recorder.addSession(s),
      pageReleased: (s: Session) => this.recorder.removeSession(s),
      rawCall: () => {},
    });
  }

  globals(): Record<string, unknown> {
    const b = this.browser;
    const send: RawSend = (targetId, method, params) => b.cdp(targetId, method, params);
    return {
      browser: b,
      Page: HarnessPage,
      Locator,
      PRESS_KEYS,
      cdp: (targetId: string | null, method: string, params?: Record<string, unknown>) =>
        b.cdp(targetId, method, params),
      session: cdpSession(send, null),
      Session: sessionClass(send),
      listPageTargets: () => b.listPageTargets(),
      detectBrowsers,
      resolveWsUrl,
      startRecording: (o?: { consent?: boolean; name?: string }) =>
        this.recorder.start(o, [...new Set(b.openPages().map((p) => p.engineSession))]),
      stopRecording: () => this.recorder.stop(),
      recordingStatus: () => this.recorder.status(),
      sleep: (ms: number) =>
        new Promise((r) => setTimeout(r, Math.max(0, Math.min(Number(ms) || 0, 60_000)))),
    };
  }

  async status(): Promise<{ browsers: unknown[]; pages: unknown[]; recording: unknown }> {
    return { ...this.browser.status(), recording: this.recorder.status() };
  }

  async close(): Promise<void> {
    await this.recorder.stop().catch(() => {});
    await this.browser.disconnect().catch(() => {});
    await this.engine.close().catch(() => {});
  }
}
