import type { SnapshotNode } from '../snapshot/index.js';
import type { OperationOptions } from './deadline.js';
import { TabwrightError } from './errors.js';
import { frameById } from './frames.js';
import type { Page } from './page.js';

/**
 * The ref of the iframe element that hosts a frame (null for the main frame): a door scopes a
 * snapshot to one frame with it (scope_ref), or points at the frame's place in the page. The frame
 * must be attached and at an origin the session allows.
 */
export async function frameElementRef(
  page: Page,
  frameId: string,
  opts: OperationOptions,
): Promise<string | null> {
  const frame = frameById(page, frameId);
  if (!frame.parentId) return null;
  const snap = await page.snapshot({ interactive_only: true, max_chars: 10_000_000 }, opts);
  let found: string | undefined;
  const visit = (n: SnapshotNode) => {
    if (found) return;
    if (n.role === 'iframe' && n.element_ref && n.children.some((k) => k.frame === frameId))
      found = n.element_ref;
    for (const k of n.children) visit(k);
  };
  visit(snap.model);
  if (!found)
    throw new TabwrightError(
      'element_not_found',
      `Frame ${frameId} has no readable content (empty, blocked or beyond the 32-frame limit).`,
      { details: { reason: 'frame_unreadable', frame: frameId } },
    );
  return found;
}
