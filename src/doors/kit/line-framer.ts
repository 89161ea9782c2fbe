/**
 * Line framing for the doors that read one UTF-8 JSON message per line
 * (the provider door, MCP over stdio), separated by "\n" ("\r\n"
 * accepted). A line longer than `maxLineBytes` is reported once as an
 * overflow and skipped up to its newline without being buffered; the stream
 * goes on. Empty lines are ignored.
 */

export type FrameEvent = { kind: 'line'; text: string } | { kind: 'overflow'; bytes: number };

const NL = 0x0a;

export class LineFramer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Inside an over-long line: bytes are dropped until the next newline. */
  private skipping = false;
  private skipped = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Feeds bytes; returns the complete lines (and overflows) they finish, in order. */
  push(chunk: Buffer): FrameEvent[] {
    const out: FrameEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl === -1) {
        this.append(chunk.subarray(start), out);
        return out;
      }
      this.append(chunk.subarray(start, nl), out);
      this.endLine(out);
      start = nl + 1;
    }
  }

  /** End of stream: a last line without newline still counts. */
  end(): FrameEvent[] {
    const out: FrameEvent[] = [];
    if (this.size > 0 || this.skipping) this.endLine(out);
    return out;
  }

  private append(part: Buffer, out: FrameEvent[]): void {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skipped += part.length;
      return;
    }
    if (this.size + part.length > this.maxLineBytes) {
      this.skipping = true;
      this.skipped = this.size + part.length;
      this.chunks = [];
      this.size = 0;
      out.push({ kind: 'overflow', bytes: this.skipped });
      return;
    }
    this.chunks.push(Buffer.from(part));
    this.size += part.length;
  }

  private endLine(out: FrameEvent[]): void {
    if (this.skipping) {
      this.skipping = false;
      this.skipped = 0;
      return;
    }
    let text = (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)).toString('utf8');
    this.chunks = [];
    this.size = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    out.push({ kind: 'line', text });
  }
}
