/**
 * The reply envelope `{data, code, ok, msg}` (reference §4) and the failure
 * type every door-side check throws. Null and undefined fields are omitted
 * unless `skipNull` is turned off, which gives the legacy shape with
 * `error: null` / `msg: null`.
 */

export type Data = Record<string, unknown>;

export interface Reply {
  /** HTTP status: 200, or 400 exactly when data.invalidArgument is true. */
  status: number;
  body: Data;
}

/** A failed command as the door reports it; `msg` is the full wire text. */
export class CommandFailure extends Error {
  readonly data: Data;

  constructor(msg: string, data: Data = {}) {
    super(msg);
    this.name = 'CommandFailure';
    this.data = data;
  }

  get invalidArgument(): boolean {
    return this.data.invalidArgument === true;
  }
}

/** A parameter/request-shape problem: HTTP 400 with `data.invalidArgument: true`. */
export function invalidArgument(msg: string, extra: Data = {}): CommandFailure {
  return new CommandFailure(msg, {
    ...extra,
    invalidArgument: true,
    errorCode: 'INVALID_ARGUMENT',
    // Refused before anything ran: fixing the parameter and resending is safe.
    started: false,
    retryable: false,
  });
}

export function success(data: Data, opts: EnvelopeOptions): Reply {
  return { status: 200, body: envelope(data, true, undefined, opts) };
}

export function failure(f: CommandFailure, opts: EnvelopeOptions): Reply {
  return { status: f.invalidArgument ? 400 : 200, body: envelope(f.data, false, f.message, opts) };
}

export interface EnvelopeOptions {
  /** Omit null-valued fields (default true, as upstream's browser.json.skipNull). */
  skipNull: boolean;
}

function envelope(data: Data, ok: boolean, msg: string | undefined, opts: EnvelopeOptions): Data {
  const body: Data = { data: opts.skipNull ? dropNulls(data) : data, code: ok ? 1 : 0, ok };
  if (!opts.skipNull) {
    body.error = null;
    body.msg = msg ?? null;
  } else if (msg !== undefined) {
    body.msg = msg;
  }
  return body;
}

/** Drops null/undefined members of plain objects, recursively; arrays keep their length. */
export function dropNulls(value: Data): Data {
  const out: Data = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[k] = clean(v);
  }
  return out;
}

function clean(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === null || x === undefined ? null : clean(x)));
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return dropNulls(v as Data);
  return v;
}
