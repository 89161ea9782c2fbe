import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CLOSED_SHADOW_INIT } from '../../snapshot/injected/bundle.generated.js';
import type { BackendBrowser, BackendContext, BackendPage } from '../backend.js';
import { ChromiumPage } from './chromium-page.js';
import { translatePlaywrightError } from './translate-error.js';

export type ChromiumConnection = 'launched' | 'persistent' | 'cdp' | 'remote';

/**
 * Wraps a playwright Browser. `connection` decides what close() means:
 * launched and persistent browsers are ours to close; attached (cdp) and
 * remote ones are only disconnected from, never killed.
 */
export class ChromiumBrowser implements BackendBrowser {
  readonly family = 'chromium' as const;
  readonly label: string;
  private connected = true;
  private readonly pages = new WeakMap<Page, ChromiumPage>();
  private readonly contexts = new WeakMap<BrowserContext, ChromiumContext>();
  private readonly ownedContexts = new Set<BrowserContext>();

  constructor(
    readonly pw: Browser,
    readonly connection: ChromiumConnection,
    private readonly launchedPid?: number,
  ) {
    this.label = 'Chromium';
    pw.on('disconnected', () => {
      this.connected = false;
    });
  }

  version(): string {
    return this.pw.version();
  }

  isConnected(): boolean {
    return this.connected && this.pw.isConnected();
  }

  onDisconnected(listener: () => void): void {
    if (!this.isConnected()) {
      queueMicrotask(listener);
      return;
    }
    this.pw.once('disconnected', listener);
  }

  wrapPage = (p: Page): ChromiumPage => {
    let w = this.pages.get(p);
    if (!w) {
      w = new ChromiumPage(p, () => this.isConnected(), this.wrapPage);
      this.pages.set(p, w);
    }
    return w;
  };

  wrapContext(c: BrowserContext): ChromiumContext {
    let w = this.contexts.get(c);
    if (!w) {
      w = new ChromiumContext(c, this);
      this.contexts.set(c, w);
      // Lets the snapshot walker see closed shadow roots in documents created from now on.
      void c.addInitScript({ content: CLOSED_SHADOW_INIT }).catch(() => {});
    }
    return w;
  }

  async newContext(): Promise<BackendContext> {
    try {
      const ctx = await this.pw.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
      this.ownedContexts.add(ctx);
      return this.wrapContext(ctx);
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'session.ensure', browserAlive: this.isConnected() });
    }
  }

  defaultContext(): BackendContext | undefined {
    const first = this.pw.contexts()[0];
    return first ? this.wrapContext(first) : undefined;
  }

  async close(): Promise<void> {
    if (!this.pw.isConnected()) return;
    if (this.connection === 'cdp') {
      // Playwright's close() on a CDP-attached browser closes the contexts it
      // created and disconnects; the user's browser and tabs stay.
      for (const ctx of this.ownedContexts) await ctx.close().catch(() => {});
    }
    await this.pw.close().catch(() => {});
  }

  async pid(): Promise<number | undefined> {
    if (this.launchedPid) return this.launchedPid;
    try {
      const cdp = await this.pw.newBrowserCDPSession();
      const info = (await cdp.send('SystemInfo.getProcessInfo')) as {
        processInfo: { type: string; id: number }[];
      };
      await cdp.detach().catch(() => {});
      return info.processInfo.find((p) => p.type === 'browser')?.id;
    } catch {
      return undefined;
    }
  }
}

export class ChromiumContext implements BackendContext {
  constructor(
    readonly pw: BrowserContext,
    private readonly browser: ChromiumBrowser,
  ) {}

  pages(): BackendPage[] {
    return this.pw.pages().map(this.browser.wrapPage);
  }

  async newPage(): Promise<BackendPage> {
    try {
      return this.browser.wrapPage(await this.pw.newPage());
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'tab.new', browserAlive: this.browser.isConnected() });
    }
  }

  onPage(listener: (page: BackendPage) => void): void {
    this.pw.on('page', (p) => listener(this.browser.wrapPage(p)));
  }

  async close(): Promise<void> {
    await this.pw.close().catch(() => {});
  }
}
