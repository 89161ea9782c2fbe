import type { Page } from 'playwright-core';
import { type CdpSend, directSender } from './direct-cdp.js';

/**
 * A CDP session of our own on the page, for the engine's hottest calls: the
 * action pipeline's guard and settle reads (main frame) and inserted text.
 * One protocol hop instead of playwright-core's client/server layers and
 * argument wrapping: about 1.5 ms less per call on a small machine, which is
 * a third of a typed receipt; and its commands go to playwright-core's
 * server layer directly, past its client layer (direct-cdp.ts).
 *
 * Only for functions that take and return plain JSON and run in the main
 * world (where the injected scripts live): the contract of
 * BackendFrame.evaluate. When the session cannot be had (attached browsers
 * that refuse a second session, a session that went away), callers fall
 * back to playwright.
 */
export class FastChannel {
  private session: Promise<CdpSend | null> | undefined;

  constructor(private readonly page: Page) {}

  private sender(): Promise<CdpSend | null> {
    if (!this.session) {
      const created = this.page
        .context()
        .newCDPSession(this.page)
        .then(directSender)
        .catch(() => null);
      // A session that never comes must not hold every call: playwright serves them instead.
      const timeout = new Promise<null>((resolve) => {
        const t: NodeJS.Timeout = setTimeout(() => resolve(null), 2000);
        t.unref();
      });
      const raced = Promise.race([created, timeout]);
      this.session = raced;
      // A session that comes after the race gave up is adopted: a slow first open (a page busy
      // loading, the renderer GC's open from the load handler) must not leave the channel cached as
      // "no session" for the page's life. A refused session (null) stays cached.
      void created.then((s) => {
        if (s && this.session === raced) this.session = Promise.resolve(s);
      });
    }
    return this.session;
  }

  /**
   * A send that failed because our session is gone while the page lives on:
   * forget the session (the next call makes a new one) and let playwright serve.
   */
  private lost(err: unknown): boolean {
    const gone = /Target page, context or browser has been closed|Session closed|detached/i.test(String(err));
    if (!gone || this.page.isClosed()) return false;
    this.session = undefined;
    return true;
  }

  /** Calls `fn(arg)` in the main frame's main world; `ok: false` when the channel is unavailable (then nothing ran). */
  async call(
    fn: (arg: never) => unknown,
    arg: unknown,
  ): Promise<{ ok: true; value: unknown } | { ok: false }> {
    const send = await this.sender();
    if (!send) return { ok: false };
    let r: EvaluateReply;
    try {
      r = (await send('Runtime.evaluate', {
        // No argument at all for undefined, so the function's default parameter applies.
        expression: `(${fn.toString()})(${arg === undefined ? '' : JSON.stringify(arg)})`,
        awaitPromise: true,
        returnByValue: true,
        // As playwright's evaluate: page code may count on a user gesture (focus, selection).
        userGesture: true,
      })) as EvaluateReply;
    } catch (err) {
      // Our session went away (almost always before the call reached the page): playwright serves it.
      if (this.lost(err)) return { ok: false };
      throw rewrite(err);
    }
    if (r.exceptionDetails) {
      const d = r.exceptionDetails;
      throw new Error(`page.evaluate: ${d.exception?.description ?? String(d.exception?.value ?? d.text)}`);
    }
    const u = r.result.unserializableValue;
    if (u !== undefined) return { ok: true, value: u.endsWith('n') ? BigInt(u.slice(0, -1)) : Number(u) };
    return { ok: true, value: r.result.value };
  }

  /**
   * A full garbage collection of the renderer's JavaScript heap (HeapProfiler.collectGarbage on
   * the page's target: the documents this page left behind and what only they held, DOM included).
   * False when the channel is unavailable; an error of the call is swallowed (nothing depends on it).
   */
  async collectGarbage(): Promise<boolean> {
    const send = await this.sender();
    if (!send) return false;
    try {
      await send('HeapProfiler.collectGarbage');
      return true;
    } catch (err) {
      this.lost(err);
      return false;
    }
  }

  /**
   * The viewport as it is on screen, in device pixels (`Page.captureScreenshot` without a clip),
   * encoded for speed: Chromium's fast PNG/JPEG settings (files about a third larger) cost the browser
   * process less than half the CPU of its default encoding, and nothing runs in the page (playwright's
   * screenshot first evaluates in every frame). Null when the channel is unavailable (nothing was taken).
   */
  async captureViewport(format: 'png' | 'jpeg', quality: number | undefined): Promise<Buffer | null> {
    const send = await this.sender();
    if (!send) return null;
    try {
      const r = (await send('Page.captureScreenshot', {
        format,
        ...(format === 'jpeg' ? { quality } : {}),
        optimizeForSpeed: true,
      })) as { data: string };
      return Buffer.from(r.data, 'base64');
    } catch (err) {
      if (this.lost(err)) return null;
      throw err;
    }
  }

  /** Input.insertText: one input event with the whole text, as a paste or an IME commit. */
  async insertText(text: string): Promise<boolean> {
    const send = await this.sender();
    if (!send) return false;
    try {
      await send('Input.insertText', { text });
    } catch (err) {
      if (this.lost(err)) return false;
      throw err;
    }
    return true;
  }
}

interface EvaluateReply {
  result: { value?: unknown; unserializableValue?: string };
  exceptionDetails?: { text: string; exception?: { description?: string; value?: unknown } };
}

/** CDP's wording for a document that went away mid-call, in playwright's (which the error translation knows). */
function rewrite(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (
    /Inspected target navigated or closed|Cannot find context with specified id|Execution context was destroyed/i.test(
      message,
    )
  )
    return new Error('page.evaluate: Execution context was destroyed, most likely because of a navigation');
  if (/Object reference chain is too long|could ?n[o']t be returned by value/i.test(message))
    return new Error(
      'page.evaluate: the result is not plain JSON (BackendFrame.evaluate returns JSON values only)',
    );
  return err instanceof Error ? err : new Error(message);
}
