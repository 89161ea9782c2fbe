import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { log } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import type { Refusal } from '../kit/index.js';
import { errorReply, InFlight, MAX_MESSAGE_BYTES, parseMessageText, tooLargeReply } from './jsonrpc.js';
import { createMcpDoor, type McpDoor, type McpDoorOptions } from './server.js';

export interface McpHttpOptions extends McpDoorOptions {
  /** Path of the endpoint; default /mcp. */
  path?: string;
  /** An MCP session with no request for this long is closed with its browser sessions; default 15 min. */
  idleMs?: number;
  /** At most this many MCP sessions at once; default 32. */
  maxSessions?: number;
}

/** What the body parser hands on for a body over MAX_MESSAGE_BYTES. */
const TOO_LARGE = Symbol('body too large');

/** JSON-RPC code of the answer to a request the client cancelled (LSP's RequestCancelled). */
export const REQUEST_CANCELLED = -32800;

/** The SDK's transport, plus the session's requests in flight (jsonrpc.ts): each response frees its id. */
class SessionTransport extends StreamableHTTPServerTransport {
  readonly inFlight = new InFlight();

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.inFlight.settle(message);
    return super.send(message, options);
  }
}

interface Entry {
  transport: SessionTransport;
  door: McpDoor;
  lastSeen: number;
}

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

function jsonError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, errorReply(-32000, message));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Streamable HTTP for the MCP door on an existing fastify server (`tabwright
 * serve`): POST/GET/DELETE on `/mcp`. The server's own request hooks (Host,
 * Origin, token) run first, so MCP gets the same access rules as the rest of
 * the server. Each MCP session (Mcp-Session-Id) is one client with its own
 * engine sessions; DELETE, an idle timeout or the server closing ends it and
 * closes its browsers.
 */
export function mountMcpHttp(app: FastifyInstance, engine: Engine, opts: McpHttpOptions = {}): void {
  const path = opts.path ?? MCP_PATH;
  const idleMs = opts.idleMs ?? 15 * 60_000;
  const maxSessions = opts.maxSessions ?? 32;
  const sessions = new Map<string, Entry>();

  const end = async (id: string, why: string) => {
    const e = sessions.get(id);
    if (!e) return;
    sessions.delete(id);
    log.info({ mcp_session: id, why }, 'mcp http: session ended');
    await e.door.close().catch(() => {});
    await e.transport.close().catch(() => {});
  };

  const reaper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, e] of sessions) if (now - e.lastSeen > idleMs) void end(id, 'idle');
    },
    Math.min(60_000, Math.max(1000, idleMs / 4)),
  );
  reaper.unref();

  // preClose, not onClose: open SSE streams would keep the server from closing at all.
  app.addHook('preClose', async () => {
    clearInterval(reaper);
    await Promise.allSettled([...sessions.keys()].map((id) => end(id, 'server closing')));
  });

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const raw = req.raw as IncomingMessage;
    const res = reply.raw;
    reply.hijack();
    const sid = raw.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    // The same check as on stdio (jsonrpc.ts), before the SDK sees the body.
    let body: unknown;
    let messages: JSONRPCMessage[] = [];
    if (req.method === 'POST') {
      if (req.body === TOO_LARGE) return sendJson(res, 413, tooLargeReply());
      const checked = parseMessageText(typeof req.body === 'string' ? req.body : '');
      if (!checked.ok) {
        const inFlight = id ? sessions.get(id)?.transport.inFlight : undefined;
        return sendJson(res, 400, inFlight ? inFlight.unclaimed(checked.reply) : checked.reply);
      }
      messages = checked.messages;
      body = checked.batch ? messages : messages[0];
    }
    try {
      if (id) {
        const e = sessions.get(id);
        if (!e) return jsonError(res, 404, 'Unknown or ended MCP session; initialize a new one.');
        e.lastSeen = Date.now();
        const admitted = e.transport.inFlight.admit(messages);
        if ('refused' in admitted) return sendJson(res, 400, admitted.refused);
        // A cancelled request gets no response from the SDK, which would leave its POST open forever: end it.
        for (const cancelled of admitted.cancelled) {
          await e.transport
            .send(
              errorReply(
                REQUEST_CANCELLED,
                'Request cancelled by the client (notifications/cancelled); nothing more comes for it.',
                cancelled,
              ) as JSONRPCMessage,
            )
            .catch(() => {});
        }
        await e.transport.handleRequest(raw, res, body);
        // Refused by the SDK as a whole (headers, protocol version): none of its requests will be answered.
        if (res.statusCode >= 400) e.transport.inFlight.release(messages);
        if (req.method === 'DELETE') await end(id, 'deleted by client');
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        return jsonError(res, 400, 'No Mcp-Session-Id: send an initialize request first.');
      }
      if (sessions.size >= maxSessions) {
        return jsonError(res, 503, `Too many MCP sessions (${maxSessions}); close one (DELETE ${path}).`);
      }
      const door = createMcpDoor(engine, opts);
      const transport: SessionTransport = new SessionTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (newId) => {
          sessions.set(newId, { transport, door, lastSeen: Date.now() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) void end(transport.sessionId, 'transport closed');
        else void door.close();
      };
      await door.server.connect(transport);
      transport.inFlight.admit(messages);
      await transport.handleRequest(raw, res, body);
      if (!transport.sessionId) await door.close();
    } catch (err) {
      log.error({ err }, 'mcp http: request failed');
      if (!res.headersSent) jsonError(res, 500, 'Internal error in the MCP endpoint.');
      else res.end();
    }
  };

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
    scope.setErrorHandler(async (err: FastifyError, _req, res) => {
      const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413)
        return res.code(413).header('content-type', 'application/json').send(JSON.stringify(tooLargeReply()));
      const code = status < 500 ? -32600 : -32603;
      return res
        .code(status < 500 ? 400 : 500)
        .header('content-type', 'application/json')
        .send(
          JSON.stringify(
            errorReply(code, `${status < 500 ? 'Invalid Request' : 'Internal error'}: ${err.message}`),
          ),
        );
    });
    scope.post(path, handle);
    scope.get(path, handle);
    scope.delete(path, handle);
  });
}
