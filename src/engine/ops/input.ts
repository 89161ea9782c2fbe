import { z } from 'zod';
import { keyDown, keyUp, liveInput, mouseDown, mouseUp } from '../held-input.js';
import { defineOp } from './define.js';

/** Held keys and buttons, and a person's live input: trusted, in the page's queue, unguarded. */

const Key = z.string().min(1).describe('One key, e.g. "Shift" or "a".');
const Button = z.enum(['left', 'right', 'middle']);

export const holdKey = defineOp({
  name: 'page.key_down',
  scope: 'page',
  effect: 'act',
  summary: 'Hold a key down until key_up.',
  input: z.object({ key: Key }).strict(),
  run: (page, i, opts) => keyDown(page, i.key, opts),
});

export const releaseKey = defineOp({
  name: 'page.key_up',
  scope: 'page',
  effect: 'act',
  summary: 'Release a held key.',
  input: z.object({ key: Key }).strict(),
  run: (page, i, opts) => keyUp(page, i.key, opts),
});

export const holdButton = defineOp({
  name: 'page.mouse_down',
  scope: 'page',
  effect: 'act',
  summary: 'Press a mouse button at the current pointer position and hold it.',
  input: z.object({ button: Button.optional() }).strict(),
  run: (page, i, opts) => mouseDown(page, i.button ?? 'left', opts),
});

export const releaseButton = defineOp({
  name: 'page.mouse_up',
  scope: 'page',
  effect: 'act',
  summary: 'Release a held mouse button.',
  input: z.object({ button: Button.optional() }).strict(),
  run: (page, i, opts) => mouseUp(page, i.button ?? 'left', opts),
});

export const personInput = defineOp({
  name: 'page.live_input',
  scope: 'page',
  effect: 'act',
  summary: "A person's input through a live view: a click at a point, text, or a key.",
  input: z.discriminatedUnion('type', [
    z.object({ type: z.literal('click'), x: z.number(), y: z.number() }).strict(),
    z.object({ type: z.literal('text'), text: z.string() }).strict(),
    z.object({ type: z.literal('key'), key: Key }).strict(),
  ]),
  run: (page, i, opts) => liveInput(page, i, opts),
});
