import { join } from 'node:path';
import { TabwrightError } from '../../engine/errors.js';
import type {
  Backend,
  BackendBrowser,
  BackendContext,
  BackendDiscovery,
  ContextNetworkOptions,
  LaunchSettings,
} from '../backend.js';
import type { BidiConnection } from './bidi-connection.js';
import { discoverFirefox, requireFirefox } from './discovery.js';
import type { Driver } from './driver.js';
import type { FirefoxBrowser, FirefoxConnection } from './firefox-browser.js';
import { profileLockedBy, type StartedFirefox, startFirefox } from './launch.js';
import { FIREFOX_LIMITS } from './limits.js';

let loading: Promise<Driver> | undefined;
/** The BiDi client and ws, imported once, when a Firefox is first started or attached (driver.ts). */
function driver(): Promise<Driver> {
  loading ??= import('./driver.js');
  return loading;
}

/** A window large enough for the 1280×800 viewport every context sets (firefox-browser.ts). */
const WINDOW_SIZE = ['--width=1280', '--height=900'];

/**
 * The Firefox backend: WebDriver BiDi spoken directly over a WebSocket (`ws`), typed by the spec's
 * definitions. Why not a driver library is in docs/ARCHITECTURE.md ("Firefox over WebDriver BiDi").
 */
export class FirefoxBackend implements Backend {
  readonly name = 'firefox' as const;
  readonly limits = FIREFOX_LIMITS;

  executable(product?: string): string {
    if (product !== undefined)
      throw new TabwrightError(
        'invalid_request',
        `Firefox has no product "${product}": chrome and edge are Chromium builds. Start the session with browser chromium, or without product.`,
        { details: { field: 'product' } },
      );
    return requireFirefox();
  }

  discover(): BackendDiscovery {
    return discoverFirefox();
  }

  async launch(settings: LaunchSettings): Promise<BackendBrowser> {
    const started = await startFirefox({
      executablePath: settings.executablePath,
      headless: settings.headless,
      args: [...WINDOW_SIZE, ...(settings.args ?? [])],
      workDir: settings.workDir,
    });
    return open(started, 'launched', settings);
  }

  async launchPersistent(
    settings: LaunchSettings,
    userDataDir: string,
    network: ContextNetworkOptions = {},
  ): Promise<{ browser: BackendBrowser; context: BackendContext }> {
    const holder = profileLockedBy(userDataDir);
    if (holder) throw profileInUse(userDataDir);
    let started: StartedFirefox;
    try {
      started = await startFirefox({
        executablePath: settings.executablePath,
        headless: settings.headless,
        args: [...WINDOW_SIZE, ...(settings.args ?? [])],
        workDir: settings.workDir,
        profileDir: userDataDir,
        proxyServer: network.proxyServer,
      });
    } catch (err) {
      if (profileLockedBy(userDataDir)) throw profileInUse(userDataDir);
      throw err;
    }
    const browser = await open(started, 'persistent', settings);
    const context = await browser.adoptContext('default', false);
    return { browser, context };
  }

  /**
   * Attach to a Firefox started with `--remote-debugging-port=PORT`: the endpoint is
   * http://127.0.0.1:PORT or ws://127.0.0.1:PORT (the BiDi session path is added). Firefox allows one
   * BiDi session at a time, so a browser another client drives cannot be attached to.
   */
  async attachCdp(endpoint: string, timeoutMs: number): Promise<BackendBrowser> {
    const u = new URL(endpoint);
    const url = `ws://${u.host}${u.pathname.endsWith('/session') ? u.pathname : '/session'}`;
    try {
      const { BidiConnection, FirefoxBrowser } = await driver();
      const conn = await BidiConnection.connect(url, timeoutMs);
      const browser = await FirefoxBrowser.open(conn, {
        connection: 'attach',
        version: await newSession(conn, false),
        headless: false,
      });
      await browser.adoptContext('default', false);
      return browser;
    } catch (err) {
      throw new TabwrightError(
        'browser_not_running',
        `Could not attach to Firefox at ${endpoint}: ${(err as Error).message}. Start Firefox with --remote-debugging-port=PORT (no other WebDriver client connected) and pass http://127.0.0.1:PORT.`,
        { retryable: true, details: { endpoint } },
      );
    }
  }

  async connectRemote(wsEndpoint: string, _timeoutMs: number): Promise<BackendBrowser> {
    throw new TabwrightError(
      'unsupported_target',
      `Remote browser servers (${wsEndpoint}) are Playwright's, for Chromium. For Firefox attach to a Firefox started with --remote-debugging-port (session kind "attach"), or use browser "chromium".`,
      { details: { field: 'kind', browser: 'firefox' } },
    );
  }
}

/** session.new: prompts are ours to answer (no automatic handling); returns the browser version. */
async function newSession(conn: BidiConnection, headless: boolean): Promise<string> {
  const prompts = { default: 'ignore', ...(headless ? { file: 'dismiss' } : {}) };
  const r = await conn
    .send('session.new', { capabilities: { alwaysMatch: { unhandledPromptBehavior: prompts } } } as never)
    .catch(() => {
      // A Firefox without the "file" prompt handler: prompts as before, file pickers not intercepted.
      return conn.send('session.new', {
        capabilities: { alwaysMatch: { unhandledPromptBehavior: { default: 'ignore' } } },
      } as never);
    });
  const caps = (r as { capabilities: { browserVersion?: string } }).capabilities;
  return caps.browserVersion ?? 'unknown';
}

async function open(
  started: StartedFirefox,
  connection: FirefoxConnection,
  settings: LaunchSettings,
): Promise<FirefoxBrowser> {
  const launched = {
    pid: started.child.pid!,
    temporaryProfile: started.temporaryProfile ? started.profileDir : null,
    workDir: settings.workDir ?? null,
  };
  try {
    const { BidiConnection, FirefoxBrowser } = await driver();
    const conn = await BidiConnection.connect(`${started.endpoint}/session`, 15_000);
    started.child.once('exit', () => conn.close());
    const version = await newSession(conn, settings.headless);
    const browser = await FirefoxBrowser.open(conn, {
      connection,
      version,
      headless: settings.headless,
      child: started.child,
      launched,
      downloadsDir: join(settings.workDir ?? started.profileDir, 'downloads'),
    });
    if (connection === 'launched') await browser.adoptContext('default', false);
    return browser;
  } catch (err) {
    const { forceClose } = await import('../process-tree.js');
    forceClose(launched);
    throw new TabwrightError(
      'browser_not_running',
      `Firefox at ${settings.executablePath} started but its WebDriver BiDi session failed: ${(err as Error).message}. Run \`tabwright doctor\`.`,
      { retryable: true, details: { executable: settings.executablePath } },
    );
  }
}

function profileInUse(dir: string): TabwrightError {
  return new TabwrightError(
    'permission_denied',
    `The profile directory ${dir} is in use by another browser. Close that browser or use another profile name.`,
    { details: { profile_dir: dir } },
  );
}
