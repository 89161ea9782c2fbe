import type { Commands } from 'webdriver-bidi-protocol';
import WebSocket from 'ws';

/**
 * One WebDriver BiDi session over a WebSocket (the `ws` package), typed by the spec's own
 * definitions (`webdriver-bidi-protocol`). Commands are matched to replies by id; events go to
 * listeners by method name. Nothing is written to stdout: stdio doors own it.
 */

export type BidiMethod = keyof Commands;
export type BidiParams<M extends BidiMethod> = Commands[M]['params'];
export type BidiResult<M extends BidiMethod> = Commands[M]['returnType'];

/** A BiDi error reply: `error` is the spec's code ("no such frame", "unknown command", …). */
export class BidiError extends Error {
  constructor(
    readonly method: string,
    readonly error: string,
    message: string,
  ) {
    super(`${method}: ${error}: ${message}`);
  }
}

/** The connection went away (browser exited or closed the socket). */
export class BidiClosedError extends Error {
  constructor(method: string) {
    super(`${method}: the browser connection is closed`);
  }
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class BidiConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(params: never) => void>>();
  private readonly closeListeners: (() => void)[] = [];
  private open = true;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(String(data)));
    ws.on('close', () => this.onClose());
    ws.on('error', () => this.onClose());
  }

  /** Connects to a BiDi endpoint (`ws://127.0.0.1:PORT/session`). */
  static connect(url: string, timeoutMs: number): Promise<BidiConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`no WebDriver BiDi answer at ${url} within ${timeoutMs} ms`));
      }, timeoutMs);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(new BidiConnection(ws));
      });
      ws.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  get isOpen(): boolean {
    return this.open;
  }

  send<M extends BidiMethod>(method: M, params: BidiParams<M>): Promise<BidiResult<M>> {
    if (!this.open) return Promise.reject(new BidiClosedError(method));
    const id = this.nextId++;
    return new Promise<BidiResult<M>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }), (err) => {
        if (err) {
          this.pending.delete(id);
          reject(new BidiClosedError(method));
        }
      });
    });
  }

  on<P = unknown>(event: string, listener: (params: P) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as (params: never) => void);
    return () => set.delete(listener as (params: never) => void);
  }

  onClosed(listener: () => void): void {
    if (!this.open) queueMicrotask(listener);
    else this.closeListeners.push(listener);
  }

  close(): void {
    if (!this.open) return;
    this.ws.close();
    this.onClose();
  }

  private onMessage(text: string): void {
    let msg: {
      type?: string;
      id?: number;
      result?: unknown;
      error?: string;
      message?: string;
      method?: string;
      params?: unknown;
    };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.type === 'event' && msg.method) {
      for (const l of this.listeners.get(msg.method) ?? []) {
        try {
          (l as (p: unknown) => void)(msg.params);
        } catch {
          // A listener's bug must not stop the others.
        }
      }
      return;
    }
    if (typeof msg.id !== 'number') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.type === 'error')
      p.reject(new BidiError(p.method, msg.error ?? 'unknown error', msg.message ?? ''));
    else p.resolve(msg.result);
  }

  private onClose(): void {
    if (!this.open) return;
    this.open = false;
    for (const [, p] of this.pending) p.reject(new BidiClosedError(p.method));
    this.pending.clear();
    for (const l of this.closeListeners.splice(0)) l();
  }
}
