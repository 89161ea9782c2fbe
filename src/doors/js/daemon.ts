import { chmodSync, existsSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { log } from '../../engine/api.js';
import { VERSION } from '../../version.js';
import { type EngineFactory, Harness } from './harness.js';
import { codeStamp, type DaemonPaths, daemonPaths } from './paths.js';
import {
  type DaemonRequest,
  type DaemonResponse,
  DEFAULT_SNIPPET_TIMEOUT_MS,
  MAX_REQUEST_BYTES,
  MAX_SNIPPET_TIMEOUT_MS,
  parseRequest,
  requestError,
} from './protocol.js';
import { describeThrown, formatOutput, SnippetRunner, SnippetTimeout } from './runner.js';
import { ping } from './socket-client.js';

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
    }
  };
  let runnerCount = 0;

  server = createServer({ allowHalfOpen: true }, (conn) => serveConnection(conn, handle, dlog));
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

/** The answer as one line; an answer that cannot be serialized becomes an error answer (never silence). */
function answerLine(res: DaemonResponse): string {
  try {
    return `${JSON.stringify(res)}\n`;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return `${JSON.stringify(requestError(res.op, `The answer could not be serialized (${why}); return plain data.`))}\n`;
  }
}

function serveConnection(
  conn: Socket,
  handle: (req: DaemonRequest) => Promise<DaemonResponse>,
  dlog: typeof log,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const answer = (res: DaemonResponse) => {
    if (!conn.destroyed) conn.end(answerLine(res));
  };
  const serve = (line: string) => {
    const parsed = parseRequest(line);
    if (!parsed.ok) {
      answer(parsed.res);
      return;
    }
    const op = parsed.req.op;
    handle(parsed.req).then(answer, (err) => {
      dlog.error({ err: describeThrown(err) }, 'request failed');
      answer({ ok: false, op, error: describeThrown(err) });
    });
  };
  conn.on('error', () => {});
  conn.on('data', (chunk: Buffer) => {
    if (done) return;
    const nl = chunk.indexOf(0x0a);
    const part = nl < 0 ? chunk : chunk.subarray(0, nl);
    chunks.push(part);
    size += part.length;
    if (size > MAX_REQUEST_BYTES) {
      done = true;
      answer(
        requestError(
          'unknown',
          `The request is over ${MAX_REQUEST_BYTES} bytes. Put a long snippet in a file and load it from the snippet.`,
        ),
      );
      return;
    }
    if (nl < 0) return;
    done = true;
    serve(Buffer.concat(chunks, size).toString('utf8'));
  });
  // The server is half-open: a request without its newline still gets its answer at end of input.
  conn.on('end', () => {
    if (done) return;
    done = true;
    serve(Buffer.concat(chunks, size).toString('utf8'));
  });
}

export type { DaemonPaths };
