/**
 * Error codes of the pipe (normative for tabwright, docs/pipe-protocol.md).
 * A failed response carries `error: { code, message }`; the message says
 * what to do next.
 */
export const PIPE_ERROR_CODES = [
  'invalid_message',
  'version_mismatch',
  'hmac_mismatch',
  'seq_out_of_order',
  'unknown_action',
  'action_not_allowed',
  'domain_not_allowed',
  'storage_key_not_allowed',
  'circuit_open',
  'invalid_params',
  'element_not_found',
  'element_not_actionable',
  'timeout',
  'navigation_failed',
  'browser_restarted',
  'internal_error',
] as const;

export type PipeErrorCode = (typeof PIPE_ERROR_CODES)[number];

export interface PipeErrorPayload {
  code: PipeErrorCode;
  message: string;
}

export class PipeError extends Error {
  readonly code: PipeErrorCode;
  /** Extra facts for logs (never secrets); not sent on the wire. */
  readonly details: Record<string, unknown>;

  constructor(code: PipeErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'PipeError';
    this.code = code;
    this.details = details;
  }

  toPayload(): PipeErrorPayload {
    return { code: this.code, message: this.message };
  }
}

export function isPipeErrorCode(code: unknown): code is PipeErrorCode {
  return typeof code === 'string' && (PIPE_ERROR_CODES as readonly string[]).includes(code);
}
