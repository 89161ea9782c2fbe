import type { CDPSession, Page as PwPage } from 'playwright-core';
import { TabwrightError } from '../../engine/errors.js';
import type { BackendBrowser, BackendContext, BackendPage } from '../backend.js';
import type { RawBackendOps, RawCdpSession, TracingOptions } from '../raw.js';
import { ChromiumBrowser, ChromiumContext } from './chromium-browser.js';
import { ChromiumPage } from './chromium-page.js';
import { translatePlaywrightError } from './translate-error.js';

function wrap(cdp: CDPSession): RawCdpSession {
  return {
    send: async (method, params) => {
      try {
        // biome-ignore lint/suspicious/noExplicitAny: raw protocol: any method name.
        return await cdp.send(method as any, params as any);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        throw new TabwrightError('invalid_request', `CDP ${method} failed: ${msg.split('\n')[0]}`, {
          details: { method },
          cause: err,
        });
      }
    },
    // biome-ignore lint/suspicious/noExplicitAny: raw protocol events.
    on: (event, listener) => void cdp.on(event as any, listener as any),
    // biome-ignore lint/suspicious/noExplicitAny: raw protocol events.
    off: (event, listener) => void cdp.off(event as any, listener as any),
    detach: () => cdp.detach().catch(() => {}),
  };
}

function pwPage(page: BackendPage): PwPage {
  if (!(page instanceof ChromiumPage))
    throw new TabwrightError('unsupported_method', 'Raw CDP needs Chromium.');
  return page.pw;
}

const targetIds = new WeakMap<PwPage, Promise<string>>();

async function targetIdOf(p: PwPage): Promise<string> {
  let id = targetIds.get(p);
  if (!id) {
    id = (async () => {
      const cdp = await p.context().newCDPSession(p);
      try {
        const info = (await cdp.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
        return info.targetInfo.targetId;
      } finally {
        await cdp.detach().catch(() => {});
      }
    })();
    id.catch(() => targetIds.delete(p));
    targetIds.set(p, id);
  }
  return id;
}

export const chromiumRaw: RawBackendOps = {
  async pageTargetId(page) {
    try {
      return await targetIdOf(pwPage(page));
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'page.target_id', browserAlive: true });
    }
  },
  async pageCdpSession(page) {
    const p = pwPage(page);
    try {
      return wrap(await p.context().newCDPSession(p));
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'page.cdp', browserAlive: true });
    }
  },
  async browserCdpSession(browser: BackendBrowser, targetId?: string) {
    if (!(browser instanceof ChromiumBrowser))
      throw new TabwrightError('unsupported_method', 'Raw CDP needs Chromium.');
    try {
      if (!targetId) return wrap(await browser.pw.newBrowserCDPSession());
      for (const ctx of browser.pw.contexts()) {
        for (const p of ctx.pages()) {
          if ((await targetIdOf(p).catch(() => '')) === targetId) return wrap(await ctx.newCDPSession(p));
        }
      }
    } catch (err) {
      throw translatePlaywrightError(err, { operation: 'browser.cdp', browserAlive: browser.isConnected() });
    }
    throw new TabwrightError(
      'page_not_found',
      `No tab with target id ${targetId} on this connection. List targets (listPageTargets) and pass one of their ids.`,
      { details: { target_id: targetId } },
    );
  },
  async startTracing(context: BackendContext, opts: TracingOptions) {
    if (!(context instanceof ChromiumContext))
      throw new TabwrightError('unsupported_method', 'Tracing needs Chromium.');
    await context.pw.tracing.start({
      title: opts.title,
      screenshots: opts.screenshots ?? true,
      snapshots: opts.snapshots ?? true,
    });
  },
  async stopTracing(context: BackendContext, path: string) {
    if (!(context instanceof ChromiumContext))
      throw new TabwrightError('unsupported_method', 'Tracing needs Chromium.');
    await context.pw.tracing.stop({ path });
  },
};
