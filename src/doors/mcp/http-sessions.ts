import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { log } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import { type McpHttpOptions, TOO_LARGE } from './http.js';
import { errorReply, InFlight, parseMessageText, tooLargeReply } from './jsonrpc.js';
import { createMcpDoor, type McpDoor } from './server.js';

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

function jsonError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, errorReply(-32000, message));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * The MCP sessions behind `/mcp` (http.ts mounts the routes and loads this module on the first
 * request, so a `tabwright serve` whose /mcp is never used never loads the MCP SDK). Each MCP
 * session (Mcp-Session-Id) is one client with its own engine sessions; DELETE, an idle timeout or
 * the server closing ends it and closes its browsers.
 */
export class McpHttpSessions {
  private readonly sessions = new Map<string, Entry>();
  private readonly reaper: NodeJS.Timeout;
  private readonly path: string;
  private readonly maxSessions: number;

  constructor(
    private readonly engine: Engine,
    private readonly opts: McpHttpOptions,
    path: string,
  ) {
    this.path = path;
    const idleMs = opts.idleMs ?? 15 * 60_000;
    this.maxSessions = opts.maxSessions ?? 32;
    this.reaper = setInterval(
      () => {
        const now = Date.now();
        for (const [id, e] of this.sessions) if (now - e.lastSeen > idleMs) void this.end(id, 'idle');
      },
      Math.min(60_000, Math.max(1000, idleMs / 4)),
    );
    this.reaper.unref();
  }

  private async end(id: string, why: string): Promise<void> {
    const e = this.sessions.get(id);
    if (!e) return;
    this.sessions.delete(id);
    log.info({ mcp_session: id, why }, 'mcp http: session ended');
    await e.door.close().catch(() => {});
    await e.transport.close().catch(() => {});
  }

  /** Ends every session (the server is closing). */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.end(id, 'server closing')));
  }

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { sessions, engine, opts, path, maxSessions } = this;
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
        if (req.method === 'DELETE') await this.end(id, 'deleted by client');
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
        if (transport.sessionId) void this.end(transport.sessionId, 'transport closed');
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
  }

  /** The JSON-RPC answer to a request fastify refused before the handler (its body, mostly). */
  bodyError(err: FastifyError, res: FastifyReply): FastifyReply {
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
  }
}
