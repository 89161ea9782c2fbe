import dgram from 'node:dgram';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';

/**
 * An "attacker" on another loopback host (127.0.0.2, so no origin policy of a test allows it): one
 * port for HTTP, WebSocket upgrades and raw TCP (TURN over TCP), and the same port number for UDP
 * (STUN, TURN over UDP). It records every connection, request, upgrade and datagram it gets.
 */
export interface Attacker {
  /** http://127.0.0.2:PORT */
  url: string;
  host: string;
  port: number;
  /** Everything received so far, one line each ("tcp connection", "GET /beacon?…", "udp stun 20 bytes …"). */
  received(): string[];
  close(): Promise<void>;
}

export async function startAttacker(): Promise<Attacker> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const http = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { 'access-control-allow-origin': '*' }).end('got it');
  });
  http.on('upgrade', (req, socket) => {
    seen.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  http.on('clientError', (_err, socket) => socket.destroy());
  // Every TCP connection is seen first: HTTP goes on to the HTTP server, anything else (a STUN
  // message of TURN over TCP) is recorded with its printable bytes.
  const tcp = createTcpServer((socket) => {
    seen.push('tcp connection');
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (chunk: Buffer) => {
      if (/^[A-Z]+ /.test(chunk.toString('latin1', 0, 12))) {
        socket.pause();
        socket.unshift(chunk);
        http.emit('connection', socket);
        socket.resume();
      } else {
        seen.push(`tcp data that is not HTTP ${printable(chunk)}`);
        socket.destroy();
      }
    });
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.2', r));
  const port = (tcp.address() as AddressInfo).port;
  const udp = dgram.createSocket('udp4');
  udp.on('message', (msg) => {
    // STUN (and TURN, which is STUN) carries the magic cookie 0x2112A442 at byte 4; else QUIC (WebTransport).
    const stun = msg.length >= 20 && msg.readUInt32BE(4) === 0x2112a442;
    seen.push(`udp ${stun ? 'stun' : 'other'} ${msg.length} bytes ${printable(msg)}`);
  });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, '127.0.0.2', () => resolve());
  });
  return {
    url: `http://127.0.0.2:${port}`,
    host: '127.0.0.2',
    port,
    received: () => [...seen],
    async close() {
      for (const s of sockets) s.destroy();
      udp.close();
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}

function printable(b: Buffer): string {
  return b.toString('latin1').replace(/[^\x20-\x7e]/g, '.');
}
