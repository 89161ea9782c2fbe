import { TabwrightError } from '../../engine/errors.js';
import type { Backend, BackendBrowser, BrowserFamily, PlacementRequest } from '../backend.js';
import { isRoot, QUIET_FLAGS, WEBRTC_FLAGS, withDisabledFeatures } from '../chromium/flags.js';

export type Capabilities = Record<string, unknown>;

/**
 * How one browser family runs on a Grid: the capabilities of its new-session request and how its
 * backend connects to the session the Grid created. A family added here (Firefox through the
 * BiDi `webSocketUrl` capability, once its backend can connect to a given endpoint) needs nothing
 * else of the placement.
 */
export interface GridFamily {
  capabilities(req: PlacementRequest, extra: Capabilities, onThisMachine: boolean): Capabilities;
  /** Connects the family's backend to the created session (its returned capabilities). */
  connect(
    backend: Backend,
    session: { id: string; capabilities: Capabilities; gridBase: string; headers: Record<string, string> },
    timeoutMs: number,
  ): Promise<BackendBrowser>;
}

const chromium: GridFamily = {
  capabilities(req, extra, onThisMachine) {
    const theirs = (extra['goog:chromeOptions'] ?? {}) as { args?: string[] };
    // Our launch flags (quiet network, no WebRTC UDP), headless; --no-sandbox only where we know the
    // node runs as root: on this machine, as we do. One --disable-features: ours (services that call
    // home; chromedriver adds none) merged with any the caller disables.
    const args = withDisabledFeatures([
      ...QUIET_FLAGS,
      ...WEBRTC_FLAGS,
      ...(req.headless ? ['--headless=new'] : []),
      ...(onThisMachine && isRoot() ? ['--no-sandbox'] : []),
      ...req.args,
      ...(theirs.args ?? []),
    ]);
    return {
      browserName: 'chrome',
      // chromedriver must never answer a dialog: the engine's dialog policy does.
      unhandledPromptBehavior: 'ignore',
      ...extra,
      'goog:chromeOptions': { ...theirs, args },
    };
  },
  async connect(backend, session, timeoutMs) {
    if (typeof session.capabilities['se:cdp'] !== 'string') {
      throw new TabwrightError(
        'setup_required',
        'The Grid created a session but offers no CDP endpoint for it (no se:cdp capability): tabwright drives Chromium on a Grid over CDP. Use Selenium Grid 4 with Chrome/Chromium nodes, and do not disable CDP (se:cdpEnabled).',
        { details: { grid: session.gridBase, reason: 'no_cdp' } },
      );
    }
    // The Grid's own address as we reach it, not the one it reports (se:cdp names the router's
    // external address, which a Grid behind a proxy or on loopback may not answer at).
    const endpoint = `${session.gridBase.replace(/^http/, 'ws')}/session/${session.id}/se/cdp`;
    return backend.attachCdp(endpoint, timeoutMs, { headers: session.headers });
  },
};

const FAMILIES: Partial<Record<BrowserFamily, GridFamily>> = { chromium };

export function gridFamily(name: BrowserFamily): GridFamily {
  const f = FAMILIES[name];
  if (!f) {
    throw new TabwrightError(
      'unsupported_target',
      `Sessions on a Selenium Grid run Chromium for now, not ${name}. Start the session with browser "chromium", or without --grid to use a local ${name}.`,
      { details: { field: 'browser', supported: Object.keys(FAMILIES) } },
    );
  }
  return f;
}
