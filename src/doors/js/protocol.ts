import { z } from 'zod';

/**
 * The wire between `tabwright js` and its daemon: one newline-terminated JSON
 * request per connection on the Unix socket, one JSON line back. Whatever
 * arrives, the answer is one line: a request that is not one of these gets
 * `{ok:false, op, error:{name:"RequestError", code:"invalid_request", …}}`.
 */
export type DaemonRequest =
  | { op: 'ping' }
  | { op: 'status' }
  | { op: 'stop' }
  | { op: 'eval'; code: string; timeoutMs: number };

export interface SnippetError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  details?: unknown;
}

export type DaemonResponse =
  | { ok: true; op: 'ping'; pid: number; name: string }
  | { ok: true; op: 'stop'; pid: number }
  | { ok: true; op: 'status'; status: DaemonStatus }
  | { ok: true; op: 'eval'; output: string | null; ms: number }
  | { ok: false; op: 'eval'; error: SnippetError; ms: number }
  | { ok: false; op: 'eval'; timedOut: true; timeoutMs: number }
  | { ok: false; op: string; error: SnippetError };

export interface DaemonStatus {
  name: string;
  pid: number;
  version: string;
  codeStamp: string;
  startedAt: string;
  uptimeMs: number;
  socket: string;
  log: string;
  snippets: { run: number; running: number; abandoned: number };
  browsers: unknown[];
  pages: unknown[];
  recording: unknown;
  /** Whether the daemon's engine opens file: URLs (`tabwright js --allow-file-urls` when it started). */
  allowFileUrls: boolean;
}

export const DEFAULT_SNIPPET_TIMEOUT_MS = 60_000;
export const MAX_SNIPPET_TIMEOUT_MS = 600_000;

/** Largest request line, in bytes (a snippet travels inline). */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

const RequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('ping') }),
  z.object({ op: z.literal('status') }),
  z.object({ op: z.literal('stop') }),
  z.object({ op: z.literal('eval'), code: z.string(), timeoutMs: z.unknown().optional() }),
]);

const SHAPES =
  '{"op":"ping"}, {"op":"status"}, {"op":"stop"} or {"op":"eval","code":"<JavaScript>","timeoutMs":60000}';

/** The answer to a request that cannot be served; `op` is the request's when it named one. */
export function requestError(op: string, message: string): DaemonResponse {
  return { ok: false, op, error: { name: 'RequestError', code: 'invalid_request', message } };
}

/**
 * One request line, parsed and checked. Never throws and never echoes the
 * request back (it may be huge or deeply nested): a bad line gives the
 * error answer to send instead.
 */
export function parseRequest(
  line: string,
): { ok: true; req: DaemonRequest } | { ok: false; res: DaemonResponse } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      ok: false,
      res: requestError('unknown', `The request is not valid JSON. Send one line: ${SHAPES}.`),
    };
  }
  const raw = value !== null && typeof value === 'object' ? (value as { op?: unknown }).op : undefined;
  const op = typeof raw === 'string' && raw.length <= 40 ? raw : 'unknown';
  const parsed = RequestSchema.safeParse(value);
  if (parsed.success) return { ok: true, req: parsed.data as DaemonRequest };
  const what =
    value === null || typeof value !== 'object' || Array.isArray(value)
      ? `not a JSON object (${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`
      : op === 'eval'
        ? 'an eval without a string "code"'
        : op === 'unknown'
          ? 'an object without a string "op"'
          : `an unknown op ${JSON.stringify(op)}`;
  return { ok: false, res: requestError(op, `The request is ${what}. Send one line: ${SHAPES}.`) };
}
