import { startHttpServer } from '../doors/http/server.js';
import { Engine } from '../engine/engine.js';
import { log } from '../engine/log.js';

export interface ServeOptions {
  host: string;
  port: number;
  headed?: boolean;
}

/**
 * `tabwright serve`: the main job. One engine behind the HTTP command door,
 * on loopback by default. Closes every browser it launched on SIGINT/SIGTERM.
 */
export async function runServe(opts: ServeOptions): Promise<void> {
  const engine = new Engine({ headless: !opts.headed });
  const server = await startHttpServer(engine, { host: opts.host, port: opts.port, engineHeadless: !opts.headed });
  const example = `curl -s -X POST ${server.url}/playwright/command -H 'content-type: application/json' -d '{"method":"start"}'`;
  process.stdout.write(`tabwright serve listening on ${server.url}\n`);
  process.stdout.write(`health: curl -s ${server.url}/playwright/health\n`);
  process.stdout.write(`try:    ${example}\n`);
  if (opts.host !== '127.0.0.1' && opts.host !== 'localhost' && opts.host !== '::1') {
    log.warn(
      { host: opts.host },
      'listening beyond loopback: this API has no authentication; put access control in front of it',
    );
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server.close().catch(() => {});
    await engine.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
