import { z } from 'zod';
import { defineOp } from './define.js';

export const evaluate = defineOp({
  name: 'page.eval',
  scope: 'page',
  effect: 'raw',
  summary:
    'Run caller JavaScript in the page (or a frame): an expression, a function called with args, or a body with return.',
  input: z
    .object({
      source: z.string().min(1),
      args: z.array(z.unknown()).optional(),
      frame: z.string().min(1).optional(),
    })
    .strict(),
  run: (page, i, opts) => page.evaluateScript(i.source, { ...opts, args: i.args, frame: i.frame }),
});

const Area = z.enum(['local', 'session']);

export const storageRead = defineOp({
  name: 'page.storage_get',
  scope: 'page',
  effect: 'read',
  summary: 'localStorage or sessionStorage of the document: all keys, or one value (null when absent).',
  input: z.object({ area: Area, key: z.string().optional() }).strict(),
  run: (page, i, opts) => page.storageGet(i.area, i.key, opts),
});

export const storageWrite = defineOp({
  name: 'page.storage_set',
  scope: 'page',
  effect: 'configure',
  summary: 'Set one key of localStorage or sessionStorage.',
  input: z.object({ area: Area, key: z.string(), value: z.string() }).strict(),
  run: (page, i, opts) => page.storageSet(i.area, i.key, i.value, opts),
});

export const storageDelete = defineOp({
  name: 'page.storage_remove',
  scope: 'page',
  effect: 'configure',
  summary: 'Remove one key, or clear the area without a key.',
  input: z.object({ area: Area, key: z.string().optional() }).strict(),
  run: (page, i, opts) => page.storageRemove(i.area, i.key, opts),
});

export const evaluateOnElement = defineOp({
  name: 'page.eval_ref',
  scope: 'page',
  effect: 'raw',
  summary: 'Run a caller function on the element behind a ref (element first, then arg); a stale ref fails.',
  input: z
    .object({
      ref: z.string().regex(/^e[1-9][0-9]*$/),
      source: z.string().min(1),
      arg: z.unknown().optional(),
    })
    .strict(),
  run: (page, i, opts) => page.evaluateRef(i.ref, i.source, i.arg, opts),
});
