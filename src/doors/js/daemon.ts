import { chmodSync, existsSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { log } from '../../engine/log.js';
import { VERSION } from '../../version.js';
import { type EngineFactory, Harness } from './harness.js';
import { codeStamp, type DaemonPaths, daemonPaths } from './paths.js';
import {
  type DaemonRequest,
  type DaemonResponse,
  DEFAULT_SNIPPET_TIMEOUT_MS,
  MAX_SNIPPET_TIMEOUT_MS,
} from './protocol.js';
import { describeThrown, formatOutput, SnippetRunner, SnippetTimeout } from './runner.js';
import { ping } from './socket-client.js';

const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/**
 * The persistent daemon behind `tabwright js`: one Engine, one snippet
 * context, one Unix socket (0600). Logs (its own, the engine's and the
 * snippets' console output) go to stderr, which the CLI points at the log file.
 */
export async function runDaemon(
  name: string,
  makeEngine: EngineFactory,
  opts: { allowFileUrls?: boolean } = {},
): Promise<void> {
  const paths = daemonPaths(name);
  const dlog = log.child({ door: 'js', daemon: name });
  const startedAt = new Date();
  const stamp = codeStamp(VERSION);

  // A detached rejected promise or a throw in a timer must never take the daemon down.
  process.on('unhandledRejection', (reason) => {
    dlog.warn({ reason: describeThrown(reason) }, 'unhandled rejection (ignored; the daemon keeps running)');
  });
  process.on('uncaughtException', (err) => {
    dlog.error({ err: describeThrown(err) }, 'uncaught exception (ignored; the daemon keeps running)');
  });

  if (existsSync(paths.socket)) {
    if (await ping(paths.socket, 1000)) {
      dlog.info('another daemon already serves this name; exiting');
      return;
    }
    unlinkSync(paths.socket);
  }

  const allowFileUrls = opts.allowFileUrls === true;
  const harness = new Harness({ log: dlog, makeEngine: (s) => makeEngine({ allowFileUrls, ...s }) });
  // Snippet console output always reaches the log (whatever TABWRIGHT_LOG says), one JSON line each.
  const runner = new SnippetRunner(harness.globals(), (level, line) => {
    process.stderr.write(
      `${JSON.stringify({ time: Date.now(), console: level, daemon: name, msg: line })}\n`,
    );
  });

  let server: Server | undefined;
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    dlog.info({ why }, 'daemon stopping');
    server?.close();
    await Promise.race([harness.close().catch(() => {}), new Promise((r) => setTimeout(r, 4000))]);
    try {
      rmSync(paths.socket, { force: true });
      rmSync(paths.pid, { force: true });
    } catch {}
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const handle = async (req: DaemonRequest): Promise<DaemonResponse> => {
    switch (req.op) {
      case 'ping':
        return { ok: true, op: 'ping', pid: process.pid, name };
      case 'stop':
        setTimeout(() => void shutdown('stop requested'), 20);
        return { ok: true, op: 'stop', pid: process.pid };
      case 'status':
        return {
          ok: true,
          op: 'status',
          status: {
            name,
            pid: process.pid,
            version: VERSION,
            codeStamp: stamp,
            startedAt: startedAt.toISOString(),
            uptimeMs: Date.now() - startedAt.getTime(),
            socket: paths.socket,
            log: paths.log,
            snippets: { run: runnerCount, running: runner.running, abandoned: runner.abandoned },
            ...(await harness.status()),
            allowFileUrls,
          },
        };
      case 'eval': {
        const t0 = Date.now();
        const timeoutMs = clampTimeout(req.timeoutMs);
        runnerCount++;
        try {
          const value = await runner.run(String(req.code ?? ''), timeoutMs);
          return { ok: true, op: 'eval', output: formatOutput(value), ms: Date.now() - t0 };
        } catch (err) {
          if (err instanceof SnippetTimeout) {
            dlog.warn({ timeoutMs }, 'snippet abandoned at its deadline');
            return { ok: false, op: 'eval', timedOut: true, timeoutMs };
          }
          return { ok: false, op: 'eval', error: describeThrown(err), ms: Date.now() - t0 };
        }
      }
      default:
        return {
          ok: false,
          op: String((req as { op?: unknown }).op),
          error: { name: 'Error', message: 'unknown request' },
        };
    }
  };
  let runnerCount = 0;

  server = createServer((conn) => serveConnection(conn, handle, dlog));
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(paths.socket, () => resolve());
    });
  } finally {
    process.umask(oldMask);
  }
  chmodSync(paths.socket, 0o600);
  writeFileSync(paths.pid, `${process.pid}\n`, { mode: 0o600 });
  dlog.info({ socket: paths.socket, pid: process.pid, version: VERSION }, 'daemon listening');
}

function clampTimeout(ms: unknown): number {
  const n = typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : DEFAULT_SNIPPET_TIMEOUT_MS;
  return Math.min(n, MAX_SNIPPET_TIMEOUT_MS);
}

function serveConnection(
  conn: Socket,
  handle: (req: DaemonRequest) => Promise<DaemonResponse>,
  dlog: typeof log,
): void {
  let buf = '';
  let done = false;
  conn.setEncoding('utf8');
  conn.on('error', () => {});
  conn.on('data', (chunk: string) => {
    if (done) return;
    buf += chunk;
    if (buf.length > MAX_REQUEST_BYTES) {
      done = true;
      conn.end(
        `${JSON.stringify({ ok: false, op: 'eval', error: { name: 'Error', message: 'request too large' } })}\n`,
      );
      return;
    }
    const nl = buf.indexOf('\n');
    if (nl < 0) return;
    done = true;
    let req: DaemonRequest;
    try {
      req = JSON.parse(buf.slice(0, nl)) as DaemonRequest;
    } catch {
      conn.end(
        `${JSON.stringify({ ok: false, op: 'unknown', error: { name: 'Error', message: 'bad request' } })}\n`,
      );
      return;
    }
    handle(req).then(
      (res) => {
        if (!conn.destroyed) conn.end(`${JSON.stringify(res)}\n`);
      },
      (err) => {
        dlog.error({ err: describeThrown(err) }, 'request failed');
        if (!conn.destroyed)
          conn.end(`${JSON.stringify({ ok: false, op: req.op, error: describeThrown(err) })}\n`);
      },
    );
  });
}

export type { DaemonPaths };
