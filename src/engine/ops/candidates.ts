import { z } from 'zod';
import { Deadline } from '../deadline.js';
import { frameById, mainFrame } from '../frames.js';
import { actionCandidates } from '../semantics/candidates.js';
import { pickElement } from '../semantics/pick.js';
import { defineOp } from './define.js';

/** Page understanding for bounded decisions (src/engine/semantics/candidates.ts). */

export const candidates = defineOp({
  name: 'page.candidates',
  scope: 'page',
  effect: 'read',
  summary:
    'The elements an agent can act on now (main frame, enabled, not secret), with the actions each role allows, state and context.',
  input: z.object({ max: z.number().int().min(1).max(1_000).describe('At most this many.') }).strict(),
  run: (page, i, opts) => actionCandidates(page, i.max, opts),
});

export const pick = defineOp({
  name: 'page.pick',
  scope: 'page',
  effect: 'read',
  summary:
    'The element a selector or text means when several match: visible first, exact text first, clickable first, the one receiving the pointer; the choice and the candidates are reported, a tie among equally good visible ones is refused.',
  input: z
    .object({
      selector: z.string().min(1).optional().describe('A CSS selector.'),
      text: z.string().min(1).optional().describe('Visible text (contained, case-insensitive).'),
      exact: z.boolean().optional().describe('Text only: the whole text must equal it.'),
      frame: z.string().min(1).optional().describe('An engine frame id; the main frame when absent.'),
    })
    .strict()
    .refine((i) => (i.selector === undefined) !== (i.text === undefined), {
      message: 'Give exactly one of selector or text.',
    }),
  run: (page, i, opts) => {
    const d = Deadline.from(opts);
    const frame = i.frame === undefined ? mainFrame(page) : frameById(page, i.frame);
    return pickElement(page, frame, { selector: i.selector, text: i.text, exact: i.exact }, d);
  },
});

const FOCUSED_SOURCE = `
let a = document.activeElement;
while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
if (!a || a === document.body || a === document.documentElement) return null;
const tag = a.tagName.toLowerCase();
const type = (a.getAttribute('type') || '').toLowerCase();
const editable = a.isContentEditable || tag === 'textarea' ||
  (tag === 'input' && !['checkbox','radio','button','submit','reset','file','image','range','color','hidden'].includes(type));
const name = (a.getAttribute('aria-label') || a.getAttribute('name') || a.id || '').slice(0, 80);
return { tag, type: type || undefined, editable, name: name || undefined };
`;
const focusedFunction = new Function(FOCUSED_SOURCE) as () => {
  tag: string;
  type?: string;
  editable: boolean;
  name?: string;
} | null;

export const focused = defineOp({
  name: 'page.focused',
  scope: 'page',
  effect: 'read',
  summary:
    'The element that has keyboard focus in the main document (tag, type, whether it takes text, its name), or null when the page itself has it.',
  input: z.object({}).strict(),
  run: async (page, _i, opts) => {
    const frame = page.backend.frames()[0];
    if (!frame) return null;
    return frame.evaluate(focusedFunction, undefined, Math.max(1, Deadline.from(opts).remaining()));
  },
});
