import { isAlive, log } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import { LineTransport } from './line-transport.js';
import { createMcpDoor, type McpDoorOptions } from './server.js';

/** How long a graceful close may take before the browsers we launched are killed. */
export const CLOSE_GRACE_MS = 800;
export const EPHEMERAL_GRACE_MS = 150;
/** How often the parent process is checked. */
const PARENT_POLL_MS = 400;

export interface StdioMcp {
  /** Resolves when the server has shut down (client gone, parent gone, or a signal). */
  done: Promise<string>;
  shutdown(reason: string): Promise<void>;
}

/**
 * Serves MCP on stdin/stdout for one client. Orphan safety: when stdin ends
 * (the client closed the pipe or died), the parent process goes away, or a
 * signal arrives, every session is closed and the engine's browsers with it;
 * if that takes longer than the grace period the engine kills the browsers it launched (and removes
 * their temporary profiles).
 * stdout carries only protocol messages: stray console output goes to stderr.
 * A line is at most 8 MiB (jsonrpc.ts); longer or malformed lines get a
 * JSON-RPC error and the server keeps serving.
 */
export async function serveMcpStdio(engine: Engine, opts: McpDoorOptions = {}): Promise<StdioMcp> {
  console.log = console.error;
  console.info = console.error;
  const door = createMcpDoor(engine, opts);
  // Our own line transport: every line gets an answer, however long or malformed (line-transport.ts).
  const transport = new LineTransport();
  let resolveDone: (why: string) => void = () => {};
  const done = new Promise<string>((r) => {
    resolveDone = r;
  });
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      log.info({ reason }, 'mcp stdio: shutting down');
      // Ephemeral contexts hold nothing worth saving: a short grace. Profiles and remote contexts get
      // longer. Past it the engine kills the browsers it launched and removes their temporary profiles.
      const careful = engine.sessions().some((s) => s.kind === 'persistent' || s.kind === 'remote');
      const graceMs = careful ? CLOSE_GRACE_MS : EPHEMERAL_GRACE_MS;
      const closeDoor = door.close().catch(() => {});
      await Promise.race([closeDoor, new Promise((r) => setTimeout(r, graceMs).unref())]);
      await engine.close({ graceMs }).catch(() => {});
      resolveDone(reason);
    })();
    return stopping;
  };

  transport.onclose = () => void shutdown('transport closed');
  process.stdin.on('end', () => void shutdown('stdin ended'));
  process.stdin.on('close', () => void shutdown('stdin closed'));
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent || !isAlive(parent)) void shutdown('parent process gone');
  }, PARENT_POLL_MS);
  watch.unref();
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig));

  await door.server.connect(transport);
  log.info({ tools: opts.tools ?? 'all' }, 'mcp stdio: ready');
  return { done, shutdown };
}
