import { MAX_LINE_BYTES } from './constants.js';
import { PipeError } from './errors.js';

/**
 * JSON Lines framing: UTF-8, one message per line, at most MAX_LINE_BYTES
 * per message (the newline not counted; a trailing CR is dropped). An
 * oversized line is skipped up to its newline without being buffered and
 * reported once, so one bad line never takes the channel down.
 */
export type FrameEvent =
  | { kind: 'line'; text: string; bytes: number }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'invalid_utf8'; bytes: number };

export class LineDecoder {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the current line seen while skipping it (over the limit). */
  private skipping = -1;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxBytes = MAX_LINE_BYTES) {}

  /** Feeds a chunk; returns the complete frames it finished. */
  push(chunk: Buffer): FrameEvent[] {
    const out: FrameEvent[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) break;
      const ev = this.finish();
      if (ev) out.push(ev);
      start = nl + 1;
    }
    return out;
  }

  /** At end of input: an unterminated last line still counts as a message. */
  end(): FrameEvent[] {
    if (this.skipping < 0 && this.size === 0) return [];
    const ev = this.finish();
    return ev ? [ev] : [];
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping >= 0) {
      this.skipping += piece.length;
      return;
    }
    // Allow one extra byte for a CR before the newline.
    if (this.size + piece.length > this.maxBytes + 1) {
      this.skipping = this.size + piece.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private finish(): FrameEvent | null {
    if (this.skipping >= 0) {
      const bytes = this.skipping;
      this.skipping = -1;
      return { kind: 'oversized', bytes };
    }
    let buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    if (buf.length > this.maxBytes) return { kind: 'oversized', bytes: buf.length };
    if (buf.length === 0) return null; // blank lines are ignored
    let text: string;
    try {
      text = this.decoder.decode(buf);
    } catch {
      return { kind: 'invalid_utf8', bytes: buf.length };
    }
    if (text.trim() === '') return null;
    return { kind: 'line', text, bytes: buf.length };
  }
}

/** Serializes one message as a line; refuses (invalid_message) a message over the limit. */
export function encodeLine(message: unknown, maxBytes = MAX_LINE_BYTES): string {
  const text = JSON.stringify(message);
  if (typeof text !== 'string')
    throw new PipeError('invalid_message', 'The message is not JSON-serializable.');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new PipeError(
      'invalid_message',
      `The message is ${bytes} bytes; the pipe carries at most ${maxBytes} bytes per line. Send less data per message.`,
      { bytes },
    );
  }
  return `${text}\n`;
}

/** Reads frames from a stream: calls onFrame for each, onEnd once at end or error. */
export function readFrames(
  stream: NodeJS.ReadableStream,
  onFrame: (ev: FrameEvent) => void,
  onEnd: () => void,
  maxBytes = MAX_LINE_BYTES,
): void {
  const dec = new LineDecoder(maxBytes);
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    for (const ev of dec.end()) onFrame(ev);
    onEnd();
  };
  stream.on('data', (chunk: Buffer | string) => {
    for (const ev of dec.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) onFrame(ev);
  });
  stream.on('end', finish);
  stream.on('close', finish);
  stream.on('error', finish);
}
