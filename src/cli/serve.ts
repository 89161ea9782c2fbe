import { filesOptionsFromEnv } from '../doors/http/files-config.js';
import { type HttpServer, type HttpServerOptions, startHttpServer } from '../doors/http/server.js';
import type { MountedRoutes } from '../doors/kit/index.js';
import { MCP_PATH, mcpRefusal, mountMcpHttp } from '../doors/mcp/http.js';
import type { Engine } from '../engine/engine.js';
import { log } from '../engine/log.js';
import { OriginPolicy } from '../engine/policy.js';
import { browserOrExit, createEngine, SHUTDOWN_GRACE_MS, warmUp } from './compose.js';
import { HEALTH_PATH, healthRoutes } from './health.js';

export interface ServeOptions {
  host: string;
  port: number;
  headed?: boolean;
  /** chromium or firefox (--browser, $TABWRIGHT_BROWSER). */
  browser?: string;
  /** Bearer token (falls back to $TABWRIGHT_TOKEN); required for a non-loopback host. */
  token?: string;
  /** Server-wide origin allowlist: every task and /mcp session gets it or a subset of it. */
  allowOrigin?: string[];
  /** Let tasks open and fetch file: URLs (EngineOptions.allowFileUrls). */
  allowFileUrls?: boolean;
  /** Back-pressure: sessions held at once (default $TABWRIGHT_MAX_SESSIONS, else no limit). */
  maxSessions?: number;
  /** Back-pressure: refuse new sessions below this much available memory, MiB (default $TABWRIGHT_MIN_FREE_MB, else 256). */
  minFreeMb?: number;
}

/**
 * MCP over streamable HTTP at /mcp on the HTTP door's server (src/doors/mcp/http.ts): its sessions
 * get the server's origin ceiling (`--allow-origin`) like the HTTP door's tasks.
 */
export function mcpOverHttp(engine: Engine, allowedOrigins: string[] | undefined): MountedRoutes {
  return {
    path: MCP_PATH,
    refusal: mcpRefusal,
    register(app) {
      // Parsed here, after the HTTP door checked the same list (a bad one stops the server there).
      const policy = allowedOrigins?.length
        ? OriginPolicy.parse({ allowed_origins: allowedOrigins }).toJSON()
        : undefined;
      mountMcpHttp(app, engine, { policy });
    },
  };
}

/** The server `tabwright serve` runs: the HTTP command door with MCP mounted at /mcp. */
export function startServer(engine: Engine, opts: HttpServerOptions = {}): Promise<HttpServer> {
  return startHttpServer(engine, {
    ...opts,
    mounts: [...(opts.mounts ?? []), mcpOverHttp(engine, opts.allowedOrigins), healthRoutes(engine)],
  });
}

/**
 * `tabwright serve`: the main job. One engine behind the HTTP command door (and MCP at /mcp),
 * on loopback by default. Closes every browser it launched on SIGINT/SIGTERM.
 */
export async function runServe(opts: ServeOptions): Promise<void> {
  const token = opts.token ?? (process.env.TABWRIGHT_TOKEN || undefined);
  const browser = browserOrExit('serve', opts.browser);
  const admission = {
    ...(opts.maxSessions !== undefined && { maxSessions: opts.maxSessions }),
    ...(opts.minFreeMb !== undefined && { minFreeMemoryMb: opts.minFreeMb }),
  };
  const engine = createEngine({
    headless: !opts.headed,
    allowFileUrls: opts.allowFileUrls === true,
    admission,
    browser,
  });
  warmUp(engine, browser);
  let server: HttpServer;
  try {
    // TABWRIGHT_UPLOAD_* / TABWRIGHT_OCR_* (files-config.ts); a bad value stops the server with the reason.
    const files = filesOptionsFromEnv();
    server = await startServer(engine, {
      files,
      host: opts.host,
      port: opts.port,
      engineHeadless: !opts.headed,
      token,
      allowedOrigins: opts.allowOrigin,
    });
  } catch (err) {
    await engine.close({ graceMs: SHUTDOWN_GRACE_MS }).catch(() => {});
    process.stderr.write(`tabwright serve: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const auth = token ? ` -H 'authorization: Bearer $TABWRIGHT_TOKEN'` : '';
  const example = `curl -s -X POST ${server.url}/playwright/command -H 'content-type: application/json'${auth} -d '{"method":"start"}'`;
  // The banner is one write, so a reader that has its first lines has all of them.
  const banner = [
    `tabwright serve listening on ${server.url}`,
    `health: curl -s ${server.url}${HEALTH_PATH}  (sessions, memory, limits)`,
    `try:    ${example}`,
    ...(token ? ['auth:   send "Authorization: Bearer <token>" with every request'] : []),
    ...(opts.allowOrigin?.length ? [`origins: only ${opts.allowOrigin.join(', ')}`] : []),
    ...(opts.allowFileUrls ? ['file:   file: URLs allowed (--allow-file-urls)'] : []),
  ];
  process.stdout.write(`${banner.join('\n')}\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server.close().catch(() => {});
    await engine.close({ graceMs: SHUTDOWN_GRACE_MS }).catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
