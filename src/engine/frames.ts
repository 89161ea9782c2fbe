import type { Page } from './page.js';

export interface FrameInfo {
  /** Backend frame id (the snapshot model's `frame` field for nodes inside it). */
  id: string;
  parentId: string | null;
  url: string;
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
    return { id: f.id, parentId: f.parentId, url: f.url(), depth };
  });
}
