import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../../engine/engine.js';
import { log } from '../../engine/log.js';
import type { Refusal } from '../http/security.js';
import { createMcpDoor, type McpDoor, type McpDoorOptions } from './server.js';

export interface McpHttpOptions extends McpDoorOptions {
  /** Path of the endpoint; default /mcp. */
  path?: string;
  /** An MCP session with no request for this long is closed with its browser sessions; default 15 min. */
  idleMs?: number;
  /** At most this many MCP sessions at once; default 32. */
  maxSessions?: number;
}

interface Entry {
  transport: StreamableHTTPServerTransport;
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
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
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
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = typeof req.body === 'string' ? JSON.parse(req.body) : req.body;
      } catch {
        return jsonError(res, 400, 'Parse error: the body is not JSON.');
      }
    }
    const sid = raw.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    try {
      if (id) {
        const e = sessions.get(id);
        if (!e) return jsonError(res, 404, 'Unknown or ended MCP session; initialize a new one.');
        e.lastSeen = Date.now();
        await e.transport.handleRequest(raw, res, body);
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
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
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
      await transport.handleRequest(raw, res, body);
      if (!transport.sessionId) await door.close();
    } catch (err) {
      log.error({ err }, 'mcp http: request failed');
      if (!res.headersSent) jsonError(res, 500, 'Internal error in the MCP endpoint.');
      else res.end();
    }
  };

  app.post(path, handle);
  app.get(path, handle);
  app.delete(path, handle);
}
