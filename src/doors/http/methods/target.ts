import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { ops } from '../../../engine/api.js';
import { indexTarget } from './act.js';
import { fail, type MethodContext, pageOf, READ_TIMEOUT_MS } from './common.js';

/**
 * The HTTP `frame` / `nth` parameters (reference §8.19) → engine targets. Every selector, script and
 * read method maps them here, so one frame numbering (list_frames: 0 = main, depth-first) and one
 * unknown-frame error hold for all of them. The engine does the rest: it searches inside that frame
 * and refuses a frame the session's origin policy does not allow.
 */

/** A frame index from list_frames (0 = main) or a URL / name substring. */
export const frameParam = z.union([z.string(), z.number()]).optional();
/** 0-based among the selector's matches; without it the selector must match exactly one element. */
export const nthParam = z.number().int().min(0).optional();

/**
 * The engine frame id for an HTTP `frame` value; undefined = the main frame. A number (or a string
 * of digits) is a list_frames index; any other string picks the first frame, in list_frames order,
 * whose name equals it, else whose URL or name contains it. No match → ELEMENT_NOT_FOUND naming the
 * frames that exist.
 */
export async function frameIdFor(
  ctx: MethodContext,
  frame: string | number | undefined,
): Promise<string | undefined> {
  if (frame === undefined) return undefined;
  const frames = await ops.frames.call(pageOf(ctx), {});
  const key = typeof frame === 'string' ? frame.trim() : frame;
  let found: (typeof frames)[number] | undefined;
  if (typeof key === 'number' || /^\d+$/.test(key)) {
    found = frames[Number(key)];
  } else if (key !== '') {
    found =
      frames.find((f) => f.name === key) ?? frames.find((f) => f.url.includes(key) || f.name.includes(key));
  }
  if (!found) {
    throw fail(
      ctx.method,
      'ELEMENT_NOT_FOUND',
      `找不到框架 ${JSON.stringify(frame)}：frame 取 list_frames 的序号（0 = 主框架）或框架 URL / name 的子串；当前有 ${frames.length} 个框架，见 frames`,
      {
        frame,
        frameNotFound: true,
        frames: frames.map((f, i) => ({ index: i, url: f.url, name: f.name || undefined })),
      },
    );
  }
  return found.parentId === null ? undefined : found.id;
}

/** A selector target in the given frame, the caller's nth match when nth is given. */
export async function selectorTarget(
  ctx: MethodContext,
  p: { selector: string; frame?: string | number; nth?: number },
): Promise<Target> {
  const frame = await frameIdFor(ctx, p.frame);
  return {
    selector: p.selector,
    ...(frame !== undefined ? { frame } : {}),
    ...(p.nth !== undefined ? { nth: p.nth } : {}),
  };
}

/**
 * The element of an idx/sel parameter set for an engine screenshot: an index's ref; a selector in a
 * frame located by the engine (exactly one match) and given by its ref; a main-document selector as is.
 */
export async function shotElement(
  ctx: MethodContext,
  p: { index?: number; selector?: string; frame?: string | number },
): Promise<{ ref: string } | { selector: string }> {
  if (p.index !== undefined) return { ref: indexTarget(ctx, p.index).ref };
  const selector = p.selector!;
  const frame = await frameIdFor(ctx, p.frame);
  if (frame === undefined) return { selector };
  const found = await ops.locate.call(
    pageOf(ctx),
    { target: { selector, frame } },
    { timeoutMs: READ_TIMEOUT_MS },
  );
  return { ref: found.element_ref };
}
