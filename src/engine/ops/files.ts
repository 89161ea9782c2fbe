import { z } from 'zod';
import { Target } from '../actions/spec.js';
import { ocrImage } from '../ocr.js';
import { fetchImage, fetchUrl } from '../resources.js';
import { ActOptions } from '../schemas.js';
import { uploadFiles } from '../uploads.js';
import { defineOp } from './define.js';

export const upload = defineOp({
  name: 'page.upload',
  scope: 'page',
  effect: 'act',
  summary:
    'Set files on the file input a target names, with a receipt: which input, its listeners, and the files it reads back.',
  input: z
    .object({
      target: Target,
      files: z.array(z.string().min(1)).min(1),
      observe_ms: ActOptions.observe_ms,
      observe_min_ms: ActOptions.observe_min_ms,
    })
    .strict(),
  run: (page, i, opts) =>
    uploadFiles(page, i.target, i.files, {
      ...opts,
      observe_ms: i.observe_ms,
      observe_min_ms: i.observe_min_ms,
    }),
});

export const image = defineOp({
  name: 'page.image',
  scope: 'page',
  effect: 'read',
  summary:
    'The original bytes of an image element (through the context, then in the page), with its type and size.',
  input: z.object({ target: Target, max_bytes: z.number().int().min(1).optional() }).strict(),
  run: (page, i, opts) => fetchImage(page, i.target, { ...opts, maxBytes: i.max_bytes }),
});

export const fetchResource = defineOp({
  name: 'page.fetch',
  scope: 'page',
  effect: 'read',
  summary: "An http(s) URL through the page's context (its cookies, the origin policy on every hop).",
  input: z.object({ url: z.string().min(1), max_bytes: z.number().int().min(1) }).strict(),
  run: (page, i, opts) => fetchUrl(page, i.url, { ...opts, maxBytes: i.max_bytes }),
});

export const ocr = defineOp({
  name: 'engine.ocr',
  scope: 'engine',
  effect: 'read',
  summary: 'Text in an image file, by the configured OCR command or tesseract.',
  input: z
    .object({
      file: z.string().min(1),
      language: z.string().min(1),
      config: z
        .object({
          engine: z.enum(['auto', 'command', 'tesseract', 'none']),
          command: z.string().optional(),
          timeoutMs: z.number().int().min(1),
        })
        .strict(),
    })
    .strict(),
  run: (_engine, i) => ocrImage(i.file, i.language, i.config),
});
