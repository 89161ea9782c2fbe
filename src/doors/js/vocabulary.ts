import { TabwrightError } from '../../engine/api.js';
import { rewrite, type WordTable } from '../kit/index.js';

/**
 * The engine's messages speak of its own refs (`e12`), fields (`element_ref`, `details.covered_by`)
 * and calls (`page.wait`, `nth`) that this API does not have. Results and errors of the harness
 * carry only its own vocabulary: these rewrites turn engine advice into advice a script here can
 * follow.
 */
const REWRITES: WordTable = [
  [/\(it is named in details\.covered_by\)/g, '(coveredBy names it)'],
  [/the caller's allowlist|the session's origin policy/g, "this Page's allowedOrigins"],
  [
    /Wait for it to appear \(page\.wait\) or take a new snapshot\./g,
    'Take a new snapshot once it shows (page.waitForChange waits for the page to change).',
  ],
  [
    /, pass nth, or take a snapshot and use an element_ref\./g,
    ': add { exact: true } or { context }, or take a snapshot and use a printed ref.',
  ],
  [
    /; pass exact: true, a context \(an ancestor's name\), or one of the element_refs in details\./g,
    '; add { exact: true } or a { context } (an ancestor as "role: name", e.g. from details.candidates), or use a printed ref.',
  ],
  [/Pick nth below \d+\./g, 'Narrow the locator.'],
  [
    / Take a snapshot and target by element_ref\./g,
    ' Take a new snapshot and use a printed ref, or a role/CSS locator.',
  ],
  [/, or target by element_ref\./g, '.'],
  [/ Pick the right element from a snapshot\./g, ' Pick the right element from a new snapshot.'],
  [/confirm with a wait condition or a snapshot/g, 'confirm with a verify predicate or a snapshot'],
  [
    /Open an allowed URL first, or start a session whose policy includes ([^.]+)\./g,
    'Nothing there can be read or done; ask the user to authorize $1 and open a Page with it, or goto an allowed URL.',
  ],
  [
    /Use an allowed URL, or start a session whose policy includes ([^.]+)\./g,
    'Ask the user to authorize $1 and open a Page with it, or goto an allowed URL.',
  ],
  // The page queue's deadlines name the engine operation and its timeout field.
  [/\bpage\.open\b/g, 'page.goto'],
  [/\btimeout_ms\b/g, 'timeoutMs'],
  [/\bscope_selector\b/g, 'selector'],
  [/\bmax_depth\b/g, 'maxDepth'],
  [/\bscope_ref\b/g, '{ ref }'],
  [/\bmax_chars\b/g, 'maxChars'],
  [
    /Type into it only if the user asked for it\./g,
    'Pass { allowSensitive: true } on this call only if the user asked for it.',
  ],
  [/Element ref e[1-9][0-9]* is stale:/g, 'The target is stale:'],
  [
    /Take a new snapshot \(page\.snapshot\) and use a ref from it\./g,
    'Take a new snapshot and use a printed ref from it.',
  ],
  [/\bpage\.(click|fill|type|press|select|scroll|focus|hover) refused:/g, '$1 refused:'],
  [/\b(on|of|ref|Element ref) e[1-9][0-9]*\b/g, '$1 the target'],
  [/\be[1-9][0-9]*\b(?=:)/g, 'the target'],
];

export function harnessWords(message: string): string {
  return rewrite(message, REWRITES);
}

/** An engine error in this API's words: message rewritten, engine refs left out of the details. */
export function inHarnessWords(err: unknown): unknown {
  if (!(err instanceof TabwrightError)) return err;
  const details = withoutEngineRefs(err.details) as Record<string, unknown>;
  return new TabwrightError(err.code, harnessWords(err.message), { retryable: err.retryable, details });
}

/** A copy without `element_ref` / `page_id` fields at any depth (engine identities). */
export function withoutEngineRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEngineRefs);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'element_ref' || k === 'page_id') continue;
    out[k] = withoutEngineRefs(x);
  }
  return out;
}
