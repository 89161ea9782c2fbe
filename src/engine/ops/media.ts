import { z } from 'zod';
import { printPdf, setColorScheme, setViewport } from '../emulation.js';
import { ScreenshotOptions } from '../schemas.js';
import { defineOp } from './define.js';

export const screenshot = defineOp({
  name: 'page.screenshot',
  scope: 'page',
  effect: 'read',
  summary: 'PNG or JPEG of the viewport, the full page, a clip (document CSS px) or one element.',
  input: ScreenshotOptions,
  run: (page, i, opts) => page.screenshot(i, opts),
});

export const pdf = defineOp({
  name: 'page.pdf',
  scope: 'page',
  effect: 'read',
  summary: 'Print the page to PDF (headless Chromium).',
  input: z.object({}).strict(),
  run: (page, _i, opts) => printPdf(page, opts),
});

export const viewport = defineOp({
  name: 'page.set_viewport',
  scope: 'page',
  effect: 'configure',
  summary: "Set the page's viewport size in CSS px.",
  input: z
    .object({ width: z.number().int().min(1).max(16_384), height: z.number().int().min(1).max(16_384) })
    .strict(),
  run: (page, i, opts) => setViewport(page, i, opts),
});

export const colorScheme = defineOp({
  name: 'page.set_color_scheme',
  scope: 'page',
  effect: 'configure',
  summary: 'Emulate prefers-color-scheme (null resets to the browser default).',
  input: z.object({ scheme: z.enum(['light', 'dark', 'no-preference']).nullable() }).strict(),
  run: (page, i, opts) => setColorScheme(page, i.scheme, opts),
});
