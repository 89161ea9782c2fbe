import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/**
 * A spawned process that speaks one JSON message per line on stdin/stdout
 * (`tabwright mcp`, `tabwright provider`), driven with raw lines so tests can
 * send what no SDK client would. Every stdout line is kept, parsed when it
 * is JSON; `waitFor` finds the first unread line matching a predicate.
 */
export interface ReplyLine {
  raw: string;
  /** The parsed line; undefined when the line is not JSON. */
  json: unknown;
}

export class LineProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: ReplyLine[] = [];
  private read = 0;
  private buf = '';
  private waiters: (() => void)[] = [];
  exitCode: number | null | undefined = undefined;
  stderr = '';

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buf += chunk;
      let nl = this.buf.indexOf('\n');
      while (nl >= 0) {
        const raw = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        let json: unknown;
        try {
          json = JSON.parse(raw);
        } catch {}
        this.lines.push({ raw, json });
        nl = this.buf.indexOf('\n');
      }
      this.wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (c: string) => {
      // Keep the tail only: a fuzz run can make a lot of logs.
      this.stderr = (this.stderr + c).slice(-20_000);
    });
    this.child.stdin.on('error', () => {});
    this.child.on('exit', (code) => {
      this.exitCode = code;
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  send(line: string | Buffer): void {
    if (!this.alive) return;
    this.child.stdin.write(line);
    if (!(typeof line === 'string' ? line.endsWith('\n') : line[line.length - 1] === 0x0a))
      this.child.stdin.write('\n');
  }

  /** Lines that arrived and were not taken yet. */
  unread(): ReplyLine[] {
    return this.lines.slice(this.read);
  }

  /**
   * The first unread line matching `pred` (lines before it stay unread unless
   * `consume` takes them all); null when none came within `timeoutMs` or the
   * process exited first.
   */
  async waitFor(pred: (l: ReplyLine) => boolean, timeoutMs: number): Promise<ReplyLine | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.lines.findIndex((l, k) => k >= this.read && pred(l));
      if (i >= 0) return this.lines[i]!;
      const left = deadline - Date.now();
      if (left <= 0 || !this.alive) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Marks every line up to and including `line` as read; returns the lines before it. */
  consumeThrough(line: ReplyLine): ReplyLine[] {
    const i = this.lines.indexOf(line, this.read);
    const before = this.lines.slice(this.read, i);
    this.read = i + 1;
    return before;
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.stdin.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(t);
  }
}
