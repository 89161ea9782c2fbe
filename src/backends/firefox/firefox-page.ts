import { copyFile } from 'node:fs/promises';
import type { BrowsingContext, Log, Network } from 'webdriver-bidi-protocol';
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
import { imageSize } from '../image-size.js';
import type { BidiConnection } from './bidi-connection.js';
import { FirefoxFrame, type ScriptTarget } from './firefox-frame.js';
import { FirefoxInput } from './firefox-input.js';
import { type FirefoxRequest, resourceTypeOf } from './network.js';
import { fromRemote } from './remote-value.js';
import { FirefoxTimeout, translateBidiError, unsupported, withTimeout } from './translate-error.js';

const READINESS: Record<WaitUntil, BrowsingContext.ReadinessState> = {
  load: 'complete',
  domcontentloaded: 'interactive',
  networkidle: 'complete',
};

/** Text into the focused editable element (through same-origin frames) as one input event. */
const INSERT_TEXT = `(text) => {
  let doc = document;
  let el = doc.activeElement;
  while (el && (el.tagName === 'IFRAME' || el.tagName === 'FRAME')) {
    try { doc = el.contentDocument; } catch { return false; }
    if (!doc) return false;
    el = doc.activeElement;
  }
  if (!el) return false;
  const editable = el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA';
  if (!editable) return false;
  return doc.execCommand('insertText', false, text);
}`;

interface PendingDownload {
  url: string;
  suggestedFilename: string;
  end: Promise<{ status: 'complete' | 'canceled'; filepath: string | null }>;
  settle: (v: { status: 'complete' | 'canceled'; filepath: string | null }) => void;
}

/**
 * One top-level browsing context (a tab) and its frames. The browser feeds it the BiDi events of
 * its contexts (firefox-browser.ts); everything else is a command on the connection.
 */
export class FirefoxPage implements BackendPage {
  readonly input: FirefoxInput;
  readonly emulation: BackendPageEmulation;
  readonly main: FirefoxFrame;
  private readonly frameById = new Map<string, FirefoxFrame>();
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];
  private readonly navigatedListeners: ((url: string) => void)[] = [];
  private readonly dialogListeners: ((d: BackendDialog) => void)[] = [];
  private readonly downloadListeners: ((d: BackendDownload) => void)[] = [];
  private readonly chooserListeners: ((c: BackendFileChooser) => void)[] = [];
  private readonly networkListeners: ((e: NetworkEvent) => void)[] = [];
  private readonly consoleListeners: ((m: BackendConsoleMessage) => void)[] = [];
  private readonly logListeners: ((e: RequestLogEvent) => void)[] = [];
  /** Bumped on every committed main-frame navigation, same-document ones included. */
  private navSeq = 0;
  private navWaiters: (() => void)[] = [];
  /** Status of the main document per BiDi navigation id. */
  private readonly navStatus = new Map<string, number>();
  private lastDocumentStatus: number | null = null;
  /** Our navigation's document request failed (refused by the filter, or a network error). */
  private navFailure: ((why: string) => void) | null = null;
  /** The BiDi navigation id of the goto in progress (the first navigation that started after it was sent). */
  private currentNav: string | null = null;
  private awaitingNav = false;
  private readonly downloads = new Map<string, PendingDownload>();
  private readonly inflight = new Set<object>();

  constructor(
    private readonly conn: BidiConnection,
    readonly id: string,
    url: string,
    readonly userContext: string,
    readonly openerId: string | null,
    private readonly browserAlive: () => boolean,
    private readonly lookup: (contextId: string) => FirefoxPage | undefined,
    readonly fileChoosersIntercepted: boolean,
  ) {
    this.main = new FirefoxFrame(conn, id, null, url, browserAlive, null);
    this.frameById.set(id, this.main);
    this.input = new FirefoxInput(conn, id, browserAlive, (text) =>
      this.main.script.call<boolean>(INSERT_TEXT, [text], 5000, 'page.fill'),
    );
    this.emulation = {
      setViewport: async (size) => {
        await this.conn
          .send('browsingContext.setViewport', {
            context: this.id,
            viewport: { width: Math.round(size.width), height: Math.round(size.height) },
          })
          .catch((err) => this.fail(err, 'page.set_viewport'));
      },
      emulateMedia: async () => {
        // ESR 153 has no emulation.setMediaFeaturesOverride (nor prefers-color-scheme emulation).
        throw unsupported('page.emulate_media', 'Firefox ESR has no media emulation over WebDriver BiDi');
      },
      pdf: async (timeoutMs) => {
        try {
          const r = await withTimeout(
            this.conn.send('browsingContext.print', { context: this.id, background: true }),
            timeoutMs,
          );
          return Buffer.from(r.data, 'base64');
        } catch (err) {
          this.fail(err, 'page.pdf', timeoutMs);
        }
      },
    };
  }

  get script(): ScriptTarget {
    return this.main.script;
  }

  private fail(err: unknown, operation: string, timeoutMs?: number, navigation = false): never {
    throw translateBidiError(err, {
      operation,
      navigation,
      timeoutMs,
      browserAlive: this.browserAlive(),
      pageClosed: this.closed,
    });
  }

  // ---- events from the browser ----

  frameAttached(info: BrowsingContext.Info): void {
    if (this.frameById.has(info.context)) return;
    const parent = info.parent ? (this.frameById.get(info.parent) ?? null) : null;
    const f = new FirefoxFrame(
      this.conn,
      info.context,
      parent?.id ?? this.id,
      info.url,
      this.browserAlive,
      parent ?? this.main,
    );
    this.frameById.set(info.context, f);
  }

  frameDetached(contextId: string): void {
    const f = this.frameById.get(contextId);
    if (!f) return;
    f.detached = true;
    this.frameById.delete(contextId);
    for (const child of [...this.frameById.values()])
      if (child.parentId === contextId) this.frameDetached(child.id);
  }

  owns(contextId: string): boolean {
    return this.frameById.has(contextId);
  }

  navigated(contextId: string, url: string, newDocument: boolean): void {
    const f = this.frameById.get(contextId);
    if (!f) return;
    f.frameUrl = url;
    if (newDocument && f !== this.main) void f.refreshName();
    if (f !== this.main) return;
    this.navSeq++;
    for (const w of this.navWaiters.splice(0)) w();
    for (const l of this.navigatedListeners) l(url);
  }

  loaded(contextId: string, url: string): void {
    const f = this.frameById.get(contextId);
    if (!f) return;
    if (f.frameUrl !== url) this.navigated(contextId, url, true);
    if (f !== this.main) void f.refreshName();
  }

  markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const f of this.frameById.values()) f.detached = true;
    this.navFailure?.('the page was closed');
    for (const l of this.closeListeners.splice(0)) l();
  }

  promptOpened(p: BrowsingContext.UserPromptOpenedParameters): void {
    const handle = (accept: boolean, userText?: string) =>
      this.conn
        .send('browsingContext.handleUserPrompt', {
          context: p.context,
          accept,
          ...(userText !== undefined ? { userText } : {}),
        })
        .then(
          () => {},
          () => {},
        );
    const dialog: BackendDialog = {
      type: p.type as DialogType,
      message: p.message,
      defaultValue: p.defaultValue ?? '',
      accept: (text?: string) =>
        handle(true, p.type === 'prompt' ? (text ?? p.defaultValue ?? '') : undefined),
      dismiss: () => handle(false),
    };
    for (const l of this.dialogListeners) l(dialog);
  }

  downloadStarted(p: BrowsingContext.DownloadWillBeginParams): void {
    let settle!: PendingDownload['settle'];
    const end = new Promise<{ status: 'complete' | 'canceled'; filepath: string | null }>((r) => {
      settle = r;
    });
    const pending: PendingDownload = { url: p.url, suggestedFilename: p.suggestedFilename, end, settle };
    const key = (p as { download?: string }).download ?? p.navigation ?? p.url;
    this.downloads.set(key, pending);
    const download: BackendDownload = {
      url: p.url,
      suggestedFilename: p.suggestedFilename,
      saveAs: async (path) => {
        const r = await end;
        if (r.status !== 'complete' || !r.filepath) throw new Error(`download ${r.status}`);
        await copyFile(r.filepath, path);
      },
      failure: async () => {
        const r = await end;
        return r.status === 'complete' ? null : r.status;
      },
    };
    // A navigation that turned into a download ends the goto as Chromium's does.
    this.navFailure?.('Download is starting');
    for (const l of this.downloadListeners) l(download);
  }

  downloadEnded(p: BrowsingContext.DownloadEndParams): boolean {
    const key = (p as { download?: string }).download ?? p.navigation ?? p.url;
    const d = this.downloads.get(key) ?? [...this.downloads.values()].find((x) => x.url === p.url);
    if (!d) return false;
    this.downloads.delete(key);
    d.settle({ status: p.status, filepath: p.status === 'complete' ? p.filepath : null });
    return true;
  }

  logEntry(e: Log.Entry): void {
    const frame = e.stackTrace?.callFrames?.[0];
    const message: BackendConsoleMessage =
      e.type === 'javascript'
        ? {
            type: 'pageerror',
            level: 'error',
            text: uncaughtMessage(e.text ?? ''),
            url: this.main.frameUrl,
            line: null,
          }
        : {
            type: 'console',
            level: consoleLevel(e),
            text: e.text ?? '',
            url: frame?.url ?? '',
            line: frame?.url ? frame.lineNumber : null,
          };
    for (const l of this.consoleListeners) l(message);
  }

  fileDialogOpened(p: { context: string; element?: { sharedId: string }; multiple: boolean }): void {
    if (!this.fileChoosersIntercepted || this.chooserListeners.length === 0) return;
    const frame = this.frameById.get(p.context) ?? this.main;
    void (async () => {
      // The input is the call's argument (its node handle): without it the chooser has no id, label or accept.
      const input = p.element
        ? ((await frame.script
            .callRaw(
              `(i) => {
                const label = (i.labels && i.labels[0] && i.labels[0].textContent) || i.getAttribute('aria-label') || '';
                return { id: i.id, name: i.name, accept: i.accept, label: label.replace(/\\s+/g, ' ').trim().slice(0, 200) };
              }`,
              [{ sharedId: p.element.sharedId }],
              2000,
              'page.file_chooser',
            )
            .then(fromRemote)
            .catch(() => null)) as { id: string; name: string; accept: string; label: string } | null)
        : null;
      const chooser: BackendFileChooser = {
        ...(input ?? { id: '', name: '', accept: '', label: '' }),
        multiple: p.multiple,
        mainFrame: frame === this.main,
      };
      for (const l of this.chooserListeners) l(chooser);
    })();
  }

  /** A network event of one of this page's contexts. */
  network(phase: 'request' | 'response' | 'finished' | 'failed', r: FirefoxRequest): void {
    const p = r.params;
    const key = r.key;
    const isMain = p.context === this.id;
    const isDocument = resourceTypeOf(p.request) === 'document';
    if (phase === 'request') {
      this.inflight.add(key);
      for (const l of this.networkListeners)
        l({ phase: 'started', key, url: p.request.url, resourceType: resourceTypeOf(p.request) });
    } else if (phase === 'response') {
      const res = (p as Network.ResponseCompletedParameters).response;
      if (isMain && isDocument) {
        this.lastDocumentStatus = res.status;
        if (p.navigation) this.navStatus.set(p.navigation, res.status);
      }
    } else {
      if (phase === 'finished') {
        const res = (p as Network.ResponseCompletedParameters).response;
        if (isMain && isDocument) {
          this.lastDocumentStatus = res.status;
          if (p.navigation) this.navStatus.set(p.navigation, res.status);
        }
      } else if (isMain && isDocument && p.navigation && p.navigation === this.currentNav) {
        this.navFailure?.((p as Network.FetchErrorParameters).errorText);
      }
      if (this.inflight.delete(key))
        for (const l of this.networkListeners)
          l({
            phase: phase === 'finished' ? 'finished' : 'failed',
            key,
            url: p.request.url,
            resourceType: resourceTypeOf(p.request),
          });
    }
    for (const l of this.logListeners) r.toLog(phase, l);
  }

  /** A window.open / target=_blank tab whose first document has not committed yet. */
  isFreshPopup(): boolean {
    return this.openerId !== null && this.navSeq === 0;
  }

  /** The request filter refused a main-frame document of this page: the goto it belongs to ends now. */
  documentRefused(navigation: string | null): void {
    if (navigation !== null && navigation === this.currentNav)
      this.navFailure?.('NS_BINDING_ABORTED (refused by the request filter)');
  }

  navigationStarted(contextId: string, navigation: string | null): void {
    if (contextId !== this.id || !this.awaitingNav) return;
    this.awaitingNav = false;
    this.currentNav = navigation;
  }

  // ---- BackendPage ----

  url(): string {
    return this.main.frameUrl;
  }

  async title(timeoutMs: number): Promise<string> {
    return this.main.script.call<string>('() => document.title', [], timeoutMs, 'page.title');
  }

  private async navigation(
    operation: string,
    waitUntil: WaitUntil,
    timeoutMs: number,
    send: () => Promise<{ navigation: string | null; url: string } | null>,
  ): Promise<NavigationResult> {
    const started = Date.now();
    const seqBefore = this.navSeq;
    this.lastDocumentStatus = null;
    this.currentNav = null;
    this.awaitingNav = true;
    let failure: Promise<never> | undefined;
    const failed = new Promise<never>((_, reject) => {
      this.navFailure = (why) => reject(new Error(`${operation}: ${why}`));
    });
    failed.catch(() => {});
    failure = failed;
    try {
      const res = await withTimeout(Promise.race([send(), failure]), timeoutMs);
      if (!res) {
        // History traversal: wait for the commit it causes.
        await withTimeout(
          Promise.race([this.nextNavigation(seqBefore), failure]),
          Math.max(1, timeoutMs - (Date.now() - started)),
        );
        await this.waitReady(waitUntil, Math.max(1, timeoutMs - (Date.now() - started)));
      } else if (waitUntil === 'networkidle') {
        await this.networkIdle(Math.max(1, timeoutMs - (Date.now() - started)));
      }
      const status = res?.navigation
        ? (this.navStatus.get(res.navigation) ?? this.lastDocumentStatus)
        : this.lastDocumentStatus;
      if (res?.url && !res.url.startsWith('about:blank')) this.main.frameUrl = res.url;
      return { url: this.url(), status: status ?? null };
    } catch (err) {
      if (err instanceof FirefoxTimeout) this.fail(err, operation, timeoutMs, true);
      // "Address rejected" is reported for some pages that did load, and a navigation the page replaced
      // at once (a meta refresh, a script, a refused frame) is reported aborted after our document
      // committed: believe the page, not the reply.
      const ours = !/refused by the request filter|Download is starting/.test(String(err));
      if (ours && /Address rejected|NS_BINDING_ABORTED|NS_ERROR_ABORT/i.test(String(err))) {
        await this.nextNavigation(seqBefore, 1000).catch(() => {});
        if (this.navSeq !== seqBefore) {
          await this.waitReady(waitUntil, Math.max(1, timeoutMs - (Date.now() - started))).catch(() => {});
          return { url: this.url(), status: this.lastDocumentStatus };
        }
      }
      this.fail(err, operation, timeoutMs, true);
    } finally {
      this.navFailure = null;
      this.awaitingNav = false;
    }
  }

  private nextNavigation(seqBefore: number, timeoutMs?: number): Promise<void> {
    if (this.navSeq !== seqBefore) return Promise.resolve();
    const p = new Promise<void>((resolve) => this.navWaiters.push(resolve));
    return timeoutMs === undefined ? p : withTimeout(p, timeoutMs);
  }

  private async waitReady(waitUntil: WaitUntil, timeoutMs: number): Promise<void> {
    const want = waitUntil === 'domcontentloaded' ? ['interactive', 'complete'] : ['complete'];
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const state = await this.main.script
        .call<string>('() => document.readyState', [], Math.max(1, end - Date.now()))
        .catch(() => 'loading');
      if (want.includes(state)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (waitUntil === 'networkidle') await this.networkIdle(Math.max(1, end - Date.now()));
  }

  /** No request of the page in flight for 500 ms (Playwright's networkidle). */
  private async networkIdle(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    let quietSince = Date.now();
    while (Date.now() < end) {
      if (this.inflight.size > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= 500) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new FirefoxTimeout(timeoutMs);
  }

  goto(url: string, waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    return this.navigation('page.open', waitUntil, timeoutMs, () =>
      this.conn.send('browsingContext.navigate', { context: this.id, url, wait: READINESS[waitUntil] }),
    );
  }

  goBack(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    return this.navigation('page.go_back', waitUntil, timeoutMs, async () => {
      await this.conn.send('browsingContext.traverseHistory', { context: this.id, delta: -1 });
      return null;
    });
  }

  goForward(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    return this.navigation('page.go_forward', waitUntil, timeoutMs, async () => {
      await this.conn.send('browsingContext.traverseHistory', { context: this.id, delta: 1 });
      return null;
    });
  }

  reload(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult> {
    return this.navigation('page.reload', waitUntil, timeoutMs, () =>
      this.conn.send('browsingContext.reload', { context: this.id, wait: READINESS[waitUntil] }),
    );
  }

  async bringToFront(): Promise<void> {
    await this.conn
      .send('browsingContext.activate', { context: this.id })
      .catch((err) => this.fail(err, 'tab.activate'));
  }

  async screenshot(req: ScreenshotRequest): Promise<ScreenshotResult> {
    const type = req.format ?? 'png';
    try {
      const r = await withTimeout(
        this.conn.send('browsingContext.captureScreenshot', {
          context: this.id,
          origin: req.fullPage ? 'document' : 'viewport',
          format: {
            type: `image/${type}`,
            ...(type === 'jpeg' ? { quality: (req.quality ?? 80) / 100 } : {}),
          },
          ...(req.clip ? { clip: { type: 'box' as const, ...req.clip } } : {}),
        }),
        req.timeoutMs,
      );
      const data = Buffer.from(r.data, 'base64');
      return { data, mediaType: type === 'png' ? 'image/png' : 'image/jpeg', ...imageSize(data) };
    } catch (err) {
      this.fail(err, 'page.screenshot', req.timeoutMs);
    }
  }

  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R> {
    return this.main.evaluate(fn, arg, timeoutMs);
  }

  evaluateExpression(expression: string, timeoutMs: number): Promise<unknown> {
    return this.main.evaluateExpression(expression, timeoutMs);
  }

  frames(): BackendFrame[] {
    // Tree order: parents before children, siblings in attach order.
    const out: FirefoxFrame[] = [];
    const visit = (f: FirefoxFrame) => {
      out.push(f);
      for (const c of this.frameById.values()) if (c.parentId === f.id && c !== f) visit(c);
    };
    visit(this.main);
    return out;
  }

  isClosed(): boolean {
    return this.closed;
  }

  onClose(listener: () => void): void {
    if (this.closed) queueMicrotask(listener);
    else this.closeListeners.push(listener);
  }

  onCrash(_listener: () => void): void {
    // BiDi reports no renderer crash: a crashed tab is seen as closed (contextDestroyed).
  }

  onNavigated(listener: (url: string) => void): void {
    this.navigatedListeners.push(listener);
  }

  async opener(): Promise<BackendPage | null> {
    return this.openerId ? (this.lookup(this.openerId) ?? null) : null;
  }

  onDialog(listener: (dialog: BackendDialog) => void): void {
    this.dialogListeners.push(listener);
  }

  onDownload(listener: (download: BackendDownload) => void): void {
    this.downloadListeners.push(listener);
  }

  onFileChooser(listener: (chooser: BackendFileChooser) => void): void {
    this.chooserListeners.push(listener);
  }

  interceptsFileChoosers(): boolean {
    return this.fileChoosersIntercepted;
  }

  onNetwork(listener: (event: NetworkEvent) => void): void {
    this.networkListeners.push(listener);
  }

  onConsole(listener: (message: BackendConsoleMessage) => void): void {
    this.consoleListeners.push(listener);
  }

  onRequestLog(listener: (event: RequestLogEvent) => void): void {
    this.logListeners.push(listener);
  }

  /** No screencast in BiDi: JPEG screenshots of the viewport, one after the other. */
  async startScreencast(
    opts: ScreencastOptions,
    onFrame: (frame: ScreencastFrame) => void,
  ): Promise<() => Promise<void>> {
    let stopped = false;
    const quality = (opts.quality ?? 60) / 100;
    const loop = async () => {
      while (!stopped && !this.closed) {
        try {
          const [r, size] = await Promise.all([
            this.conn.send('browsingContext.captureScreenshot', {
              context: this.id,
              format: { type: 'image/jpeg', quality },
            }),
            this.main.script.call<{ w: number; h: number }>(
              '() => ({ w: innerWidth, h: innerHeight })',
              [],
              2000,
            ),
          ]);
          if (stopped) break;
          onFrame({ data: Buffer.from(r.data, 'base64'), width: size.w, height: size.h, at: Date.now() });
        } catch {
          // A navigation or a dialog in between: try again shortly.
        }
        await new Promise((r) => setTimeout(r, 150));
      }
    };
    void loop();
    return async () => {
      stopped = true;
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.conn.send('browsingContext.close', { context: this.id, promptUnload: false });
    } catch (err) {
      if (!this.closed && this.browserAlive()) {
        const e = translateBidiError(err, { operation: 'tab.close', browserAlive: true, pageClosed: true });
        if (e.code !== 'page_not_found') throw e;
      }
    }
    this.markClosed();
  }
}

/**
 * Firefox reports an uncaught error as "TypeError: msg" (or "uncaught exception: value"); Chromium's
 * page errors carry the error's message alone, and the doors show that.
 */
function uncaughtMessage(text: string): string {
  return firstLine(text).replace(/^(?:uncaught exception: |(?:[A-Z][A-Za-z]*)?(?:Error|Exception): )/, '');
}

function consoleLevel(e: Log.Entry): string {
  const method = (e as { method?: string }).method;
  if (method === 'warn') return 'warning';
  if (method) return method;
  return e.level === 'warn' ? 'warning' : e.level;
}
