import { evaluateOnRef } from '../../snapshot/refs.js';
import type { Deadline } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import type { Page } from '../page.js';
import { SECRET_REASON_SOURCE } from '../semantics/secret-sources.js';
import type { PinnedElement } from './element-calls.js';
import type { ActionOptions, ActionSpec } from './types.js';

/**
 * The refusals a door asks for with `ActionOptions.refuse`, checked on the resolved target inside
 * the action's queue slot (no gap between the check and the input) and before anything is sent.
 * A refusal is element_not_actionable with details.status "blocked" and reason
 * `frame_unsupported` or `sensitive_field`.
 */
export async function refuseTarget(
  page: Page,
  el: PinnedElement,
  spec: ActionSpec,
  refuse: NonNullable<ActionOptions['refuse']>,
  d: Deadline,
): Promise<void> {
  if (refuse.child_frames && el.frame.parentId !== null) {
    throw new TabwrightError(
      'element_not_actionable',
      `page.${spec.action} refused: the element is inside a frame, and this caller acts on the main frame only. Read the frame instead, or act through a door that targets frames.`,
      { details: { element_ref: el.ref, reason: 'frame_unsupported', status: 'blocked' } },
    );
  }
  if (refuse.sensitive && (spec.action === 'fill' || spec.action === 'type')) {
    // The one secret rule (semantics/secrets.ts): password, credential, one-time-code, card, data-private.
    const why = await evaluateOnRef<string | null, null>(page, el.ref, SECRET_REASON_SOURCE, null, d);
    if (why) {
      throw new TabwrightError(
        'element_not_actionable',
        `page.${spec.action} refused: the field is sensitive (${why}); nothing was typed. Type into it only if the user asked for it.`,
        { details: { element_ref: el.ref, reason: 'sensitive_field', sensitive: why, status: 'blocked' } },
      );
    }
  }
}
