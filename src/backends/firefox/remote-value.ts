import type { Script } from 'webdriver-bidi-protocol';

/**
 * BiDi's serialized values (Script.RemoteValue) back to plain JavaScript, as the backend contract
 * promises JSON-like results. Values with no JSON form (nodes, windows, functions) become null,
 * as Playwright's evaluate gives for them; a window proxy keeps its browsing context id for the
 * callers that need it (frame owners).
 */
export function fromRemote(v: Script.RemoteValue | undefined): unknown {
  if (!v) return undefined;
  switch (v.type) {
    case 'undefined':
      return undefined;
    case 'null':
      return null;
    case 'string':
    case 'boolean':
      return v.value;
    case 'number':
      if (typeof v.value === 'number') return v.value;
      if (v.value === 'NaN') return Number.NaN;
      if (v.value === '-0') return -0;
      if (v.value === 'Infinity') return Number.POSITIVE_INFINITY;
      return Number.NEGATIVE_INFINITY;
    case 'bigint':
      return BigInt(v.value);
    case 'array':
    case 'set':
      return (v.value ?? []).map(fromRemote);
    case 'object':
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [k, val] of v.value ?? [])
        out[typeof k === 'string' ? k : String(fromRemote(k))] = fromRemote(val);
      return out;
    }
    case 'date':
      return v.value;
    case 'regexp':
      return {};
    default:
      return null;
  }
}

/** A JSON-like argument as a BiDi LocalValue. */
export function toLocal(v: unknown): Script.LocalValue {
  if (v === undefined) return { type: 'undefined' };
  if (v === null) return { type: 'null' };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'boolean') return { type: 'boolean', value: v };
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { type: 'number', value: 'NaN' };
    if (Object.is(v, -0)) return { type: 'number', value: '-0' };
    if (!Number.isFinite(v)) return { type: 'number', value: v > 0 ? 'Infinity' : '-Infinity' };
    return { type: 'number', value: v };
  }
  if (typeof v === 'bigint') return { type: 'bigint', value: v.toString() };
  if (Array.isArray(v)) return { type: 'array', value: v.map(toLocal) };
  if (typeof v === 'object') {
    const entries: [string, Script.LocalValue][] = [];
    for (const [k, val] of Object.entries(v as Record<string, unknown>))
      if (val !== undefined) entries.push([k, toLocal(val)]);
    return { type: 'object', value: entries };
  }
  return { type: 'undefined' };
}
