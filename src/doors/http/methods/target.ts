import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { pageFrames } from '../../../engine/frames.js';
import { fail, type MethodContext, pageOf } from './common.js';

/**
 * The HTTP `frame` / `nth` parameters (reference §8.19) → engine targets. Every selector, script and
 * read method maps them here, so one frame numbering (list_frames: 0 = main, depth-first) and one
 * unknown-frame error hold for all of them.
 */

/** A frame index from list_frames (0 = main) or a URL / name substring. */
export const frameParam = z.union([z.string(), z.number()]).optional();
/** 0-based among the selector's matches; without it the selector must match exactly one element. */
export const nthParam = z.number().int().min(0).optional();

/** The engine frame id for an HTTP `frame` value; undefined = the main frame. */
export async function frameIdFor(
  ctx: MethodContext,
  frame: string | number | undefined,
): Promise<string | undefined> {
  if (frame === undefined || frame === 0 || frame === '0') return undefined;
  throw fail(
    ctx.method,
    'ACTION_FAILED',
    '按 frame 定位尚未支持：请用 get_browser_state 的 index（索引自带所在框架）',
    {
      notImplemented: ['frame'],
      frames: pageFrames(pageOf(ctx)).map((f, i) => ({ index: i, url: f.url })),
    },
  );
}

/** A selector target in the given frame, the nth match when nth is given. */
export async function selectorTarget(
  ctx: MethodContext,
  p: { selector: string; frame?: string | number; nth?: number },
): Promise<Target> {
  await frameIdFor(ctx, p.frame);
  if (p.nth !== undefined && p.nth !== 0) {
    throw fail(
      ctx.method,
      'ACTION_FAILED',
      'nth 尚未支持：请把选择器写得更具体，或用 get_browser_state 的 index',
      {
        notImplemented: ['nth'],
      },
    );
  }
  return { selector: p.selector };
}
