import type { Deadline } from './deadline.js';
import { firstLine, TabwrightError } from './errors.js';
import { frameById } from './frames.js';
import type { Page } from './page.js';

export interface ScriptResult {
  value: unknown;
  type: 'undefined' | 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => unknown;

/** How the caller's source is to be run: as an expression (a function expression is called) or a statement body. */
function classify(source: string): 'expression' | 'body' {
  try {
    // Compiles only, runs nothing: is it a single expression?
    new AsyncFunction(`return (${source}\n);`);
    return 'expression';
  } catch {}
  try {
    new AsyncFunction(source);
    return 'body';
  } catch (err) {
    throw new TabwrightError(
      'invalid_request',
      `The script is not valid JavaScript (${firstLine(String(err))}). Pass an expression, a function expression, or a statement body that uses return.`,
      { details: { reason: 'script_syntax', field: 'source', exception: firstLine(String(err)) } },
    );
  }
}

function typeOf(v: unknown): ScriptResult['type'] {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'boolean' || t === 'number' || t === 'string' || t === 'undefined' ? t : 'object';
}

/**
 * Runs caller-supplied JavaScript in the page's main frame, or in `frameId`
 * (an engine frame id; the session's origin policy must allow it). The wrapper is
 * built here and evaluated as one expression by the backend (CDP
 * Runtime.evaluate: not subject to the page's CSP, unlike `new Function` in
 * the page). Promises are awaited; the result must be JSON-serializable.
 */
export async function runScript(
  page: Page,
  source: string,
  args: unknown[],
  d: Deadline,
  frameId?: string,
): Promise<ScriptResult> {
  if (typeof source !== 'string' || source.trim() === '') {
    throw new TabwrightError('invalid_request', 'The script is empty; pass JavaScript source.', {
      details: { field: 'source' },
    });
  }
  const argList = JSON.stringify(args ?? []);
  // Starts with an identifier so the backend evaluates it as an expression, never as a function to call.
  const expression =
    classify(source) === 'expression'
      ? `Promise.resolve().then(async () => { const __v = (${source}\n); return typeof __v === 'function' ? await __v(...${argList}) : await __v; })`
      : `Promise.resolve().then(async () => { ${source}\n })`;
  try {
    const target = frameId === undefined ? page.backend : frameById(page, frameId);
    const value = await target.evaluateExpression(expression, Math.max(1, d.remaining()));
    return { value, type: typeOf(value) };
  } catch (err) {
    if (err instanceof TabwrightError && err.code === 'internal_error') {
      const cause = String(err.details.cause ?? err.message);
      throw new TabwrightError(
        'invalid_request',
        `The script threw in the page: ${cause.replace(/^page\.evaluate: /, '')}. Fix the script; the page itself is unchanged unless the script changed it before throwing.`,
        { details: { reason: 'script_error', exception: cause } },
      );
    }
    throw err;
  }
}
