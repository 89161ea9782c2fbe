import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer } from '../kit/line-framer.js';
import {
  type ErrorReply,
  InFlight,
  idKey,
  MAX_MESSAGE_BYTES,
  parseMessageText,
  requestIdOf,
  tooLargeReply,
} from './jsonrpc.js';

/** The replies of one batch, sent together as one array once every request in it has its response. */
interface Batch {
  waiting: Set<string>;
  replies: JSONRPCMessage[];
}

/**
 * MCP over newline-delimited JSON on a pair of streams (stdin/stdout for
 * `tabwright mcp`). Unlike the SDK's stdio transport, which closes the
 * connection on a line over its buffer limit and drops malformed messages
 * silently, every line gets an answer here: a line over MAX_MESSAGE_BYTES
 * is skipped without being buffered and answered with -32600, a malformed
 * message with -32700 / -32600 (jsonrpc.ts, the check `/mcp` uses too), a
 * request reusing an id in flight with -32600; valid notifications get
 * nothing. A batch is answered with one array, as JSON-RPC 2.0 says.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly framer = new LineFramer(MAX_MESSAGE_BYTES);
  private readonly inFlight = new InFlight();
  private readonly batchOf = new Map<string, Batch>();
  private started = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (const ev of this.framer.push(bytes)) {
      if (ev.kind === 'overflow') this.write(tooLargeReply());
      else this.receive(ev.text);
    }
  };

  private readonly onEnd = () => {
    for (const ev of this.framer.end()) if (ev.kind === 'line') this.receive(ev.text);
  };

  private readonly onStreamError = (err: Error) => this.onerror?.(err);

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
  }

  private receive(text: string): void {
    const checked = parseMessageText(text);
    if (!checked.ok) {
      this.write(this.inFlight.unclaimed(checked.reply));
      return;
    }
    const admitted = this.inFlight.admit(checked.messages);
    if ('refused' in admitted) {
      this.write(admitted.refused);
      return;
    }
    for (const id of admitted.cancelled) this.dropFromBatch(idKey(id));
    if (checked.batch) {
      const waiting = new Set(
        checked.messages.flatMap((m) => {
          const id = requestIdOf(m);
          return id === undefined ? [] : [idKey(id)];
        }),
      );
      const batch: Batch = { waiting, replies: [] };
      for (const key of waiting) this.batchOf.set(key, batch);
    }
    for (const m of checked.messages) {
      try {
        this.onmessage?.(m);
      } catch (err) {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  /** A cancelled request gets no response: its batch must not wait for one. */
  private dropFromBatch(key: string): void {
    const batch = this.batchOf.get(key);
    if (!batch) return;
    this.batchOf.delete(key);
    batch.waiting.delete(key);
    if (batch.waiting.size === 0 && batch.replies.length) void this.writeNow(batch.replies);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.inFlight.settle(message);
    const key = !('method' in message) && 'id' in message ? idKey(message.id as string | number) : undefined;
    const batch = key === undefined ? undefined : this.batchOf.get(key);
    if (!batch || key === undefined) return this.writeNow(message);
    this.batchOf.delete(key);
    batch.waiting.delete(key);
    batch.replies.push(message);
    if (batch.waiting.size === 0) return this.writeNow(batch.replies);
  }

  private write(reply: ErrorReply): void {
    void this.writeNow(reply);
  }

  private writeNow(value: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(value)}\n`)) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.batchOf.clear();
    this.onclose?.();
  }
}
