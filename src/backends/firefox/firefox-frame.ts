import type { Script } from 'webdriver-bidi-protocol';
import type { BackendFrame } from '../backend.js';
import { evaluable } from '../evaluable.js';
import type { BidiConnection } from './bidi-connection.js';
import { fromRemote, toLocal } from './remote-value.js';
import { translateBidiError, withTimeout } from './translate-error.js';

/** Runs script in one browsing context (a tab's top-level document or a frame), in its page realm. */
export class ScriptTarget {
  constructor(
    private readonly conn: BidiConnection,
    readonly context: string,
    private readonly browserAlive: () => boolean,
    private readonly closed: () => boolean,
  ) {}

  fail(err: unknown, operation: string, timeoutMs?: number): never {
    throw translateBidiError(err, {
      operation,
      timeoutMs,
      browserAlive: this.browserAlive(),
      pageClosed: this.closed(),
    });
  }

  private check(r: Script.EvaluateResult): Script.RemoteValue {
    if (r.type === 'exception') {
      const d = r.exceptionDetails;
      const ex = d.exception as { type: string; value?: unknown };
      const text = typeof ex.value === 'string' ? ex.value : d.text;
      throw new Error(`page.evaluate: ${text}`);
    }
    return r.result;
  }

  /** Calls fn(arg) in the page's realm and returns its JSON-like result. */
  async call<R>(fn: string, args: unknown[], timeoutMs: number, operation = 'page.eval'): Promise<R> {
    return fromRemote(await this.callFunction(fn, args.map(toLocal), timeoutMs, operation, null)) as R;
  }

  /** As call, but returns the raw remote value with a handle (`sharedId` for nodes) the caller can pass on. */
  callRaw(
    fn: string,
    args: Script.LocalValue[],
    timeoutMs: number,
    operation: string,
  ): Promise<Script.RemoteValue> {
    return this.callFunction(fn, args, timeoutMs, operation, 1);
  }

  /** script.callFunction in the page realm; maxObjectDepth null serializes the whole result. */
  private async callFunction(
    fn: string,
    args: Script.LocalValue[],
    timeoutMs: number,
    operation: string,
    maxObjectDepth: number | null,
  ): Promise<Script.RemoteValue> {
    try {
      const r = await withTimeout(
        this.conn.send('script.callFunction', {
          functionDeclaration: fn,
          awaitPromise: true,
          target: { context: this.context },
          arguments: args,
          resultOwnership: 'none',
          serializationOptions: { maxDomDepth: 0, maxObjectDepth: maxObjectDepth as number },
          // As playwright's evaluate: page code may count on a user gesture (focus, selection).
          userActivation: true,
        }),
        timeoutMs,
      );
      return this.check(r);
    } catch (err) {
      this.fail(err, operation, timeoutMs);
    }
  }

  async expression(expression: string, timeoutMs: number): Promise<unknown> {
    try {
      const r = await withTimeout(
        this.conn.send('script.evaluate', {
          expression: evaluable(expression),
          awaitPromise: true,
          target: { context: this.context },
          resultOwnership: 'none',
          serializationOptions: { maxDomDepth: 0, maxObjectDepth: null as unknown as number },
          userActivation: true,
        }),
        timeoutMs,
      );
      return fromRemote(this.check(r));
    } catch (err) {
      this.fail(err, 'page.eval', timeoutMs);
    }
  }
}

/** A function's source, called with one argument (none when it is undefined, so defaults apply). */
export function callSource(fn: (arg: never) => unknown, arg: unknown): { fn: string; args: unknown[] } {
  return arg === undefined
    ? { fn: `(f => function () { return f(); })(${fn.toString()})`, args: [] }
    : { fn: fn.toString(), args: [arg] };
}

export class FirefoxFrame implements BackendFrame {
  readonly script: ScriptTarget;
  detached = false;
  frameUrl: string;
  frameName = '';

  constructor(
    private readonly conn: BidiConnection,
    readonly id: string,
    readonly parentId: string | null,
    url: string,
    browserAlive: () => boolean,
    private readonly parent: FirefoxFrame | null,
  ) {
    this.frameUrl = url;
    this.script = new ScriptTarget(conn, id, browserAlive, () => this.detached);
  }

  url(): string {
    return this.frameUrl;
  }

  name(): string {
    return this.frameName;
  }

  isDetached(): boolean {
    return this.detached;
  }

  /** Learns window.name (BiDi does not report it). */
  async refreshName(): Promise<void> {
    const name = await this.script.call<string>('() => window.name', [], 2000).catch(() => null);
    if (typeof name === 'string') this.frameName = name;
  }

  evaluateExpression(expression: string, timeoutMs: number): Promise<unknown> {
    return this.script.expression(expression, timeoutMs);
  }

  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R> {
    const c = callSource(fn as (arg: never) => unknown, arg);
    return this.script.call<R>(c.fn, c.args, timeoutMs);
  }

  async evaluateOnOwner<R, A>(fn: (el: unknown, arg: A) => R, arg: A, timeoutMs: number): Promise<R | null> {
    if (!this.parent) return null;
    // The parent's frame elements, as window proxies: BiDi names each by its browsing context id.
    const windows = await this.parent.script
      .callRaw(
        '() => Array.from(document.querySelectorAll("iframe,frame"), (f) => f.contentWindow)',
        [],
        timeoutMs,
        'page.eval',
      )
      .catch((err) => {
        if (this.detached) return null;
        throw err;
      });
    if (windows?.type !== 'array') return null;
    const index = (windows.value ?? []).findIndex(
      (w) => w.type === 'window' && (w.value as { context?: string } | undefined)?.context === this.id,
    );
    if (index < 0) return null;
    return this.parent.script.call<R | null>(
      `(i, a) => { const el = document.querySelectorAll("iframe,frame")[i]; return el ? (${fn.toString()})(el, a) : null; }`,
      [index, arg],
      timeoutMs,
    );
  }

  async setInputFiles<A>(
    locate: (arg: A) => unknown,
    arg: A,
    files: string[],
    timeoutMs: number,
  ): Promise<boolean> {
    const c = callSource(locate as (arg: never) => unknown, arg);
    const el = await this.script.callRaw(c.fn, c.args.map(toLocal), timeoutMs, 'upload.set_files');
    const sharedId = (el as { sharedId?: string }).sharedId;
    if (el.type !== 'node' || !sharedId) return false;
    try {
      await withTimeout(
        this.conn.send('input.setFiles', { context: this.id, element: { sharedId }, files }),
        timeoutMs,
      );
      return true;
    } catch (err) {
      this.script.fail(err, 'upload.set_files', timeoutMs);
    }
  }
}
