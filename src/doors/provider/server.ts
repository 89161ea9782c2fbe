import { chmodSync, existsSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { log, TabwrightError } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import { Connection, type ProviderState } from './connection.js';
import { buildDescribe } from './describe.js';
import { EventRouter } from './events.js';
import { ALL_METHODS, providerTable } from './registry.js';
import type { ProviderOptions } from './table.js';

export function createProviderState(engine: Engine, options: ProviderOptions): ProviderState {
  const table = providerTable(options);
  let described: Record<string, unknown> | undefined;
  return {
    engine,
    options,
    table,
    describe: () => {
      described ??= buildDescribe(ALL_METHODS, table, options, engine.browserLimits());
      return described;
    },
    events: new EventRouter(engine),
    clientSessions: new Map(),
  };
}

/** Serves one client on stdin/stdout; resolves when stdin ends and every reply is written. */
export async function serveStdio(
  state: ProviderState,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const conn = new Connection(state, (line) => {
    output.write(line);
  });
  await new Promise<void>((resolve) => {
    input.on('data', (chunk: Buffer) => conn.push(chunk));
    input.on('end', resolve);
    input.on('close', resolve);
  });
  await conn.end();
  conn.close();
}

async function socketInUse(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection(path);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/**
 * Serves every client that connects to a Unix domain socket at `path`
 * (mode 0600: only this user). A stale socket file is replaced; a live one
 * (another provider) is refused.
 */
export async function serveSocket(
  state: ProviderState,
  path: string,
): Promise<{ server: Server; close(): Promise<void> }> {
  if (existsSync(path)) {
    if (!lstatSync(path).isSocket()) {
      throw new TabwrightError(
        'invalid_request',
        `${path} exists and is not a socket; choose another --socket path.`,
        {
          details: { field: 'socket' },
        },
      );
    }
    if (await socketInUse(path)) {
      throw new TabwrightError(
        'permission_denied',
        `Another provider is listening on ${path}. Stop it or choose another --socket path.`,
        { details: { field: 'socket' } },
      );
    }
    unlinkSync(path);
  }
  const conns = new Set<Connection>();
  const server = createServer((sock) => {
    const conn = new Connection(state, (line) => {
      if (!sock.destroyed) sock.write(line);
    });
    conns.add(conn);
    sock.on('data', (chunk: Buffer) => conn.push(chunk));
    sock.on('error', (err) => log.debug({ err: String(err) }, 'provider socket client error'));
    sock.on('end', () => {
      void conn.end().then(() => sock.end());
    });
    sock.on('close', () => {
      conn.close();
      conns.delete(conn);
    });
  });
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } finally {
    process.umask(oldMask);
  }
  chmodSync(path, 0o600);
  return {
    server,
    async close() {
      for (const c of conns) c.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      try {
        unlinkSync(path);
      } catch {}
    },
  };
}
