import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TabwrightError } from '../../engine/errors.js';
import type {
  Backend,
  BackendBrowser,
  BackendContext,
  BackendDiscovery,
  BackendLimits,
  ContextNetworkOptions,
  LaunchSettings,
} from '../backend.js';
import { discoverBinary } from '../binary-version.js';
import {
  CHROMIUM_INSTALL_COMMAND,
  chromiumVersion,
  findChromium,
  findChromiumProducts,
  invalidProductPaths,
  listChromiumCandidates,
  productLabel,
  productOfBinary,
  requireChromium,
  requireChromiumProduct,
} from './discovery.js';
import type { Driver } from './driver.js';
import { launchArgs } from './flags.js';

let loading: Promise<Driver> | undefined;
/** playwright-core and the wrappers over it, imported once, when a browser is first needed (driver.ts). */
function driver(): Promise<Driver> {
  loading ??= import('./driver.js');
  return loading;
}

/** The Chromium backend, on playwright-core. */
export class ChromiumBackend implements Backend {
  readonly name = 'chromium' as const;
  /** Chromium is the reference family: it refuses nothing the engine offers. */
  readonly limits: BackendLimits = { label: 'Chromium', unsupportedOps: {}, notes: [] };

  /** Chromium's binary, or with `product` a vendor build's (chrome, edge: $TABWRIGHT_CHROME, … or its install path). */
  executable(product?: string): string {
    return product === undefined ? requireChromium().path : requireChromiumProduct(product);
  }

  discover(): BackendDiscovery {
    const { browsers, selected, problems } = discoverBinary({
      family: 'Chromium',
      variable: 'TABWRIGHT_CHROMIUM',
      installCommand: CHROMIUM_INSTALL_COMMAND,
      candidates: listChromiumCandidates(),
      find: () => findChromium()?.path,
      version: chromiumVersion,
    });
    for (const bad of invalidProductPaths())
      problems.push({
        code: 'product_path_invalid',
        message: `${bad.variable} points to ${bad.path}, which is not an executable file: sessions asking for ${bad.product} cannot start. Fix the path or unset the variable.`,
        manual_steps: [`unset ${bad.variable}`],
      });
    return { browsers, selected, problems, products: findChromiumProducts() };
  }

  async launch(settings: LaunchSettings): Promise<BackendBrowser> {
    const { chromium, ChromiumBrowser, driverDefaultArgs } = await driver();
    try {
      const browser = await chromium.launch({
        executablePath: settings.executablePath,
        headless: settings.headless,
        ...launchArgs(settings.args ?? [], driverDefaultArgs()),
        ...workDirOptions(settings.workDir),
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      const wrapped = new ChromiumBrowser(browser, 'launched', browserLabel(settings));
      await wrapped.learnProcess(settings.workDir);
      return wrapped;
    } catch (err) {
      throw await launchFailure(err, settings.executablePath);
    }
  }

  async launchPersistent(
    settings: LaunchSettings,
    userDataDir: string,
    network: ContextNetworkOptions = {},
  ): Promise<{ browser: BackendBrowser; context: BackendContext }> {
    const { chromium, ChromiumBrowser, chromiumProxy, driverDefaultArgs } = await driver();
    try {
      const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: settings.executablePath,
        headless: settings.headless,
        ...launchArgs(settings.args ?? [], driverDefaultArgs()),
        proxy: chromiumProxy(network),
        ...workDirOptions(settings.workDir),
        acceptDownloads: true,
        viewport: { width: 1280, height: 800 },
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      const pwBrowser = context.browser();
      if (!pwBrowser) throw new Error('persistent context has no browser');
      const browser = new ChromiumBrowser(pwBrowser, 'persistent', browserLabel(settings));
      await browser.learnProcess(settings.workDir);
      return { browser, context: browser.wrapContext(context) };
    } catch (err) {
      if (/ProcessSingleton|profile.*in use|SingletonLock/i.test(String(err))) {
        throw new TabwrightError(
          'permission_denied',
          `The profile directory ${userDataDir} is in use by another browser. Close that browser or use another profile name.`,
          { details: { profile_dir: userDataDir } },
        );
      }
      throw await launchFailure(err, settings.executablePath);
    }
  }

  async attachCdp(
    endpoint: string,
    timeoutMs: number,
    opts: { headers?: Record<string, string> } = {},
  ): Promise<BackendBrowser> {
    const { chromium, ChromiumBrowser } = await driver();
    try {
      const browser = await chromium.connectOverCDP(endpoint, { timeout: timeoutMs, headers: opts.headers });
      return new ChromiumBrowser(browser, 'cdp');
    } catch (err) {
      throw new TabwrightError(
        'browser_not_running',
        `Could not attach to a browser at ${endpoint}: ${firstLineOf(err)}. Start Chromium with --remote-debugging-port=PORT and pass http://127.0.0.1:PORT.`,
        { retryable: true, details: { endpoint } },
      );
    }
  }

  async connectRemote(wsEndpoint: string, timeoutMs: number): Promise<BackendBrowser> {
    const { chromium, ChromiumBrowser } = await driver();
    try {
      const browser = await chromium.connect(wsEndpoint, { timeout: timeoutMs });
      return new ChromiumBrowser(browser, 'remote');
    } catch (err) {
      throw new TabwrightError(
        'browser_not_running',
        `Could not connect to the remote browser server at ${wsEndpoint}: ${firstLineOf(err)}. Check that the server runs and the endpoint (including its path) is right.`,
        { retryable: true, details: { endpoint: wsEndpoint } },
      );
    }
  }
}

/** What a launched browser is called: the vendor's name for a product's binary (asked for, or found as the default), else Chromium. */
function browserLabel(settings: LaunchSettings): string {
  const product = settings.product ?? productOfBinary(settings.executablePath);
  return (product && productLabel(product)) ?? 'Chromium';
}

/**
 * Everything the launch would otherwise put in the system's temporary directory goes into the work
 * directory, which the engine removes even when this process exits before playwright-core cleans up:
 * downloads waiting to be saved, playwright-core's artifacts directory (traces, videos; left behind as
 * `playwright-artifacts-*` by an exit under load), and the browser's own temporary files (sockets,
 * shared memory).
 */
function workDirOptions(workDir: string | undefined): {
  downloadsPath?: string;
  artifactsDir?: string;
  env?: Record<string, string>;
} {
  if (!workDir) return {};
  const tmp = join(workDir, 'tmp');
  const artifactsDir = join(workDir, 'artifacts');
  for (const dir of [tmp, artifactsDir]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    downloadsPath: join(workDir, 'downloads'),
    artifactsDir,
    env: { ...(process.env as Record<string, string>), TMPDIR: tmp },
  };
}

function firstLineOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

async function launchFailure(err: unknown, executablePath: string): Promise<TabwrightError> {
  const { translatePlaywrightError } = await driver();
  const t = translatePlaywrightError(err, { operation: 'browser launch', browserAlive: true });
  return new TabwrightError(
    'browser_not_running',
    `Chromium at ${executablePath} failed to start: ${firstLineOf(err)}. Run \`tabwright doctor\` to check the browser, or set TABWRIGHT_CHROMIUM.`,
    { retryable: true, details: { executable: executablePath, cause: t.details.cause ?? firstLineOf(err) } },
  );
}
