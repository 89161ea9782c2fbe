import { z } from 'zod';
import { frameElementRef } from '../frame-element.js';
import { WAIT_UNTIL } from '../page.js';
import { defineOp } from './define.js';

const WaitUntil = z
  .enum(WAIT_UNTIL as ['load', 'domcontentloaded', 'networkidle'])
  .optional()
  .describe('When the navigation counts as done (default load).');

export const open = defineOp({
  name: 'page.open',
  scope: 'page',
  effect: 'navigate',
  summary: 'Navigate the page to a URL; a URL that is a file starts a download instead.',
  input: z.object({ url: z.string(), wait_until: WaitUntil }).strict(),
  run: (page, i, opts) => page.open(i.url, i.wait_until, opts),
});

export const back = defineOp({
  name: 'page.back',
  scope: 'page',
  effect: 'navigate',
  summary: 'Go back one history entry.',
  input: z.object({ wait_until: WaitUntil }).strict(),
  run: (page, i, opts) => page.back(i.wait_until, opts),
});

export const forward = defineOp({
  name: 'page.forward',
  scope: 'page',
  effect: 'navigate',
  summary: 'Go forward one history entry.',
  input: z.object({ wait_until: WaitUntil }).strict(),
  run: (page, i, opts) => page.forward(i.wait_until, opts),
});

export const reload = defineOp({
  name: 'page.reload',
  scope: 'page',
  effect: 'navigate',
  summary: 'Reload the page.',
  input: z.object({ wait_until: WaitUntil }).strict(),
  run: (page, i, opts) => page.reload(i.wait_until, opts),
});

export const title = defineOp({
  name: 'page.title',
  scope: 'page',
  effect: 'read',
  summary: "Read the page's title now.",
  input: z.object({}).strict(),
  run: (page, _i, opts) => page.title(opts),
});

export const info = defineOp({
  name: 'page.info',
  scope: 'page',
  effect: 'read',
  summary: "The page's id, session, URL, last known title, whether it is active, and its opener.",
  input: z
    .object({
      fresh_title: z
        .boolean()
        .optional()
        .describe('Read the title now (at most 1 s, outside the page queue) instead of the last known one.'),
    })
    .strict(),
  run: (page, i) => (i.fresh_title ? page.freshInfo() : page.info()),
});

export const frames = defineOp({
  name: 'page.frames',
  scope: 'page',
  effect: 'read',
  summary: "The page's frames (main first) with ids, URLs, names, and whether the origin policy allows each.",
  input: z.object({}).strict(),
  run: (page) => page.frames(),
});

export const frameElement = defineOp({
  name: 'page.frame_element',
  scope: 'page',
  effect: 'read',
  summary:
    'The ref of the iframe element hosting a frame (null for the main frame), to scope a snapshot to it; the frame must be allowed.',
  input: z.object({ frame_id: z.string().min(1) }).strict(),
  run: (page, i, opts) => frameElementRef(page, i.frame_id, opts),
});

export const readyState = defineOp({
  name: 'page.ready_state',
  scope: 'page',
  effect: 'read',
  summary: "The document's readyState now: loading, interactive or complete.",
  input: z.object({}).strict(),
  run: async (page, _i, opts) => String((await page.evaluateScript('document.readyState', opts)).value),
});
