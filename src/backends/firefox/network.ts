import type { Network } from 'webdriver-bidi-protocol';
import type { RequestLogEvent } from '../backend.js';
import type { BidiConnection } from './bidi-connection.js';

export type RequestPhase = 'request' | 'response' | 'finished' | 'failed';

/** Firefox reports a WebSocket handshake as an http(s) GET with `Sec-Fetch-Mode: websocket`. */
function isWebSocket(r: Network.RequestData): boolean {
  return r.headers.some((h) => {
    const name = h.name.toLowerCase();
    return (name === 'sec-fetch-mode' && h.value.value === 'websocket') || name === 'sec-websocket-key';
  });
}

/** The request's URL as the page named it (ws:// and wss:// for WebSockets). */
export function requestUrl(r: Network.RequestData): string {
  return isWebSocket(r) ? r.url.replace(/^http/, 'ws') : r.url;
}

/** Playwright's resource types (what the engine and its filters speak) from BiDi's destination. */
export function resourceTypeOf(r: Network.RequestData): string {
  if (isWebSocket(r)) return 'websocket';
  switch (r.destination) {
    case 'document':
    case 'iframe':
    case 'frame':
      return 'document';
    case 'script':
    case 'worker':
    case 'sharedworker':
    case 'serviceworker':
    case 'audioworklet':
    case 'paintworklet':
      return 'script';
    case 'style':
      return 'stylesheet';
    case 'image':
      return 'image';
    case 'font':
      return 'font';
    case 'audio':
    case 'video':
    case 'track':
      return 'media';
    case 'manifest':
      return 'manifest';
    case 'websocket':
      return 'websocket';
    default:
      break;
  }
  if (r.initiatorType === 'fetch') return 'fetch';
  if (r.initiatorType === 'xmlhttprequest') return 'xhr';
  if (r.initiatorType === 'beacon') return 'ping';
  return 'other';
}

const keys = new Map<string, object>();

/** One identity per request hop (a redirect hop is a new request, as Playwright counts them). */
export function requestKey(p: Network.BaseParameters): object {
  const id = `${p.request.request}:${p.redirectCount}`;
  let k = keys.get(id);
  if (!k) {
    k = { id };
    keys.set(id, k);
  }
  return k;
}

function forgetKey(p: Network.BaseParameters): void {
  keys.delete(`${p.request.request}:${p.redirectCount}`);
}

/** BiDi's collected bytes (a body) as a Buffer; null when Firefox kept none. */
async function readData(
  conn: BidiConnection,
  request: string,
  dataType: Network.DataType,
): Promise<Buffer | null> {
  try {
    const r = await conn.send('network.getData', { request, dataType });
    const bytes = r.bytes;
    return bytes.type === 'base64' ? Buffer.from(bytes.value, 'base64') : Buffer.from(bytes.value, 'utf8');
  } catch {
    return null;
  }
}

/**
 * One network event and what the request log makes of it. Log events of one request are delivered
 * in order even when the request body must be fetched first (BiDi sends bodies only on request).
 */
export class FirefoxRequest {
  private static readonly chains = new WeakMap<object, Promise<void>>();
  readonly key: object;

  constructor(
    private readonly conn: BidiConnection,
    readonly params: Network.BaseParameters,
  ) {
    this.key = requestKey(params);
  }

  toLog(phase: RequestPhase, listener: (e: RequestLogEvent) => void): void {
    const p = this.params;
    const key = this.key;
    const prev = FirefoxRequest.chains.get(key) ?? Promise.resolve();
    const run = async () => {
      if (phase === 'request') {
        const hasBody = (p.request.bodySize ?? 0) > 0 && p.request.method !== 'GET';
        const body = hasBody ? await readData(this.conn, p.request.request, 'request') : null;
        listener({
          phase: 'request',
          key,
          url: p.request.url,
          method: p.request.method,
          resourceType: resourceTypeOf(p.request),
          postData: body ? body.toString('utf8') : null,
          isNavigation: p.navigation !== null && resourceTypeOf(p.request) === 'document',
        });
      } else if (phase === 'response') {
        const res = (p as Network.ResponseStartedParameters).response;
        listener({
          phase: 'response',
          key,
          status: res.status,
          statusText: res.statusText,
          mimeType: (res.mimeType ?? '').split(';')[0]!.trim(),
        });
      } else if (phase === 'finished') {
        const request = p.request.request;
        listener({ phase: 'finished', key, readBody: () => readData(this.conn, request, 'response') });
      } else {
        listener({
          phase: 'failed',
          key,
          errorText: (p as Network.FetchErrorParameters).errorText || 'failed',
        });
      }
    };
    const next = prev.then(run, run).catch(() => {});
    FirefoxRequest.chains.set(key, next);
    if (phase === 'finished' || phase === 'failed') void next.then(() => forgetKey(p));
  }
}
