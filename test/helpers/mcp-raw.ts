import { LineProcess, type ReplyLine } from './line-process.js';

/**
 * Raw JSON-RPC against the MCP door, on both transports: `tabwright mcp`
 * over stdio line by line, and `/mcp` on a running `tabwright serve` body by
 * body. For tests that send what no SDK client would.
 */

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } },
};
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

type Json = Record<string, unknown>;

/** `tabwright mcp` (built), initialized. */
export async function rawStdio(home: string): Promise<RawStdio> {
  const p = new LineProcess(process.execPath, ['bin/tabwright.js', 'mcp'], {
    TABWRIGHT_HOME: home,
    TABWRIGHT_LOG: process.env.TABWRIGHT_LOG ?? 'warn',
  });
  const raw = new RawStdio(p);
  const init = await raw.request(INITIALIZE, 60_000);
  if (!init) throw new Error(`tabwright mcp did not answer initialize: ${p.stderr}`);
  p.send(JSON.stringify(INITIALIZED));
  return raw;
}

export class RawStdio {
  private pings = 0;
  constructor(readonly p: LineProcess) {}

  /** Sends a request and waits for the reply with its id (null: none in time). */
  async request(msg: Json, timeoutMs = 30_000): Promise<Json | null> {
    this.p.send(JSON.stringify(msg));
    const l = await this.p.waitFor((x) => (x.json as Json | undefined)?.id === msg.id, timeoutMs);
    if (!l) return null;
    this.p.consumeThrough(l);
    return l.json as Json;
  }

  /**
   * Sends one line, then a ping; returns what came back before the ping's
   * reply (replies to malformed lines are written at once, in order), or null
   * when the ping got no reply in time.
   */
  async exchange(line: string | Buffer, timeoutMs = 30_000): Promise<ReplyLine[] | null> {
    this.p.send(line);
    const id = `ping-${++this.pings}`;
    this.p.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    const pong = await this.p.waitFor((x) => (x.json as Json | undefined)?.id === id, timeoutMs);
    if (!pong) return null;
    return this.p.consumeThrough(pong);
  }

  close(): Promise<void> {
    return this.p.close();
  }
}

/** One initialized MCP session on `/mcp`. */
export class RawHttp {
  constructor(
    readonly endpoint: string,
    readonly sessionId: string,
  ) {}

  static async open(endpoint: string): Promise<RawHttp> {
    const res = await postMcp(endpoint, JSON.stringify(INITIALIZE));
    const sid = res.headers.get('mcp-session-id');
    if (!sid) throw new Error(`no Mcp-Session-Id from initialize (${res.status}): ${res.text}`);
    const raw = new RawHttp(endpoint, sid);
    await raw.post(JSON.stringify(INITIALIZED));
    return raw;
  }

  post(body: string, timeoutMs = 30_000, headers: Record<string, string> = {}): Promise<HttpReply> {
    return postMcp(
      this.endpoint,
      body,
      { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': '2025-06-18', ...headers },
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    await fetch(this.endpoint, { method: 'DELETE', headers: { 'mcp-session-id': this.sessionId } }).catch(
      () => {},
    );
  }
}

export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON-RPC messages of the reply: the JSON body, or the data lines of an SSE stream. */
  messages: unknown[];
}

/** POSTs to /mcp and reads the whole reply; rejects on a network error or after `timeoutMs`. */
export async function postMcp(
  endpoint: string,
  body: string,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<HttpReply> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, messages: messagesOf(text, res.headers) };
}

function messagesOf(text: string, headers: Headers): unknown[] {
  const parse = (s: string) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return undefined;
    }
  };
  if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => parse(l.slice(5).trim()))
      .filter((m) => m !== undefined);
  }
  const one = text === '' ? undefined : parse(text);
  return one === undefined ? [] : [one];
}
