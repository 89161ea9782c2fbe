import type { BackendFrame } from '../../backends/backend.js';
import { installPageScript, type RefCallResult, refFunction } from '../../snapshot/page-functions.js';
import type { Deadline } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import {
  ELEMENT_OP_SOURCE,
  type ElementOp,
  installActions,
  isMissing,
  type PageOp,
  pageOp,
} from './page-functions.js';

/** An element pinned by identity: the frame, its document id and the element's local id. */
export interface PinnedElement {
  ref: string;
  frame: BackendFrame;
  doc: string;
  id: number;
}

const elementOpFunction = refFunction(ELEMENT_OP_SOURCE);

/** Page function: the element pinned by (doc, id), or null (for handle-based backend calls such as set files). */
export const locatePinned = new Function(
  'a',
  "const tw = globalThis[Symbol.for('tabwright.snapshot')]; return tw ? tw.element(a.doc, a.id) : null;",
) as (a: { doc: string; id: number }) => unknown;

function budget(d: Deadline): number {
  return Math.max(1, d.remaining());
}

export function staleRef(
  ref: string,
  why = 'the element was removed or its document replaced',
): TabwrightError {
  return new TabwrightError(
    'element_not_found',
    `Element ref ${ref} is stale: ${why}. Take a new snapshot and use a ref from it.`,
    { details: { element_ref: ref, reason: 'stale_ref', status: 'stale' } },
  );
}

/** Runs an element op of the action script on a pinned element; stale identity fails loudly. */
export async function elementCall<R>(el: PinnedElement, op: ElementOp, d: Deadline): Promise<R> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = (await el.frame.evaluate(
      elementOpFunction,
      { doc: el.doc, id: el.id, arg: op },
      budget(d),
    )) as RefCallResult;
    if (res.stale) throw staleRef(el.ref);
    if (!isMissing(res.value)) return res.value as R;
    await el.frame.evaluate(installActions, null, budget(d));
  }
  throw new TabwrightError(
    'internal_error',
    'The action script could not be installed in the page. Retry the action.',
    {
      details: { element_ref: el.ref },
    },
  );
}

/** Runs a page op of the action script in a frame, installing the script (and the snapshot script) when missing. */
export async function frameCall<R>(frame: BackendFrame, op: PageOp, d: Deadline): Promise<R> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await frame.evaluate(pageOp, op, budget(d));
    if (!isMissing(res)) return res as R;
    // The snapshot script gives elements their identity; install both.
    await frame.evaluate(installPageScript, null, budget(d));
    await frame.evaluate(installActions, null, budget(d));
  }
  throw new TabwrightError(
    'internal_error',
    'The action script could not be installed in the page. Retry the action.',
  );
}
