import type { BrowserContext, CDPSession, Frame, Page, Request as PwRequest } from 'playwright-core';
import { firstLine } from '../../engine/errors.js';
import type {
  BackendConsoleMessage,
  BackendDialog,
  BackendDownload,
  BackendFileChooser,
  BackendFrame,
  BackendPage,
  BackendPageEmulation,
  DialogType,
  NavigationResult,
  NetworkEvent,
  RequestLogEvent,
  ScreencastFrame,
  ScreencastOptions,
  ScreenshotRequest,
  ScreenshotResult,
  WaitUntil,
} from '../backend.js';
import { evaluable } from '../evaluable.js';
import { imageSize } from '../image-size.js';
import { withTimeout as boundCall } from '../timeout.js';
import { ChromiumInput, setFilesInFrame } from './chromium-input.js';
import { FastChannel } from './fast-channel.js';
import { failureText } from './in-browser-refusal.js';
import { playwrightCore } from './load-playwright.js';
import { RequestKeys } from './request-objects.js';
import { translatePlaywrightError } from './translate-error.js';

export class ChromiumFrame implements BackendFrame {
  constructor(
    readonly pw: Frame,
    readonly id: string,
    readonly parentId: string | null,
    private readonly browserAlive: () => boolean,
    /** The page's own CDP session, for the main frame's calls (see FastChannel). */
    private readonly fast: FastChannel | null = null,
  ) {}

  url(): string {
    return this.pw.url();
  }

  name(): string {
    return this.pw.name();
  }

  isDetached(): boolean {
    return this.pw.isDetached();
  }

  async evaluateExpression(expression: string, timeoutMs: number): Promise<unknown> {
    try {
      return await withTimeout(this.pw.evaluate(evaluable(expression)), timeoutMs);
    } catch (err) {
      throw translatePlaywrightError(err, {
        operation: 'page.eval',
        timeoutMs,
        browserAlive: this.browserAlive(),
      });
    }
  }

  async evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R> {
    try {
      if (this.fast) {
        const r = await withTimeout(this.fast.call(fn as (arg: never) => unknown, arg), timeoutMs);
        if (r.ok) return r.value as R;
      }
      // biome-ignore lint/suspicious/noExplicitAny: playwright's evaluate generics do not accept a generic A.
      return (await withTimeout(this.pw.evaluate(fn as any, arg), timeoutMs)) as R;
    } catch (err) {
      throw translatePlaywrightError(err, {
        operation: 'page.eval',
        timeoutMs,
        browserAlive: this.browserAlive(),
      });
    }
  }

  setInputFiles<A>(
    locate: (arg: A) => unknown,
    arg: A,
    files: string[],
    timeoutMs: number,
  ): Promise<boolean> {
    return withTimeout(
      setFilesInFrame(this.pw, locate as (arg: unknown) => unknown, arg, files, this.browserAlive),
      timeoutMs,
    );
  }

  async evaluateOnOwner<R, A>(fn: (el: unknown, arg: A) => R, arg: A, timeoutMs: number): Promise<R | null> {
    if (!this.pw.parentFrame()) return null;
    try {
      const handle = await withTimeout(this.pw.frameElement(), timeoutMs);
      try {
        // biome-ignore lint/suspicious/noExplicitAny: see evaluate.
        return (await withTimeout(handle.evaluate(fn as any, arg), timeoutMs)) as R;
      } finally {
        void handle.dispose().catch(() => {});
      }
    } catch (err) {
      if (this.pw.isDetached()) return null;
      throw translatePlaywrightError(err, {
        operation: 'page.eval',
        timeoutMs,
        browserAlive: this.browserAlive(),
      });
    }
  }
}

export class ChromiumPage implements BackendPage {
  private readonly frameHandles = new WeakMap<Frame, ChromiumFrame>();
  private frameSeq = 0;
  readonly input: ChromiumInput;
  readonly emulation: BackendPageEmulation;
  private readonly fast: FastChannel;
  /** The engine's key of each request in flight (request-objects.ts). */
  private readonly requestKeys = new RequestKeys();

  constructor(
    readonly pw: Page,
    private readonly browserAlive: () => boolean,
    private readonly wrap: (p: Page) => ChromiumPage,
    /** False on attached user-owned browsers (cdp, remote): their tabs' renderers are not ours to GC. */
    ownedBrowser = true,
  ) {
    this.fast = new FastChannel(pw);
    if (ownedBrowser) this.collectEveryDocuments(rendererGcEvery());
    this.input = new ChromiumInput(pw, browserAlive, this.fast);
    this.emulation = {
      setViewport: (size) => pw.setViewportSize(size).catch((e) => this.fail(e, 'page.set_viewport')),
      emulateMedia: (m) => pw.emulateMedia(m).catch((e) => this.fail(e, 'page.emulate_media')),
      pdf: (timeoutMs) =>
        Promise.race([
          pw.pdf({ printBackground: true }),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`page.pdf: Timeout ${timeoutMs}ms exceeded.`)), timeoutMs),
          ),
        ]).catch((e) => this.fail(e, 'page.pdf', timeoutMs)),
    };
  }

  /** Documents loaded in the main frame since the renderer's last full GC (collectEveryDocuments). */
  private documentsSinceGc = 0;
  /** Full GCs of the page's renderer asked for so far. */
  rendererGcs = 0;

  /**
   * Every `n`th document the main frame loads (its `load` event), a full GC of the page's renderer
   * (Bounds in docs/ARCHITECTURE.md): a page that stays open for hours and goes from document to
   * document otherwise keeps its old documents' heaps (and their DOM) until V8 decides to collect,
   * and V8's heap limit grows with what it keeps. One GC costs the renderer a few milliseconds of a
   * small heap, against the hundreds a navigation costs; nobody waits for its reply. Opening the
   * fast channel's session from here cannot leave it cached as unavailable (a session that comes
   * after FastChannel's 2 s race is adopted). Not on attached browsers (cdp, remote): a user's own
   * Chrome tabs are not ours to GC.
   */
  private collectEveryDocuments(n: number): void {
    if (n <= 0) return;
    this.pw.on('load', () => {
      if (++this.documentsSinceGc < n) return;
      this.documentsSinceGc = 0;
      this.rendererGcs++;
      void this.fast.collectGarbage();
    });
  }

  private fail(err: unknown, operation: string, timeoutMs?: number, navigation = false): never {
    throw translatePlaywrightError(err, {
      operation,
      navigation,
      timeoutMs,
      browserAlive: this.browserAlive(),
    });
  }

  url(): string {
    return this.pw.url();
  }

  async title(timeoutMs: number): Promise<string> {
    try {
      return await withTimeout(this.pw.title(), timeoutMs);
    } catch (err) {
      this.fail(err, 'page.title', timeoutMs);
    }
  }

  async goto(url: string, waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    const started = Date.now();
    try {
      const res = await this.pw.goto(url, { waitUntil, timeout: timeoutMs });
      return { url: this.pw.url(), status: res?.status() ?? null };
    } catch (err) {
      if (String(err).includes('net::ERR_INVALID_AUTH_CREDENTIALS')) {
        await this.errorPageCommitted(timeoutMs - (Date.now() - started));
      }
      this.fail(err, 'page.open', timeoutMs, true);
    }
  }

  /**
   * An unanswered 401 rejects goto before Chromium commits its error page; left pending, that commit
   * would cut off the caller's next navigation. Waits for it (at most 2 s of the remaining budget).
   */
  private async errorPageCommitted(remainingMs: number): Promise<void> {
    const main = this.pw.mainFrame();
    const committed = this.pw
      .waitForEvent('framenavigated', {
        predicate: (f) => f === main && f.url().startsWith('chrome-error:'),
        timeout: Math.max(1, Math.min(2_000, remainingMs)),
      })
      .catch(() => {});
    if (!this.pw.url().startsWith('chrome-error:')) await committed;
  }

  async goBack(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    try {
      const res = await this.pw.goBack({ waitUntil, timeout: timeoutMs });
      return { url: this.pw.url(), status: res?.status() ?? null };
    } catch (err) {
      this.fail(err, 'page.go_back', timeoutMs, true);
    }
  }

  async goForward(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    try {
      const res = await this.pw.goForward({ waitUntil, timeout: timeoutMs });
      return { url: this.pw.url(), status: res?.status() ?? null };
    } catch (err) {
      this.fail(err, 'page.go_forward', timeoutMs, true);
    }
  }

  async reload(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    try {
      const res = await this.pw.reload({ waitUntil, timeout: timeoutMs });
      return { url: this.pw.url(), status: res?.status() ?? null };
    } catch (err) {
      this.fail(err, 'page.reload', timeoutMs, true);
    }
  }

  async bringToFront(): Promise<void> {
    try {
      await this.pw.bringToFront();
    } catch (err) {
      this.fail(err, 'tab.activate');
    }
  }

  async screenshot(req: ScreenshotRequest): Promise<ScreenshotResult> {
    const type = req.format ?? 'png';
    const quality = type === 'jpeg' ? (req.quality ?? 80) : undefined;
    try {
      // The page as it is (animations and caret untouched, as on Firefox): the viewport over our own
      // CDP session; full pages and clips through playwright, which sizes the capture area.
      const fast =
        !req.fullPage && !req.clip
          ? await withTimeout(this.fast.captureViewport(type, quality), req.timeoutMs)
          : null;
      const data =
        fast ??
        (await this.pw.screenshot({
          type,
          fullPage: req.fullPage ?? false,
          clip: req.clip,
          quality,
          timeout: req.timeoutMs,
          // playwright's default hides the caret by restyling the focused field.
          caret: 'initial',
        }));
      return { data, mediaType: type === 'png' ? 'image/png' : 'image/jpeg', ...imageSize(data) };
    } catch (err) {
      this.fail(err, 'page.screenshot', req.timeoutMs);
    }
  }

  /** The main frame's evaluate: the same contract, and its calls take the fast channel. */
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R> {
    return this.frameHandle(this.pw.mainFrame(), null).evaluate(fn, arg, timeoutMs);
  }

  frames(): BackendFrame[] {
    const out: BackendFrame[] = [];
    const visit = (f: Frame, parent: ChromiumFrame | null) => {
      const h = this.frameHandle(f, parent);
      out.push(h);
      for (const c of f.childFrames()) visit(c, h);
    };
    visit(this.pw.mainFrame(), null);
    return out;
  }

  /** One handle per playwright frame for its life (its id stays); the main frame's has the fast channel. */
  private frameHandle(f: Frame, parent: ChromiumFrame | null): ChromiumFrame {
    let h = this.frameHandles.get(f);
    if (!h) {
      h = new ChromiumFrame(
        f,
        `f${this.frameSeq++}`,
        parent?.id ?? null,
        this.browserAlive,
        parent ? null : this.fast,
      );
      this.frameHandles.set(f, h);
    }
    return h;
  }

  isClosed(): boolean {
    return this.pw.isClosed();
  }

  onClose(listener: () => void): void {
    this.pw.once('close', listener);
    this.pw.once('crash', listener);
  }

  onCrash(listener: () => void): void {
    this.pw.once('crash', listener);
  }

  onNavigated(listener: (url: string) => void): void {
    this.pw.on('framenavigated', (f) => {
      if (f === this.pw.mainFrame()) listener(f.url());
    });
  }

  async opener(): Promise<BackendPage | null> {
    const o = await this.pw.opener().catch(() => null);
    return o ? this.wrap(o) : null;
  }

  onDialog(listener: (dialog: BackendDialog) => void): void {
    this.pw.on('dialog', (d) => {
      listener({
        type: d.type() as DialogType,
        message: d.message(),
        defaultValue: d.defaultValue(),
        accept: (text?: string) => d.accept(text).catch(() => {}),
        dismiss: () => d.dismiss().catch(() => {}),
      });
    });
  }

  onDownload(listener: (download: BackendDownload) => void): void {
    this.pw.on('download', (d) => {
      listener({
        url: d.url(),
        suggestedFilename: d.suggestedFilename(),
        saveAs: (path: string) => d.saveAs(path),
        failure: () => d.failure().catch((err: unknown) => String(err)),
      });
    });
  }

  private choosersIntercepted = false;

  interceptsFileChoosers(): boolean {
    return this.choosersIntercepted;
  }

  onFileChooser(listener: (chooser: BackendFileChooser) => void): void {
    // Subscribing makes Playwright intercept the page's file choosers (no native dialog). Only where no
    // native dialog could be seen anyway: a headed browser keeps its dialog for the person at the screen.
    void isHeadless(this.pw)
      .then((headless) => {
        if (!headless || this.pw.isClosed()) return;
        this.choosersIntercepted = true;
        this.pw.on('filechooser', (fc) => {
          const el = fc.element();
          void (async () => {
            const input = await el
              .evaluate((node) => {
                const i = node as unknown as {
                  id: string;
                  name: string;
                  accept: string;
                  labels: ArrayLike<{ textContent: string | null }> | null;
                  getAttribute(n: string): string | null;
                };
                const label = i.labels?.[0]?.textContent ?? i.getAttribute('aria-label') ?? '';
                return {
                  id: i.id,
                  name: i.name,
                  accept: i.accept,
                  label: label.replace(/\s+/g, ' ').trim().slice(0, 200),
                };
              })
              .catch(() => ({ id: '', name: '', accept: '', label: '' }));
            const frame = await el.ownerFrame().catch(() => null);
            void el.dispose().catch(() => {});
            listener({ ...input, multiple: fc.isMultiple(), mainFrame: frame === this.pw.mainFrame() });
          })();
        });
      })
      .catch(() => {});
  }

  onRequestLog(listener: (event: RequestLogEvent) => void): void {
    this.pw.on('request', (r) => {
      let postData: string | null = null;
      try {
        postData = r.postData();
      } catch {
        postData = null;
      }
      listener({
        phase: 'request',
        key: this.requestKeys.of(r),
        url: r.url(),
        method: r.method(),
        resourceType: r.resourceType(),
        postData,
        isNavigation: r.isNavigationRequest(),
      });
    });
    this.pw.on('response', (res) => {
      listener({
        phase: 'response',
        key: this.requestKeys.of(res.request()),
        status: res.status(),
        statusText: res.statusText(),
        mimeType: (res.headers()['content-type'] ?? '').split(';')[0]!.trim(),
      });
    });
    this.pw.on('requestfinished', (r) => {
      listener({
        phase: 'finished',
        key: this.requestKeys.of(r),
        readBody: async () => {
          const res = await r.response().catch(() => null);
          return res ? res.body().catch(() => null) : null;
        },
      });
    });
    this.pw.on('requestfailed', (r) => {
      listener({
        phase: 'failed',
        key: this.requestKeys.of(r),
        errorText: failureText(r),
      });
    });
  }

  onConsole(listener: (message: BackendConsoleMessage) => void): void {
    this.pw.on('console', (m) => {
      const loc = m.location();
      listener({
        type: 'console',
        level: m.type(),
        text: m.text(),
        url: loc.url,
        line: loc.url ? loc.lineNumber : null,
      });
    });
    this.pw.on('pageerror', (err) => {
      listener({
        type: 'pageerror',
        level: 'error',
        text: firstLine(err.message),
        url: this.pw.url(),
        line: null,
      });
    });
  }

  onNetwork(listener: (event: NetworkEvent) => void): void {
    const emit = (phase: NetworkEvent['phase'], r: PwRequest) => {
      listener({ phase, key: this.requestKeys.of(r), url: r.url(), resourceType: r.resourceType() });
      if (phase !== 'started') this.requestKeys.settled(r);
    };
    this.pw.on('request', (r) => emit('started', r));
    this.pw.on('requestfinished', (r) => emit('finished', r));
    this.pw.on('requestfailed', (r) => emit('failed', r));
  }

  async evaluateExpression(expression: string, timeoutMs: number): Promise<unknown> {
    try {
      return await withTimeout(this.pw.evaluate(evaluable(expression)), timeoutMs);
    } catch (err) {
      this.fail(err, 'page.eval', timeoutMs);
    }
  }

  async startScreencast(
    opts: ScreencastOptions,
    onFrame: (frame: ScreencastFrame) => void,
  ): Promise<() => Promise<void>> {
    let cdp: CDPSession;
    try {
      cdp = await this.pw.context().newCDPSession(this.pw);
    } catch (err) {
      this.fail(err, 'page.screencast');
    }
    const onEvent = (ev: {
      data: string;
      sessionId: number;
      metadata: { deviceWidth: number; deviceHeight: number };
    }) => {
      // Chromium sends the next frame only after this one is acknowledged.
      void cdp.send('Page.screencastFrameAck', { sessionId: ev.sessionId }).catch(() => {});
      onFrame({
        data: Buffer.from(ev.data, 'base64'),
        width: ev.metadata.deviceWidth,
        height: ev.metadata.deviceHeight,
        at: Date.now(),
      });
    };
    cdp.on('Page.screencastFrame', onEvent);
    await cdp
      .send('Page.startScreencast', {
        format: 'jpeg',
        quality: opts.quality ?? 60,
        maxWidth: opts.maxWidth ?? 1280,
        maxHeight: opts.maxHeight ?? 1024,
        everyNthFrame: 1,
      })
      .catch((err) => this.fail(err, 'page.screencast'));
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      cdp.off('Page.screencastFrame', onEvent);
      await cdp.send('Page.stopScreencast').catch(() => {});
      await cdp.detach().catch(() => {});
    };
  }

  async close(): Promise<void> {
    if (this.pw.isClosed()) return;
    try {
      await this.pw.close({ runBeforeUnload: false });
    } catch (err) {
      if (!this.pw.isClosed()) this.fail(err, 'tab.close');
    }
  }
}

/** Documents between two full GCs of a page's renderer: `$TABWRIGHT_RENDERER_GC_EVERY` (0: never), 3 by default. */
export const RENDERER_GC_EVERY_DEFAULT = 3;

function rendererGcEvery(): number {
  const raw = process.env.TABWRIGHT_RENDERER_GC_EVERY;
  if (raw === undefined || raw.trim() === '') return RENDERER_GC_EVERY_DEFAULT;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : RENDERER_GC_EVERY_DEFAULT;
}

const headlessByContext = new WeakMap<BrowserContext, Promise<boolean>>();

/** Whether the browser is headless (no window a person could see), asked once per context. */
function isHeadless(p: Page): Promise<boolean> {
  const ctx = p.context();
  let h = headlessByContext.get(ctx);
  if (!h) {
    h = (async () => {
      const cdp = await ctx.newCDPSession(p);
      try {
        const v = (await cdp.send('Browser.getVersion')) as { product: string; userAgent: string };
        return /Headless/.test(v.userAgent) || /Headless/.test(v.product);
      } finally {
        void cdp.detach().catch(() => {});
      }
    })();
    h.catch(() => headlessByContext.delete(ctx));
    headlessByContext.set(ctx, h);
  }
  return h;
}

/** Playwright has no timeout for some calls (title, evaluate); this bounds them. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return boundCall(p, ms, () => new (playwrightCore().errors.TimeoutError)(`timed out after ${ms} ms`));
}
