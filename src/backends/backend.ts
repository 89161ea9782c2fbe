/**
 * The interface every browser backend implements (like Puppeteer's api/
 * classes). The engine talks only to these types; only files under
 * src/backends/<browser>/ import a browser driver.
 *
 * Backends throw TabwrightError for failures they understand (timeouts, a
 * closed target, a disconnected browser) so that driver wording never leaks.
 */

import type { LaunchedProcess } from './process-tree.js';
import type { RawBackendOps } from './raw.js';

export type { LaunchedProcess } from './process-tree.js';

export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle';

export interface LaunchSettings {
  executablePath: string;
  headless: boolean;
  /** Extra command-line flags, appended to the backend's own. */
  args?: string[];
  /** The vendor build (chrome, edge) `executablePath` is, when a session asked for one: names the browser. */
  product?: string;
  /**
   * A directory for this browser's scratch files (downloads before they are saved, other artifacts),
   * created by the engine and removed by it when the browser is gone.
   */
  workDir?: string;
}

export interface NavigationResult {
  url: string;
  /** HTTP status of the main response, or null (about:blank, same-document, history without a response). */
  status: number | null;
}

export interface ScreenshotRequest {
  fullPage?: boolean;
  format?: 'png' | 'jpeg';
  quality?: number;
  clip?: { x: number; y: number; width: number; height: number };
  timeoutMs: number;
}

export interface ScreenshotResult {
  data: Buffer;
  mediaType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
}

/** The browser families tabwright can drive (one backend each). */
export type BrowserFamily = 'chromium' | 'firefox';
/** How a context (or a persistent browser) reaches the network. */
export interface ContextNetworkOptions {
  /**
   * Every request of the context, loopback destinations included, goes through this HTTP proxy
   * (`http://127.0.0.1:<port>`): pages, workers, beacons, WebSockets (as CONNECT), WebRTC over TCP.
   */
  proxyServer?: string;
}

/** A browser process (launched, attached over CDP, or a remote server). */
export interface BackendBrowser {
  readonly family: BrowserFamily;
  readonly label: string;
  version(): string;
  isConnected(): boolean;
  /** Called once when the connection to the browser is lost for any reason. */
  onDisconnected(listener: () => void): void;
  /** A fresh isolated context (ephemeral session), optionally sending all its traffic through a proxy. */
  newContext(opts?: ContextNetworkOptions): Promise<BackendContext>;
  /** The browser's own default context (attach: the user's tabs). */
  defaultContext(): BackendContext | undefined;
  /** Closes a browser we launched, or only disconnects from one we attached to. */
  close(): Promise<void>;
  /** OS process id when we can know it (launched by us, or reported by the browser). */
  pid(): Promise<number | undefined>;
  /** The backend's raw escape hatches (raw protocol sessions, tracing), when it has them. */
  raw(): RawBackendOps | undefined;
  /** The process this backend launched (pid, its temporary profile), or null for one we attached to. */
  launchedProcess(): LaunchedProcess | null;
  /**
   * Last resort when a graceful close did not finish: kills a process we launched (its group) and
   * removes its temporary profile, synchronously. Does nothing for a browser we attached to.
   */
  forceClose(): void;
}

export interface BackendContext {
  pages(): BackendPage[];
  newPage(): Promise<BackendPage>;
  /** Every page that appears in this context: ours, popups, target=_blank, window.open. */
  onPage(listener: (page: BackendPage) => void): void;
  close(): Promise<void>;
  /**
   * Installs (or with null removes) a filter every request of the context
   * passes before it is sent: first requests, redirect hops, popups, frames.
   * Installed only for restricted policies, so other sessions pay nothing.
   */
  setRequestFilter(filter: RequestFilter | null, options?: RequestFilterOptions): Promise<void>;
  readonly cookieJar: BackendCookieJar;
  /**
   * Aborts or answers (mock) the context's requests matching a Playwright-native
   * glob. Composes with the request filter: a request the filter blocks is
   * never answered by a mock (the route falls back to the filter).
   */
  addRoute(spec: BackendRoute): Promise<void>;
  /** Removes the routes of one pattern, or all routes added with addRoute. */
  removeRoutes(pattern?: string): Promise<void>;
  /** Context-wide emulation (src/engine/emulation.ts): geolocation (with its permission), offline, extra headers. */
  emulate(settings: ContextEmulation): Promise<void>;
  /**
   * Answers HTTP authentication challenges (401 + WWW-Authenticate) of the context's requests, live,
   * without losing pages: the first entry whose origin equals the request's origin is used, an entry
   * without origin answers any origin; null = answer none. Never sent unasked (only on a challenge).
   */
  setHttpCredentials(credentials: HttpCredential[] | null): Promise<void>;
  /**
   * A GET outside any page with the context's cookies (the original bytes of a resource, e.g. an image).
   * Redirects are not followed: the caller checks every hop against its policy. Routes and the request
   * filter do not apply, so callers must check the URL first.
   */
  fetch(
    url: string,
    opts: { headers?: Record<string, string>; timeoutMs: number },
  ): Promise<BackendFetchResult>;
}

export interface BackendFetchResult {
  status: number;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface HttpCredential {
  username: string;
  password: string;
  /** scheme://host[:port]; absent = any origin. */
  origin?: string;
}

export interface ContextEmulation {
  /** null clears it. */
  geolocation?: { latitude: number; longitude: number; accuracy?: number } | null;
  offline?: boolean;
  /** Replaces the extra headers sent with every request of the context. */
  extraHeaders?: Record<string, string>;
}

/** Page-level emulation and output (src/engine/emulation.ts). */
export interface BackendPageEmulation {
  setViewport(size: { width: number; height: number }): Promise<void>;
  /** null resets to the browser default. */
  emulateMedia(media: { colorScheme?: 'light' | 'dark' | 'no-preference' | null }): Promise<void>;
  /** Prints the page to PDF (headless Chromium only). */
  pdf(timeoutMs: number): Promise<Buffer>;
}

/** One route of a context (abort or mock). */
export interface BackendRoute {
  /** Playwright-native glob: `*` does not cross "/", `**` does. */
  pattern: string;
  action: 'abort' | 'mock';
  status: number;
  contentType: string;
  body: string;
}

export interface RequestFilterOptions {
  /**
   * WebSockets bypass request routing; with this set they pass the filter too
   * (resourceType "websocket") and refused ones are closed before connecting.
   */
  filterWebSockets?: boolean;
  /**
   * The only hosts whose non-document requests the filter can allow (`exact` names, and `suffixes`
   * such as ".example.com"): everything else that is not a document it refuses. A backend may then
   * refuse those requests in the browser itself, before any is paused for the filter (no round trip
   * to this process per refused script or image), and hand each to the filter afterwards, which
   * records it (its verdict is then moot). Requests to these hosts, documents and anything a backend
   * cannot refuse in the browser still pass the filter first.
   */
  subresourceHosts?: SubresourceHosts;
}

/** RequestFilterOptions.subresourceHosts. */
export interface SubresourceHosts {
  exact: string[];
  suffixes: string[];
}

/** What a request filter sees. */
export interface FilteredRequest {
  url: string;
  method: string;
  /** document, stylesheet, image, script, xhr, fetch, … (lower case) */
  resourceType: string;
  /** A document load of a frame (main or child). */
  isNavigation: boolean;
  isMainFrame: boolean;
  /** A hop of a redirect chain (the first request is not a redirect). */
  isRedirect: boolean;
  /** The first document of a new window (window.open, target=_blank), requested before its page exists. */
  isNewWindow: boolean;
  page: BackendPage | null;
}

export type RequestFilter = (req: FilteredRequest) => 'allow' | 'block';

export type DialogType = 'alert' | 'confirm' | 'prompt' | 'beforeunload';

/** A JavaScript dialog the page opened; it blocks the page's script until answered. */
export interface BackendDialog {
  type: DialogType;
  message: string;
  defaultValue: string;
  accept(promptText?: string): Promise<void>;
  dismiss(): Promise<void>;
}

/** A download the page started. */
export interface BackendDownload {
  url: string;
  suggestedFilename: string;
  /** Resolves when the file is saved at path; rejects when the download failed. */
  saveAs(path: string): Promise<void>;
  failure(): Promise<string | null>;
}

/** A file chooser the page opened (an <input type=file> was activated): what its input asks for. */
export interface BackendFileChooser {
  multiple: boolean;
  /** The input's accept attribute ("" when none). */
  accept: string;
  /** The input's id and name attributes and its label text ("" when none). */
  id: string;
  name: string;
  label: string;
  /** The input is in the main frame (not an iframe). */
  mainFrame: boolean;
}

/** Request lifecycle events of one page, for in-flight tracking. */
export interface NetworkEvent {
  phase: 'started' | 'finished' | 'failed';
  /** Identity of the request: the same object for its three phases. */
  key: object;
  url: string;
  resourceType: string;
}

/**
 * One frame of a page (main frame or an iframe at any depth, same- or
 * cross-origin). The handle lives as long as the frame; its id never changes.
 */
export interface BackendFrame {
  /** Unique within the page for the frame's lifetime. */
  readonly id: string;
  readonly parentId: string | null;
  url(): string;
  /** The frame's name (the iframe's name attribute, window.name); "" for none. */
  name(): string;
  isDetached(): boolean;
  /** Evaluates a JavaScript expression in this frame (a function expression is called). */
  evaluateExpression(expression: string, timeoutMs: number): Promise<unknown>;
  /** Runs a function in this frame; arguments and result must be JSON-serializable. */
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R>;
  /**
   * Runs fn(element, arg) in the parent frame on the iframe/frame element that
   * hosts this frame. Resolves null for the main frame or when the host element is gone.
   */
  evaluateOnOwner<R, A>(fn: (el: unknown, arg: A) => R, arg: A, timeoutMs: number): Promise<R | null>;
  /**
   * Sets files on the <input type=file> that the page function `locate`
   * returns in this frame; false when it returns no element.
   */
  setInputFiles<A>(locate: (arg: A) => unknown, arg: A, files: string[], timeoutMs: number): Promise<boolean>;
}

export interface BackendPage {
  readonly input: BackendInput;
  readonly emulation: BackendPageEmulation;
  url(): string;
  title(timeoutMs: number): Promise<string>;
  goto(url: string, waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult>;
  goBack(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult>;
  goForward(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult>;
  reload(waitUntil: WaitUntil, timeoutMs: number): Promise<NavigationResult>;
  bringToFront(): Promise<void>;
  screenshot(req: ScreenshotRequest): Promise<ScreenshotResult>;
  /** Runs a function in the page's main frame; arguments and result must be JSON-serializable. */
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R>;
  /** The main frame first, then every attached child frame in tree order. */
  frames(): BackendFrame[];
  isClosed(): boolean;
  onClose(listener: () => void): void;
  /** The renderer crashed (onClose listeners fire too). */
  onCrash(listener: () => void): void;
  /** The main frame committed a new document or a same-document URL change. */
  onNavigated(listener: (url: string) => void): void;
  /** The page that opened this one (window.open / target=_blank), if any. */
  opener(): Promise<BackendPage | null>;
  /** Every JavaScript dialog; the listener must answer it (or keep it for the caller). */
  onDialog(listener: (dialog: BackendDialog) => void): void;
  onDownload(listener: (download: BackendDownload) => void): void;
  /**
   * File choosers the page opens. Where no person could see a native dialog (a headless browser)
   * they are intercepted and reported, and the input keeps its files (set them with
   * BackendFrame.setInputFiles). In a headed browser the native dialog opens as usual for the person
   * and nothing is reported.
   */
  onFileChooser(listener: (chooser: BackendFileChooser) => void): void;
  /** Whether file choosers are intercepted and reported (known once onFileChooser has set up). */
  interceptsFileChoosers(): boolean;
  onNetwork(listener: (event: NetworkEvent) => void): void;
  /** Console messages and uncaught errors of the page's documents. */
  onConsole(listener: (message: BackendConsoleMessage) => void): void;
  /** Every request of the page with method, body, status and a way to read the response body. */
  onRequestLog(listener: (event: RequestLogEvent) => void): void;
  /** Evaluates a JavaScript expression in the main frame (a function expression is called). */
  evaluateExpression(expression: string, timeoutMs: number): Promise<unknown>;
  /**
   * Streams the page's rendered frames (JPEG) to `onFrame` until the returned
   * function is called (a live view for a person; CDP Page.startScreencast on Chromium).
   */
  startScreencast(
    opts: ScreencastOptions,
    onFrame: (frame: ScreencastFrame) => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ScreencastOptions {
  /** JPEG quality 0-100 (default 60). */
  quality?: number;
  maxWidth?: number;
  maxHeight?: number;
}

export interface ScreencastFrame {
  /** JPEG bytes. */
  data: Buffer;
  /** The viewport in CSS pixels the frame shows (input coordinates use these). */
  width: number;
  height: number;
  at: number;
}

/** One browser binary a backend found (or was pointed at). */
export interface BrowserFinding {
  path: string;
  /** Where the path came from: an environment variable, or "default path". */
  source: string;
  executable: boolean;
  /** `--version`'s first line, null when unknown. */
  version: string | null;
  /** The one a launch would use. */
  selected: boolean;
}

/** Something to fix before the backend can launch a browser, with the commands that fix it. */
export interface SetupProblem {
  code: string;
  message: string;
  manual_steps: string[];
}

export interface BackendDiscovery {
  browsers: BrowserFinding[];
  /** The binary a launch would use, or null. */
  selected: string | null;
  problems: SetupProblem[];
  /** Vendor builds of this family installed here (e.g. chrome, edge), by path, selected or not. */
  products?: Record<string, string>;
}

/**
 * What a family's sessions cannot do, declared by its backend next to the code that refuses it:
 * the engine exposes it (Engine.browserLimits) and doors render it in their own names
 * (provider.describe `family_limits`). test/firefox-features.test.ts calls every declared refusal.
 */
export interface BackendLimits {
  /** The family's name for people ("Chromium", "Firefox"). */
  readonly label: string;
  /** Engine operations a session of this family refuses with unsupported_method, and why. */
  readonly unsupportedOps: Readonly<Record<string, string>>;
  /** Other differences a caller should know, one sentence each. */
  readonly notes: readonly string[];
}

/** Session-kind entry points of a backend. */
export interface Backend {
  /** The browser family it drives. */
  readonly name: BrowserFamily;
  /** What its sessions refuse or do differently (see BackendLimits). */
  readonly limits: BackendLimits;
  /** The browsers of this family on this machine (tabwright doctor, provider.status). */
  discover(): BackendDiscovery;
  /**
   * The binary to launch; setup_required with the install command when none is found. With
   * `product`, a vendor build of the family (Chromium: chrome, edge); invalid_request for a family
   * without products, setup_required when that build is not installed.
   */
  executable(product?: string): string;
  launch(settings: LaunchSettings): Promise<BackendBrowser>;
  /** One browser process bound to a profile directory; returns its single context. */
  launchPersistent(
    settings: LaunchSettings,
    userDataDir: string,
    network?: ContextNetworkOptions,
  ): Promise<{ browser: BackendBrowser; context: BackendContext }>;
  /**
   * Attach to a running browser by CDP endpoint (http://host:port or ws://…); `headers` go with the
   * connection request (a Grid behind an authenticating proxy).
   */
  attachCdp(
    endpoint: string,
    timeoutMs: number,
    opts?: { headers?: Record<string, string> },
  ): Promise<BackendBrowser>;
  /** Connect to a remote browser server by its ws endpoint. */
  connectRemote(wsEndpoint: string, timeoutMs: number): Promise<BackendBrowser>;
}

/** A point in CSS pixels of the page's (main frame's) viewport. */
export interface Point {
  x: number;
  y: number;
}

export interface ClickOptions {
  button: 'left' | 'right' | 'middle';
  clickCount: number;
  modifiers: readonly ('Alt' | 'Control' | 'Meta' | 'Shift')[];
}

/** Trusted input (CDP Input domain on Chromium, BiDi input.performActions later). */
export interface BackendInput {
  click(at: Point, opts: ClickOptions): Promise<void>;
  move(at: Point): Promise<void>;
  drag(from: Point, to: Point): Promise<void>;
  wheel(at: Point, dx: number, dy: number): Promise<void>;
  /**
   * Key by key, as a user types. Stops between two keys once `signal` aborts
   * (rejecting with its reason), so a long text never outlives its deadline.
   */
  type(text: string, signal?: AbortSignal): Promise<void>;
  /** One input event with the whole text (what IMEs and paste do). */
  insertText(text: string): Promise<void>;
  /** A key or chord: "Enter", "Control+A", "ControlOrMeta+A". */
  press(chord: string): Promise<void>;
  /** Holds / releases one key ("Shift", "a") or mouse button at the current pointer position. */
  keyDown(key: string): Promise<void>;
  keyUp(key: string): Promise<void>;
  mouseDown(button: 'left' | 'right' | 'middle'): Promise<void>;
  mouseUp(button: 'left' | 'right' | 'middle'): Promise<void>;
}

/** A console message or an uncaught page error, as the backend reports it. */
export interface BackendConsoleMessage {
  type: 'console' | 'pageerror';
  /** console: log, info, warning, error, debug, …; pageerror: error. */
  level: string;
  text: string;
  url: string;
  line: number | null;
}

/** Cookie shape shared by backends (Playwright's). */
export interface BackendCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix seconds; -1 for session cookies. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/** Context-wide state: cookies. */
export interface BackendCookieJar {
  cookies(urls?: string[]): Promise<BackendCookie[]>;
  addCookies(
    cookies: (Partial<BackendCookie> & { name: string; value: string; url?: string })[],
  ): Promise<void>;
  clearCookies(): Promise<void>;
}

/** Request lifecycle with the data a request log keeps (richer than NetworkEvent). */
export type RequestLogEvent =
  | {
      phase: 'request';
      /** Identity of the request: the same object for all its phases (redirect hops are new requests). */
      key: object;
      url: string;
      method: string;
      resourceType: string;
      postData: string | null;
      isNavigation: boolean;
    }
  | { phase: 'response'; key: object; status: number; statusText: string; mimeType: string }
  | { phase: 'finished'; key: object; readBody: () => Promise<Buffer | null> }
  | { phase: 'failed'; key: object; errorText: string };

/**
 * Where ephemeral sessions get their browsers when not from the engine's shared launched browser:
 * a Selenium Grid (src/backends/grid) gives each session a browser of its own on one of its nodes.
 * Closing that browser (BackendBrowser.close) gives it back; onDisconnected fires when it is lost
 * (its node died), in time for calls to fail with browser_not_running.
 */
export interface SessionPlacement {
  readonly kind: 'grid';
  /** Where the sessions go (the Grid's URL), for logs and status. */
  readonly url: string;
  /**
   * Whether the placed browser can reach a proxy on this machine's 127.0.0.1 (the Grid runs here):
   * only then can a restricted session's policy proxy carry its traffic.
   */
  readonly sharesLoopback: boolean;
  /** A browser of its own for one session, within the deadline (`signal` fires when it passes). */
  acquire(backend: Backend, req: PlacementRequest): Promise<BackendBrowser>;
  status(timeoutMs: number): Promise<PlacementStatus>;
  /** Gives back every browser still placed (the engine is closing). */
  close(): Promise<void>;
  /**
   * Ends every placed session at once, without closing its contexts first (a forced engine close):
   * resolves when the placement has been told, so the process may exit.
   */
  forceClose(): Promise<void>;
}

export interface PlacementRequest {
  headless: boolean;
  args: string[];
  signal: AbortSignal;
  remainingMs(): number;
}

/** What a placement reports (provider.status, tabwright doctor). */
export interface PlacementStatus {
  kind: 'grid';
  url: string;
  reachable: boolean;
  /** The Grid's own readiness (a node is up). */
  ready: boolean;
  message: string;
  nodes: number;
  nodes_up: number;
  slots: number;
  free_slots: number;
  sessions: number;
  /** Session requests waiting in the Grid's queue; null when the Grid does not say. */
  queue: number | null;
  /** Browser names the nodes offer (chrome, firefox, …). */
  browsers: string[];
}
