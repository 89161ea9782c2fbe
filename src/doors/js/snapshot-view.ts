import { randomBytes } from 'node:crypto';
import { ops, TabwrightError } from '../../engine/api.js';
import type { Page as EnginePage } from '../../engine/page.js';
import type { SnapshotOptions as EngineSnapshotOptions, SnapshotResult } from '../../snapshot/index.js';
import type { RefTokens } from './refs.js';
import type { CallOptions } from './results.js';
import { inHarnessWords } from './vocabulary.js';

export const SNAPSHOT_LIMITS = { chars: 50_000, depth: 50, frames: 32 } as const;

export interface SnapshotOptions extends CallOptions {
  /** Interactive mode: controls and the containers that hold them; reading text left out. */
  interactive?: boolean;
  /** CSS selector (main frame): only that subtree. */
  selector?: string;
  /** A printed ref of this page's latest snapshot: only that subtree. */
  ref?: string;
  /** One permitted frame (an id from page.frames()). */
  frameId?: string;
  /** Depth limit (default and maximum 50); cuts are marked in the tree. */
  maxDepth?: number;
  /** Character limit (default 50,000); over it the call throws. */
  maxChars?: number;
}

/** What page.snapshot() returns. */
export interface SnapshotView {
  /** Id of this snapshot: its refs are the page's current refs until the next snapshot, raw call, action or document change. */
  id: string;
  url: string;
  title: string;
  /** The tree: one node per line, `role "name" [states] [ref=…] value="…": text`. */
  tree: string;
  /** Changes since the previous snapshot of the same scope; the full tree the first time; "(no changes)". */
  diff: string;
  /** True when the depth limit cut the tree (marked in the tree). */
  truncated: boolean;
  /** What was left out: nodes below the depth limit, frames beyond 32 or unreadable, elements offscreen. */
  omissions: { depthNodes: number; frames: number };
}

export function snapshotId(): string {
  return `snap_${randomBytes(9).toString('base64url')}`;
}

/** Takes an engine snapshot with the door's limits and turns it into the door's view (refs → tokens; the engine redacts secrets). */
export async function takeView(
  page: EnginePage,
  tokens: RefTokens,
  engineOptions: EngineSnapshotOptions,
  opts: { timeoutMs: number; signal?: AbortSignal },
  maxChars: number,
): Promise<SnapshotView> {
  let res: SnapshotResult;
  try {
    res = await ops.snapshot.call(
      page,
      { ...engineOptions, max_chars: maxChars, strict: true, diff: true },
      opts,
    );
  } catch (err) {
    if (err instanceof TabwrightError && err.details.reason === 'snapshot_too_large') {
      throw new TabwrightError(
        'invalid_request',
        `The snapshot is ${String(err.details.chars)} characters, over the ${maxChars}-character limit; nothing was cut silently. Narrow it: { interactive: true }, { selector: '#part' }, { ref }, { maxDepth: 4 }, or pass a larger maxChars.`,
        { details: err.details },
      );
    }
    throw inHarnessWords(err);
  }
  // Secret values are redacted by the engine's snapshot (the one secret rule, for every door).
  tokens.begin();
  const fullText = res.full_text ?? res.text;
  const tree = tokens.rewrite(fullText, true);
  const diff = res.diff && !res.diff.full ? tokens.rewrite(res.diff.text, false) : tree;
  return {
    id: snapshotId(),
    url: res.url,
    title: res.title,
    tree,
    diff,
    truncated: res.truncated,
    omissions: { depthNodes: res.omitted?.depth_nodes ?? 0, frames: res.omitted?.frames ?? 0 },
  };
}
