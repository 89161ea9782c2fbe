import type { BackendFrame } from '../backends/backend.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';

export interface FrameInfo {
  /** Backend frame id (the snapshot model's `frame` field for nodes inside it). */
  id: string;
  parentId: string | null;
  url: string;
  /** The frame's name (iframe name attribute); "" for none. */
  name: string;
  depth: number;
}

/** The page's frames, main frame first, then every attached child frame in tree order (a plain read). */
export function pageFrames(page: Page): FrameInfo[] {
  page.assertUsable();
  const frames = page.backend.frames().filter((f) => !f.isDetached());
  const depthOf = new Map<string, number>();
  return frames.map((f) => {
    const depth = f.parentId === null ? 0 : (depthOf.get(f.parentId) ?? 0) + 1;
    depthOf.set(f.id, depth);
    return { id: f.id, parentId: f.parentId, url: f.url(), name: f.name(), depth };
  });
}

/** The page's main frame; a page without a document yet (nothing opened) fails as page_not_found. */
export function mainFrame(page: Page): BackendFrame {
  const f = page.backend.frames()[0];
  if (!f) throw new TabwrightError('page_not_found', `Page ${page.id} has no document. Open a URL first.`);
  return f;
}

/**
 * An attached frame of the page by id, for work the caller aims at it (actions, scripts). It must be
 * at an origin the session allows: nothing runs in a frame the policy refuses.
 */
export function frameById(page: Page, frameId: string): BackendFrame {
  const frames = page.backend.frames().filter((f) => !f.isDetached());
  const f = frames.find((x) => x.id === frameId);
  if (!f) {
    throw new TabwrightError(
      'element_not_found',
      `Frame ${frameId} is not in the page (gone, or never there). List the frames again and pick one of them.`,
      {
        details: {
          reason: 'frame_not_found',
          frame: frameId,
          frames: frames.map((x) => ({ id: x.id, url: x.url() })),
        },
      },
    );
  }
  if (f.parentId) page.assertPageAllowed([f.url()]);
  return f;
}
