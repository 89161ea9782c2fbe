import { type ErrorPayload, TabwrightError, toTabwrightError } from '../../engine/api.js';

/** The one protocol version this door speaks. */
export const PROTOCOL_VERSION = '0.1';
export const SUPPORTED_VERSIONS = [PROTOCOL_VERSION] as const;

export type RequestId = string | number;

export interface RequestEnvelope {
  protocol_version: string;
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
}

export interface Warning {
  code: string;
  message: string;
  /** unknown_params_ignored: the dotted paths of the ignored fields. */
  fields?: string[];
}

export interface SuccessEnvelope {
  protocol_version: string;
  id: RequestId;
  ok: true;
  result: unknown;
  warnings: Warning[];
}

export interface ErrorEnvelope {
  protocol_version: string;
  id: RequestId | null;
  ok: false;
  error: ErrorPayload;
}

export interface EventEnvelope {
  protocol_version: string;
  event: string;
  payload: Record<string, unknown>;
}

/** A request that could not be read: answered with `id` (null when unknown) and the error. */
export class EnvelopeError extends Error {
  constructor(
    readonly id: RequestId | null,
    readonly error: TabwrightError,
  ) {
    super(error.message);
  }
}

function invalid(id: RequestId | null, message: string, details: Record<string, unknown>): EnvelopeError {
  return new EnvelopeError(id, new TabwrightError('invalid_request', message, { details }));
}

function isId(v: unknown): v is RequestId {
  return (
    (typeof v === 'string' && v.length > 0 && v.length <= 256) ||
    (typeof v === 'number' && Number.isSafeInteger(v))
  );
}

/**
 * Parses one line into a request envelope. Throws EnvelopeError (always
 * invalid_request) naming what is wrong; the id is echoed when it is usable.
 */
export function parseRequest(line: string): RequestEnvelope {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw invalid(
      null,
      `The line is not valid JSON (${(err as Error).message}). Send one JSON object per line, UTF-8, ending in "\\n".`,
      { reason: 'invalid_json' },
    );
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalid(null, 'A request must be a JSON object with protocol_version, id, method and params.', {
      reason: 'not_an_object',
    });
  }
  const env = raw as Record<string, unknown>;
  const id = isId(env.id) ? env.id : null;
  if (id === null) {
    throw invalid(
      null,
      'id is required: a non-empty string (at most 256 characters) or an integer, unique among your requests in flight.',
      { field: 'id', reason: 'invalid_id' },
    );
  }
  if (env.protocol_version !== PROTOCOL_VERSION) {
    throw invalid(
      id,
      `protocol_version ${JSON.stringify(env.protocol_version ?? null)} is not supported; send "${PROTOCOL_VERSION}".`,
      {
        field: 'protocol_version',
        reason: 'unsupported_version',
        supported_versions: [...SUPPORTED_VERSIONS],
      },
    );
  }
  if (typeof env.method !== 'string' || env.method === '') {
    throw invalid(id, 'method is required: a method name such as "page.open" (see provider.describe).', {
      field: 'method',
    });
  }
  const params = env.params ?? {};
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw invalid(id, `params of ${env.method} must be a JSON object (or omitted).`, { field: 'params' });
  }
  return {
    protocol_version: PROTOCOL_VERSION,
    id,
    method: env.method,
    params: params as Record<string, unknown>,
  };
}

export function successEnvelope(id: RequestId, result: unknown, warnings: Warning[] = []): SuccessEnvelope {
  return { protocol_version: PROTOCOL_VERSION, id, ok: true, result, warnings };
}

/** Maps anything thrown to the error envelope: TabwrightError codes pass through, the rest is internal_error. */
export function errorEnvelope(id: RequestId | null, err: unknown): ErrorEnvelope {
  const e = toTabwrightError(err);
  return {
    protocol_version: PROTOCOL_VERSION,
    id,
    ok: false,
    error: { code: e.code, message: e.message, retryable: e.retryable, details: e.details ?? {} },
  };
}

export function eventEnvelope(event: string, payload: Record<string, unknown>): EventEnvelope {
  return { protocol_version: PROTOCOL_VERSION, event, payload };
}
