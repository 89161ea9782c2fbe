import { connect } from 'node:net';
import type { DaemonRequest, DaemonResponse } from './protocol.js';

/** Sends one request to the daemon and reads its one-line answer. */
export function request(socket: string, req: DaemonRequest, timeoutMs: number): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let buf = '';
    const timer = setTimeout(() => {
      conn.destroy();
      reject(Object.assign(new Error('daemon did not answer in time'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(`${JSON.stringify(req)}\n`));
    conn.on('data', (d: string) => {
      buf += d;
    });
    conn.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    conn.on('end', () => {
      clearTimeout(timer);
      const line = buf.split('\n', 1)[0] ?? '';
      try {
        resolve(JSON.parse(line) as DaemonResponse);
      } catch {
        reject(new Error('the daemon closed the connection without an answer'));
      }
    });
  });
}

/** The daemon's pid when one answers on this socket, else null. */
export async function ping(socket: string, timeoutMs = 1000): Promise<number | null> {
  try {
    const res = await request(socket, { op: 'ping' }, timeoutMs);
    return res.ok && res.op === 'ping' ? res.pid : null;
  } catch {
    return null;
  }
}
