import { join, resolve } from 'node:path';
import { DEFAULT_OCR_TIMEOUT_MS, type OcrConfig } from '../../engine/api.js';
import { DEFAULT_UPLOAD_MAX_BYTES, type UploadConfig } from './upload-staging.js';

/** Settings of the file methods (staging, upload_file, download_image, ocr_image). */
export interface FilesConfig {
  upload: UploadConfig;
  ocr: OcrConfig;
}

export interface FilesOptions {
  /** Staging directory; default `<engine home>/upload`. */
  uploadDir?: string;
  /** Per staged file; default 64 MiB. */
  uploadMaxBytes?: number;
  /** Same name replaces (default true); false auto-renames `a.jpg` → `a-1.jpg`. */
  uploadOverwrite?: boolean;
  ocr?: Partial<OcrConfig>;
}

export function resolveFilesConfig(home: string, o: FilesOptions = {}): FilesConfig {
  return {
    upload: {
      dir: resolve(o.uploadDir ?? join(home, 'upload')),
      maxBytes: o.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
      overwrite: o.uploadOverwrite ?? true,
    },
    ocr: {
      engine: o.ocr?.engine ?? 'auto',
      command: o.ocr?.command || undefined,
      timeoutMs: o.ocr?.timeoutMs ?? DEFAULT_OCR_TIMEOUT_MS,
    },
  };
}

/**
 * The settings from the environment (`tabwright serve`): TABWRIGHT_UPLOAD_DIR, TABWRIGHT_UPLOAD_MAX_BYTES,
 * TABWRIGHT_UPLOAD_OVERWRITE, TABWRIGHT_OCR_ENGINE, TABWRIGHT_OCR_COMMAND, TABWRIGHT_OCR_TIMEOUT_MS.
 * A value that does not parse is an error (the server refuses to start), never silently ignored.
 */
export function filesOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): FilesOptions {
  const o: FilesOptions = { ocr: {} };
  const int = (name: string, min: number, max: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`${name}=${v} is not an integer between ${min} and ${max}`);
    return n;
  };
  if (env.TABWRIGHT_UPLOAD_DIR) o.uploadDir = env.TABWRIGHT_UPLOAD_DIR;
  o.uploadMaxBytes = int('TABWRIGHT_UPLOAD_MAX_BYTES', 1, 2 * 1024 * 1024 * 1024);
  const ow = env.TABWRIGHT_UPLOAD_OVERWRITE;
  if (ow !== undefined && ow !== '') {
    if (!/^(true|false|1|0)$/i.test(ow))
      throw new Error(`TABWRIGHT_UPLOAD_OVERWRITE=${ow} must be true or false`);
    o.uploadOverwrite = /^(true|1)$/i.test(ow);
  }
  const engine = env.TABWRIGHT_OCR_ENGINE;
  if (engine !== undefined && engine !== '') {
    if (!['auto', 'command', 'tesseract', 'none'].includes(engine))
      throw new Error(`TABWRIGHT_OCR_ENGINE=${engine} must be auto, command, tesseract or none`);
    o.ocr!.engine = engine as OcrConfig['engine'];
  }
  if (env.TABWRIGHT_OCR_COMMAND) o.ocr!.command = env.TABWRIGHT_OCR_COMMAND;
  o.ocr!.timeoutMs = int('TABWRIGHT_OCR_TIMEOUT_MS', 100, 600_000);
  return o;
}
