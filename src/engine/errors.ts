/**
 * The one error type of tabwright. Every failure the engine can produce is a
 * TabwrightError carrying one of the 14 normalized codes of the Browser
 * Provider Protocol; each door maps these to its own wire format.
 */

export const ERROR_CODES = [
  'unsupported_method',
  'unsupported_target',
  'invalid_request',
  'invalid_selector',
  'element_not_found',
  'element_not_actionable',
  'navigation_timeout',
  'not_ready',
  'setup_required',
  'permission_denied',
  'browser_not_running',
  'session_not_found',
  'page_not_found',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes that are worth retrying unchanged unless the thrower says otherwise. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set([
  'not_ready',
  'navigation_timeout',
  'browser_not_running',
]);

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details: Record<string, unknown>;
}

export class TabwrightError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { retryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TabwrightError';
    this.code = code;
    this.retryable = opts.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.details = opts.details ?? {};
  }

  toJSON(): ErrorPayload {
    return { code: this.code, message: this.message, retryable: this.retryable, details: this.details };
  }
}

export function isTabwrightError(err: unknown): err is TabwrightError {
  return err instanceof TabwrightError;
}

/**
 * Turns anything thrown into a TabwrightError. Unknown errors become
 * internal_error with the original message kept in details, so nothing
 * reaches a caller without a normalized code.
 */
export function toTabwrightError(err: unknown): TabwrightError {
  if (err instanceof TabwrightError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TabwrightError(
    'internal_error',
    `Unexpected failure: ${firstLine(message)}. Retry once; if it persists, close the session and start a new one.`,
    { retryable: false, details: { cause: firstLine(message) }, cause: err },
  );
}

export function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
