import { resolve } from 'node:path';
import { readRecord } from '../conformance/record.js';
import { createProviderState, serveSocket, serveStdio } from '../doors/provider/server.js';
import { log } from '../engine/log.js';
import { browserOrExit, createEngine, SHUTDOWN_GRACE_MS, warmUp } from './compose.js';

export interface ProviderCliOptions {
  browser?: string;
  headed?: boolean;
  profileRoot?: string;
  allowRawCdp?: boolean;
  socket?: string;
  /** Let clients open and fetch file: URLs (EngineOptions.allowFileUrls). */
  allowFileUrls?: boolean;
}

/**
 * `tabwright provider`: the Browser Provider Protocol v0.1 on stdio (one
 * JSON envelope per line), or on a Unix socket with --socket. stdout carries
 * only envelopes; logs go to stderr.
 */
export async function runProvider(opts: ProviderCliOptions): Promise<void> {
  // Nothing but envelopes may reach stdout: stray console output goes to stderr.
  for (const k of ['log', 'info', 'debug'] as const) console[k] = console.error;
  const browser = browserOrExit('provider', opts.browser);
  if (opts.profileRoot) process.env.TABWRIGHT_HOME = resolve(opts.profileRoot);
  const engine = createEngine({
    headless: !opts.headed,
    allowFileUrls: opts.allowFileUrls === true,
    browser,
  });
  warmUp(engine, browser);
  const options = {
    browser,
    families: engine.browserFamilies,
    headed: opts.headed === true,
    home: engine.home,
    allowRawCdp: opts.allowRawCdp === true,
    transport: opts.socket ? ('unix-socket-json' as const) : ('stdio-json' as const),
    lastCertification: (family: string) => readRecord(engine.home, family),
  };
  const state = createProviderState(engine, options);
  let stopping = false;
  let closeServer: (() => Promise<void>) | undefined;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ why }, 'provider shutting down');
    await closeServer?.().catch(() => {});
    await engine.close({ graceMs: SHUTDOWN_GRACE_MS }).catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  if (opts.socket) {
    const path = resolve(opts.socket);
    const srv = await serveSocket(state, path);
    closeServer = srv.close;
    process.stderr.write(`tabwright provider listening on ${path}\n`);
    return;
  }
  process.stdout.on('error', () => void stop('stdout closed'));
  await serveStdio(state);
  await stop('stdin closed');
}
