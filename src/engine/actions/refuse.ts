import { evaluateOnRef } from '../../snapshot/refs.js';
import type { Deadline } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import type { Page } from '../page.js';
import { OriginPolicy } from '../policy.js';
import { SECRET_REASON_SOURCE } from '../semantics/secret-sources.js';
import type { PinnedElement } from './element-calls.js';
import type { ActionOptions, ActionSpec } from './types.js';

/**
 * The refusals a door asks for with `ActionOptions.refuse`, checked on the resolved target inside
 * the action's queue slot (no gap between the check and the input) and before anything is sent.
 * A refusal is element_not_actionable with details.status "blocked" and reason
 * `frame_unsupported`, `sensitive_field`, `canvas`, `closed_shadow_root` or `custom_component`.
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
  if (refuse.unsupported) {
    const why = await evaluateOnRef<string | null, null>(page, el.ref, unsupportedReason, null, d);
    if (why) {
      throw new TabwrightError(
        'element_not_actionable',
        `page.${spec.action} refused: ${UNSUPPORTED[why] ?? why}; nothing was sent.`,
        { details: { element_ref: el.ref, reason: why, status: 'blocked' } },
      );
    }
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

const UNSUPPORTED: Record<string, string> = {
  canvas: 'the element is a <canvas>: what is drawn in it has no elements to check or target',
  closed_shadow_root:
    'the element is inside a closed shadow root: the guard cannot check where input there would land',
  custom_component:
    'the element is a custom component with no role of its own: the guard cannot tell what input there would do',
};

/** In the page: why acting on `el` is unsupported (a key of UNSUPPORTED), or null. Self-contained (sent as source). */
function unsupportedReason(el: Element): string | null {
  if (el.tagName.toLowerCase() === 'canvas') return 'canvas';
  const root = el.getRootNode();
  // nodeType, not instanceof ShadowRoot: a root attached in another realm (an iframe's) counts too.
  if (root.nodeType === 11 && (root as ShadowRoot).mode === 'closed') return 'closed_shadow_root';
  if (el.localName.includes('-') && !el.hasAttribute('role') && !(el as HTMLElement).isContentEditable)
    return 'custom_component';
  return null;
}

/**
 * A caller narrower than the session (refuse.origins): the page, and the target's frame, must be at
 * one of its origins; permission_denied / origin_denied otherwise, as the session's own policy does.
 */
export function refuseOrigins(page: Page, frameUrl: string | null, origins: string[]): void {
  const policy = OriginPolicy.parse({ allowed_origins: origins });
  page.session.network.assertAllowed(page, frameUrl ? [frameUrl] : [], policy);
}
