import { AsyncLocalStorage } from 'node:async_hooks';
import { inspect } from 'node:util';
import vm from 'node:vm';
import type { SnippetError } from './protocol.js';

/**
 * Runs snippets in one persistent `node:vm` context.
 *
 * Isolation, precisely: the context has its own global object and builtins,
 * so `globalThis.x = …` persists across calls while daemon internals stay out
 * of reach of plain names, and a snippet that overwrites `eval`, `JSON` or
 * `Promise` spoils only its own context, never the daemon's evaluator. It is
 * NOT a security boundary: the harness objects are daemon objects and a
 * determined snippet can reach the host realm through them. The socket (0600,
 * the user's own runtime dir) is the trust boundary: only the user runs code.
 *
 * Each snippet runs inside an AsyncLocalStorage scope carrying an
 * AbortSignal; the harness API reads it, so when a snippet's deadline passes
 * its browser calls are cancelled and later calls refuse to start.
 */
export interface SnippetScope {
  id: number;
  signal: AbortSignal;
}

export const snippetScope = new AsyncLocalStorage<SnippetScope>();

/** The current snippet's signal (or undefined outside a snippet). */
export function currentSnippetSignal(): AbortSignal | undefined {
  return snippetScope.getStore()?.signal;
}

export class SnippetTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`snippet did not finish within ${timeoutMs} ms`);
  }
}

export class SnippetRunner {
  private readonly context: vm.Context;
  private seq = 0;
  running = 0;
  abandoned = 0;

  constructor(
    globals: Record<string, unknown>,
    log: (level: 'info' | 'warn' | 'error', line: string) => void,
  ) {
    const write =
      (level: 'info' | 'warn' | 'error') =>
      (...args: unknown[]) =>
        log(level, args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 4 }))).join(' '));
    const console = {
      log: write('info'),
      info: write('info'),
      debug: write('info'),
      warn: write('warn'),
      error: write('error'),
      dir: write('info'),
      table: write('info'),
      trace: write('info'),
    };
    this.context = vm.createContext(
      {
        ...globals,
        console,
        setTimeout,
        clearTimeout,
        setInterval,
        clearInterval,
        setImmediate,
        clearImmediate,
        queueMicrotask,
        structuredClone,
        URL,
        URLSearchParams,
        TextEncoder,
        TextDecoder,
        AbortController,
        AbortSignal,
        Buffer,
        fetch,
        atob,
        btoa,
      },
      { name: 'tabwright-js' },
    );
  }

  /** Compiles a snippet: a single expression is returned; anything else is a function body (use `return`). */
  private compile(code: string, id: number): vm.Script {
    const filename = `snippet-${id}.js`;
    const expr = code.trim().replace(/;+\s*$/, '');
    if (expr) {
      try {
        return new vm.Script(`(async () => (\n${expr}\n))()`, { filename, lineOffset: -1 });
      } catch {
        // Not a single expression: a body.
      }
    }
    return new vm.Script(`(async () => {\n${code}\n})()`, { filename, lineOffset: -1 });
  }

  /** Runs a snippet; rejects with SnippetTimeout after timeoutMs (the snippet is abandoned, its calls cancelled). */
  async run(code: string, timeoutMs: number): Promise<unknown> {
    const id = ++this.seq;
    const script = this.compile(code, id);
    const controller = new AbortController();
    this.running++;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new SnippetTimeout(timeoutMs));
        reject(new SnippetTimeout(timeoutMs));
      }, timeoutMs);
    });
    try {
      const work = snippetScope.run({ id, signal: controller.signal }, () =>
        Promise.resolve(script.runInContext(this.context, { timeout: timeoutMs, displayErrors: false })),
      );
      // An abandoned snippet may still reject later: never let that become an unhandled rejection.
      work.catch(() => {});
      return await Promise.race([work, timeout]);
    } catch (err) {
      if (err instanceof SnippetTimeout) this.abandoned++;
      else if (isVmTimeout(err)) {
        this.abandoned++;
        throw new SnippetTimeout(timeoutMs);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      this.running--;
    }
  }
}

function isVmTimeout(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT'
  );
}

/**
 * Output rules: a string prints raw, numbers/booleans/bigints bare, anything
 * else as compact JSON; `undefined` prints nothing.
 */
export function formatOutput(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value === 'symbol') return value.toString();
  return safeJson(value);
}

export function safeJson(value: unknown): string {
  // The objects on the path from the root to the value being written: only a value that contains
  // itself is circular; the same object reached twice (a shared array) is written twice.
  const path: { out: object; orig: object }[] = [];
  return (
    JSON.stringify(value, function (this: unknown, _key, v: unknown) {
      while (path.length > 0 && path[path.length - 1]!.out !== this) path.pop();
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'function') return undefined;
      if (typeof v !== 'object' || v === null) return v;
      if (path.some((p) => p.orig === v)) return '[Circular]';
      let out: unknown = v;
      if (isErrorLike(v)) {
        const e = v as Error & { code?: unknown; details?: unknown };
        out = { name: e.name, message: e.message, code: e.code, details: e.details };
      } else if (v instanceof Map) out = Object.fromEntries(v);
      else if (v instanceof Set) out = [...v];
      path.push({ out: out as object, orig: v });
      return out;
    }) ?? 'null'
  );
}

function isErrorLike(v: unknown): boolean {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Error).message === 'string' &&
    typeof (v as Error).stack === 'string'
  );
}

/** A thrown value as the CLI prints it (works across realms: no instanceof). */
export function describeThrown(err: unknown): SnippetError {
  if (isErrorLike(err)) {
    const e = err as Error & { code?: unknown; details?: unknown };
    const out: SnippetError = {
      name: String(e.name ?? 'Error'),
      message: e.message,
      stack: cleanStack(e.stack),
    };
    if (typeof e.code === 'string') out.code = e.code;
    if (e.details !== undefined && e.details !== null && Object.keys(e.details as object).length)
      out.details = e.details;
    return out;
  }
  return { name: 'Error', message: `Uncaught ${typeof err === 'string' ? err : safeJson(err)}` };
}

/** Drops daemon frames below the snippet's own (node internals and the runner). */
function cleanStack(stack: string | undefined): string | undefined {
  if (!stack) return stack;
  const lines = stack.split('\n');
  const out: string[] = [];
  for (const l of lines) {
    if (
      /^\s+at /.test(l) &&
      /node:internal|node:vm|node:async_hooks|node:events|node:net|runner\.js|daemon\.js/.test(l)
    )
      continue;
    out.push(l);
  }
  return out.join('\n');
}
