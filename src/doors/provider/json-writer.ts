/**
 * Writes one value as one JSON line, handing the transport pieces of about
 * `pieceChars` while the rest is still being encoded. A 400 KiB snapshot reply
 * then starts to cross the pipe while its node list is being serialized,
 * instead of after the whole string exists (on this project's 2-core machine
 * that overlap is a few milliseconds per large reply).
 *
 * The output is byte for byte what `JSON.stringify(value) + "\n"` gives for
 * the plain data replies are made of (objects, arrays, strings, numbers,
 * booleans, null, values with toJSON). The caller must write nothing else
 * between the pieces of one line; the provider's writers are synchronous, so a
 * line's pieces are written in one turn.
 */

export const PIECE_CHARS = 64 * 1024;

/** Arrays shorter than this are encoded whole: descending only pays off on long lists. */
const LONG_ARRAY = 64;

export function writeJsonLine(
  value: unknown,
  write: (piece: string) => void,
  pieceChars = PIECE_CHARS,
): void {
  let pending = '';
  let started = false;
  const emit = (s: string) => {
    pending += s;
    if (pending.length >= pieceChars) {
      started = true;
      write(pending);
      pending = '';
    }
  };
  try {
    encode(value, emit);
  } catch (err) {
    // Something in the value cannot be encoded (a BigInt, a cycle). If part of the line is already
    // out, end it so the stream stays line-framed; the caller then reports the error on its own line.
    if (started) write('\n');
    throw err;
  }
  write(`${pending}\n`);
}

/** Objects encode() descends into: plain ones without toJSON (anything else is JSON.stringify's). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (
    (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function'
  );
}

function encode(v: unknown, emit: (s: string) => void): void {
  if (Array.isArray(v) && v.length >= LONG_ARRAY) {
    emit('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) emit(',');
      // JSON.stringify writes null for what it cannot encode inside arrays.
      emit(JSON.stringify(v[i]) ?? 'null');
    }
    emit(']');
    return;
  }
  if (!isPlainObject(v)) {
    emit(JSON.stringify(v) ?? 'null');
    return;
  }
  emit('{');
  let first = true;
  for (const key of Object.keys(v)) {
    const item = v[key];
    // Skipped by JSON.stringify inside objects.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    emit(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    encode(item, emit);
  }
  emit('}');
}
