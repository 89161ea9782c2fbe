import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { log } from './log.js';

/**
 * What the proxy sees of one attempt: a plain-HTTP request carries its whole
 * URL, method and headers; a CONNECT tunnel (https:, ws:, wss:, WebRTC TURN
 * over TCP) carries only host and port, and what flows inside stays opaque.
 */
export type ProxiedAttempt =
  | { via: 'http'; url: string; method: string; headers: http.IncomingHttpHeaders }
  | { via: 'connect'; host: string; port: number };

export type ProxyJudge = (attempt: ProxiedAttempt) => 'allow' | 'block';

/** Headers that describe one hop (client ⇄ proxy), never forwarded to the origin. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** Methods a request of which may be sent twice with the effect of once (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

const REFUSAL_TEXT = "refused by tabwright: the session's origin policy does not allow this destination";

/**
 * A filtering forward proxy on 127.0.0.1 for one restricted session: the
 * session's browser context sends every request through it (workers, beacons
 * after pagehide, worker WebSockets and WebRTC TURN over TCP included), and it
 * forwards only what `judge` allows. No TLS interception: https and wss are
 * judged by the host:port of their CONNECT. Refused plain-HTTP requests get a
 * 403 that no origin sent; refused tunnels a 403 before anything is connected.
 */
export class PolicyProxy {
  private readonly sockets = new Set<Duplex>();
  private readonly agent = new http.Agent({ keepAlive: true });
  private closed = false;
  /** Decides every attempt; until the session sets it, everything is refused. */
  judge: ProxyJudge = () => 'block';

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  /** `http://127.0.0.1:<port>`: what the browser context is pointed at. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PolicyProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    const proxy = new PolicyProxy(server, typeof address === 'object' && address ? address.port : 0);
    server.on('connection', (socket) => proxy.track(socket));
    server.on('request', (req, res) => proxy.forward(req, res));
    server.on('connect', (req, socket, head) => proxy.tunnel(req, socket, head));
    // Chromium tunnels WebSockets with CONNECT; an Upgrade on the plain path is refused, never passed on.
    server.on('upgrade', (_req, socket) => refuseSocket(socket, 501, 'Not Implemented'));
    server.on('clientError', (_err, socket) => socket.destroy());
    return proxy;
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      // Only absolute http: URIs are proxy requests; anything else asked this port as if it were a server.
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('tabwright policy proxy: absolute http URI expected');
      return;
    }
    const verdict = safeJudge(this.judge, {
      via: 'http',
      url: target.href,
      method: req.method ?? 'GET',
      headers: req.headers,
    });
    if (verdict === 'block') {
      req.resume();
      res.writeHead(403, { 'content-type': 'text/plain', 'x-tabwright-refused': 'origin-policy' });
      res.end(REFUSAL_TEXT);
      return;
    }
    // Only a request that may be sent twice goes on an idle kept-alive connection (the origin may be
    // closing it): one without a body (a streamed body cannot be replayed) and of an idempotent
    // method (RFC 9110 §9.2.2: the origin may have acted on it before the reset). Any other goes
    // once, on a new connection.
    const bodyless = hasNoBody(req.headers);
    const resendable = bodyless && IDEMPOTENT_METHODS.has(req.method ?? '');
    const headers = endToEndHeaders(req.rawHeaders);
    let upstream: http.ClientRequest | undefined;
    const send = (again: boolean) => {
      const up = http.request(target, {
        method: req.method,
        headers,
        agent: resendable && !again ? this.agent : false,
      });
      upstream = up;
      up.on('response', (from) => {
        res.writeHead(from.statusCode ?? 502, from.statusMessage, endToEndHeaders(from.rawHeaders));
        from.pipe(res);
        from.on('error', () => res.destroy());
      });
      up.on('error', (err) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        // An origin closes an idle keep-alive connection whenever its own timer says so (Node's
        // servers after 5 s); a request sent on it just then is reset before any answer. Browsers
        // send such a request again on a new connection; so do we, once, when it is resendable
        // (above). (The soak's "app rendered nothing": its script got this 502 under load.)
        if (!again && resendable && up.reusedSocket && !res.destroyed) {
          log.debug(
            { url: target.href, code: errorCode(err) },
            'policy proxy: idle connection reset; sending again',
          );
          send(true);
          return;
        }
        log.info({ url: target.href, code: errorCode(err) }, 'policy proxy: origin could not be reached');
        // The origin could not be reached: say so (a 502 from the proxy, never a made-up page status).
        res.writeHead(502, { 'content-type': 'text/plain', 'x-tabwright-proxy-error': errorCode(err) });
        res.end(`tabwright policy proxy: ${target.host} could not be reached (${errorCode(err)})`);
      });
      if (bodyless) up.end();
      else req.pipe(up);
    };
    res.on('close', () => {
      if (!res.writableFinished) upstream?.destroy();
    });
    if (bodyless) req.resume();
    send(false);
  }

  private tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): void {
    const authority = parseAuthority(req.url ?? '');
    if (!authority) {
      refuseSocket(client, 400, 'Bad Request');
      return;
    }
    if (safeJudge(this.judge, { via: 'connect', ...authority }) === 'block') {
      refuseSocket(client, 403, 'Forbidden');
      return;
    }
    const upstream = net.connect({ host: authority.host, port: authority.port });
    this.track(upstream);
    let established = false;
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      // Before the tunnel is up the browser still waits for an answer: say why it failed.
      if (!established) refuseSocket(client, 502, 'Bad Gateway', errorCode(err));
      else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  /** Stops listening and cuts every connection (the session is gone; nothing may keep flowing). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function safeJudge(judge: ProxyJudge, attempt: ProxiedAttempt): 'allow' | 'block' {
  try {
    return judge(attempt);
  } catch (err) {
    log.warn({ err: String(err) }, 'policy proxy judge failed; refusing');
    return 'block';
  }
}

/** True when a request carries no body (no Content-Length above 0, no Transfer-Encoding). */
function hasNoBody(headers: http.IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}

/** Raw header pairs without the hop-by-hop ones (and without those named by Connection). */
function endToEndHeaders(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') {
      for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** host:port of a CONNECT (IPv6 in brackets); null when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(authority);
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1]!.replace(/^\[|\]$/g, '').toLowerCase(), port };
}

function refuseSocket(socket: Duplex, status: number, reason: string, detail?: string): void {
  const body = status === 403 ? REFUSAL_TEXT : `tabwright policy proxy: ${detail ?? reason}`;
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  } else socket.destroy();
}

function errorCode(err: unknown): string {
  return (err as { code?: string })?.code ?? 'ERROR';
}
