import type { Data } from './envelope.js';
import type { HttpMethod } from './methods/common.js';
import { RECEIPT_DIAGNOSTICS } from './render/receipts.js';

/**
 * responseMode "compact" (reference §11). Only protocol-owned fields at the
 * top of a reply's `data` are removed: business data (script results, page
 * text, response bodies) is never walked into, so a result containing keys
 * named like protocol fields comes back unchanged. Batch steps are compacted
 * with the same rules, one level down in `results[].data`. What a method drops
 * is its row's (meta.compactDrop, meta.receipt).
 */

/** Local absolute paths; screenshot URLs, state-file links and capture errors stay. */
const ALWAYS = ['screenshot_path'];

export type Lookup = (method: string) => HttpMethod | undefined;

export function compactData(
  m: HttpMethod | undefined,
  data: Data,
  diagnostics: boolean,
  lookup?: Lookup,
): Data {
  const out: Data = { ...data };
  for (const k of ALWAYS) delete out[k];
  for (const k of m?.meta.compactDrop ?? []) delete out[k];
  if (m?.meta.receipt && !diagnostics) for (const k of RECEIPT_DIAGNOSTICS) delete out[k];
  if (m?.name === 'commands' && Array.isArray(out.results) && lookup) {
    out.results = (out.results as Data[]).map((r) => {
      if (!r || typeof r !== 'object' || !r.data || typeof r.data !== 'object') return r;
      return { ...r, data: compactData(lookup(String(r.command)), r.data as Data, diagnostics, lookup) };
    });
  }
  return out;
}

/** Failed replies: the same protocol-owned fields (a failed batch still carries its results). */
export function compactFailure(
  m: HttpMethod | undefined,
  data: Data,
  diagnostics: boolean,
  lookup?: Lookup,
): Data {
  return compactData(m, data, diagnostics, lookup);
}
