/**
 * The wire between `tabwright js` and its daemon: one newline-terminated JSON
 * request per connection on the Unix socket, one JSON line back.
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
