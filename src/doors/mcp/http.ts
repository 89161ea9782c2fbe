import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../engine/engine.js';
import type { Refusal } from '../kit/index.js';
import type { McpHttpSessions } from './http-sessions.js';
import { MAX_MESSAGE_BYTES } from './limits.js';
import type { McpDoorOptions } from './server.js';

export interface McpHttpOptions extends McpDoorOptions {
  /** Path of the endpoint; default /mcp. */
  path?: string;
  /** An MCP session with no request for this long is closed with its browser sessions; default 15 min. */
  idleMs?: number;
  /** At most this many MCP sessions at once; default 32. */
  maxSessions?: number;
}

/** What the body parser hands on for a body over MAX_MESSAGE_BYTES. */
export const TOO_LARGE = Symbol('body too large');

/** Where `tabwright serve` mounts MCP. */
export const MCP_PATH = '/mcp';

/**
 * The HTTP server's request guard refused a request to /mcp: the JSON-RPC error an MCP client
 * reads (English, this door's language), sent with the refusal's HTTP status.
 */
export function mcpRefusal(r: Refusal): {
  jsonrpc: '2.0';
  error: { code: number; message: string };
  id: null;
} {
  const messages: Record<Refusal['reason'], string> = {
    host: `Refused: Host ${r.got ?? '(missing)'} does not name this server (DNS rebinding protection); connect to http://127.0.0.1:<port>${MCP_PATH}.`,
    origin: `Refused: browser requests are accepted only from this server's own pages (Origin must be ${r.origin}, got ${r.got}); other web pages, on loopback too, cannot use ${MCP_PATH}. MCP clients outside a browser send no Origin header.`,
    fetch_site: `Refused: a browser request from another web page (Sec-Fetch-Site: ${r.got}); only same-origin or none is accepted.`,
    token: 'Unauthorized: send the server token as Authorization: Bearer <token>.',
    content_type: `Unsupported Media Type: POST ${MCP_PATH} needs Content-Type: application/json (got ${r.got ?? 'none'}).`,
  };
  return { jsonrpc: '2.0', error: { code: -32000, message: messages[r.reason] }, id: null };
}

/**
 * Streamable HTTP for the MCP door on an existing fastify server (`tabwright
 * serve`): POST/GET/DELETE on `/mcp`. The server's own request hooks (Host,
 * Origin, token) run first, so MCP gets the same access rules as the rest of
 * the server. The sessions and the MCP SDK (http-sessions.ts, ≈ 7 MB of a
 * process) are loaded on the first request to `/mcp`: a server used only
 * through its HTTP command API never loads them.
 */
export function mountMcpHttp(app: FastifyInstance, engine: Engine, opts: McpHttpOptions = {}): void {
  const path = opts.path ?? MCP_PATH;
  let loading: Promise<McpHttpSessions> | undefined;
  const sessions = () =>
    (loading ??= import('./http-sessions.js').then((m) => new m.McpHttpSessions(engine, opts, path)));

  // preClose, not onClose: open SSE streams would keep the server from closing at all.
  app.addHook('preClose', async () => {
    if (loading) await (await loading).close();
  });

  const handle = async (req: FastifyRequest, reply: FastifyReply) => (await sessions()).handle(req, reply);

  // Its own scope: a body over the limit gets a JSON-RPC answer, not the HTTP command door's envelope.
  void app.register(async (scope) => {
    // Bodies are read to the end even when too large, so the client gets the 413 instead of a reset
    // connection; what is over the limit is dropped as it arrives, never kept.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => {
      const chunks: Buffer[] = [];
      let size = 0;
      payload.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_MESSAGE_BYTES) chunks.push(chunk);
        else chunks.length = 0;
      });
      payload.on('end', () =>
        done(null, size > MAX_MESSAGE_BYTES ? TOO_LARGE : Buffer.concat(chunks).toString('utf8')),
      );
      payload.on('error', (err: Error) => done(err as FastifyError, undefined));
    });
    scope.setErrorHandler(async (err: FastifyError, _req, res) => (await sessions()).bodyError(err, res));
    scope.post(path, handle);
    scope.get(path, handle);
    scope.delete(path, handle);
  });
}
