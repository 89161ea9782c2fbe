import type { BackendBrowser, BackendContext, BackendPage } from './backend.js';

/**
 * Raw escape hatches a door may need beyond the engine's guarded calls: raw
 * CDP sessions (the JS harness's page.cdp and raw helpers), target ids, and
 * tracing for consented recordings. Kept beside backend.ts (additive) so the
 * interface stays small; Chromium implements it in chromium/raw.ts.
 */
export interface RawCdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  on(event: string, listener: (params: unknown) => void): void;
  off(event: string, listener: (params: unknown) => void): void;
  detach(): Promise<void>;
}

export interface TracingOptions {
  title?: string;
  screenshots?: boolean;
  snapshots?: boolean;
}

export interface RawBackendOps {
  /** The browser's id of the tab (CDP targetId on Chromium). */
  pageTargetId(page: BackendPage): Promise<string>;
  /** A new raw CDP session attached to the tab. */
  pageCdpSession(page: BackendPage): Promise<RawCdpSession>;
  /** A browser-level session, or with targetId one attached to that tab (it must be a page of this connection). */
  browserCdpSession(browser: BackendBrowser, targetId?: string): Promise<RawCdpSession>;
  startTracing(context: BackendContext, opts: TracingOptions): Promise<void>;
  /** Stops tracing and writes the trace (a Playwright trace zip) to path. */
  stopTracing(context: BackendContext, path: string): Promise<void>;
}
