import { z } from 'zod';
import { ElementRef } from '../actions/spec.js';
import { readHtml, readLinks, readText, scrollPageTo } from '../content.js';
import { countMatches, type ElementReadKind, readElement, readElements } from '../element-reads.js';
import { SnapshotOptions } from '../schemas.js';
import { defineOp } from './define.js';

/** Reads of the page and its elements; secret values are redacted or dropped by the engine. */

export const snapshot = defineOp({
  name: 'page.snapshot',
  scope: 'page',
  effect: 'read',
  summary: 'The page model with identity refs, its agent text and the actionable elements (or a diff).',
  input: SnapshotOptions,
  run: (page, i, opts) => page.snapshot(i, opts),
});

const InFrame = z
  .string()
  .min(1)
  .optional()
  .describe('An engine frame id (page frames); the main frame when absent.');

export const readPageText = defineOp({
  name: 'page.read_text',
  scope: 'page',
  effect: 'read',
  summary:
    'Visible text of the page (with its shadow roots and same-origin frames), or of the first element a selector matches (with the match count).',
  input: z.object({ selector: z.string().min(1).optional(), frame: InFrame }).strict(),
  run: (page, i, opts) => readText(page, i.selector, { ...opts, frame: i.frame }),
});

export const readPageHtml = defineOp({
  name: 'page.read_html',
  scope: 'page',
  effect: 'read',
  summary: "HTML of the page or of the first match, with secret fields' value attributes dropped.",
  input: z.object({ selector: z.string().min(1).optional(), frame: InFrame }).strict(),
  run: (page, i, opts) => readHtml(page, i.selector, { ...opts, frame: i.frame }),
});

export const readPageLinks = defineOp({
  name: 'page.read_links',
  scope: 'page',
  effect: 'read',
  summary: "The page's links (text and absolute URL), in document order.",
  input: z.object({ limit: z.number().int().min(1).max(10_000).optional() }).strict(),
  run: (page, i, opts) => readLinks(page, i.limit, opts),
});

export const scrollTo = defineOp({
  name: 'page.scroll_to',
  scope: 'page',
  effect: 'act',
  summary: 'Scroll the page to absolute document coordinates; returns where it ended.',
  input: z.object({ x: z.number(), y: z.number() }).strict(),
  run: (page, i, opts) => scrollPageTo(page, i.x, i.y, opts),
});

const ELEMENT_READS = [
  'text',
  'html',
  'value',
  'attribute',
  'box',
  'visible',
  'enabled',
  'checked',
  'tag',
  'identity',
  'options',
  'sensitive',
] as const satisfies readonly ElementReadKind[];

const ReadTarget = z.union([
  z.object({ element_ref: ElementRef }).strict(),
  z.object({ selector: z.string().min(1), frame: InFrame }).strict(),
]);

export const readOneElement = defineOp({
  name: 'page.read_element',
  scope: 'page',
  effect: 'read',
  summary:
    "One element's text, HTML, value, attribute, box or state, by ref or by selector (the first match).",
  input: z
    .object({
      target: ReadTarget,
      kind: z.enum(ELEMENT_READS),
      /** The attribute name, for kind "attribute". */
      arg: z.unknown().optional(),
    })
    .strict(),
  run: (page, i, opts) => readElement(page, i.target, i.kind, i.arg ?? null, opts),
});

export const readManyElements = defineOp({
  name: 'page.read_elements',
  scope: 'page',
  effect: 'read',
  summary: 'The same read of many refs in one round trip per frame (null for a ref that is gone).',
  input: z
    .object({ refs: z.array(ElementRef), kind: z.enum(ELEMENT_READS), arg: z.unknown().optional() })
    .strict(),
  run: (page, i, opts) => readElements(page, i.refs, i.kind, i.arg ?? null, opts),
});

export const count = defineOp({
  name: 'page.count',
  scope: 'page',
  effect: 'read',
  summary:
    'How many elements a CSS selector matches (`host >>> inner` steps into shadow roots; main frame, or a frame).',
  input: z.object({ selector: z.string().min(1), frame: InFrame }).strict(),
  run: (page, i, opts) => countMatches(page, i.selector, { ...opts, frame: i.frame }),
});

export const fileChoosers = defineOp({
  name: 'page.file_choosers',
  scope: 'page',
  effect: 'read',
  summary: 'File choosers the page opened (intercepted in headless browsers), after a seq.',
  input: z.object({ since_seq: z.number().int().min(0).optional() }).strict(),
  run: (page, i) => page.fileChoosers.list(i.since_seq),
});

export const consoleMessages = defineOp({
  name: 'page.console',
  scope: 'page',
  effect: 'read',
  summary:
    "The page's console messages and uncaught errors (the last 500), optionally after a seq or by level.",
  input: z
    .object({
      since_seq: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).optional(),
      level: z.string().optional(),
    })
    .strict(),
  run: (page, i) => page.console.list(i),
});

export const clearConsole = defineOp({
  name: 'page.console_clear',
  scope: 'page',
  effect: 'configure',
  summary: "Forget the page's console messages so far.",
  input: z.object({}).strict(),
  run: (page) => page.console.clear(),
});
