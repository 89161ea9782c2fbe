import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { TabwrightError } from './errors.js';
import { log } from './log.js';

/**
 * OCR of an image file by an external command (reference §14.6, engine `command`). Linux has no OS OCR,
 * so the engines are: a configured command line with `{input}`, `{output}`, `{language}` placeholders,
 * or, when none is configured, `tesseract` if it is on PATH. No silent fallback: a configured command
 * that fails is an error, never a quiet switch to another engine.
 */

export interface OcrConfig {
  /** `auto` (default): the configured command, else tesseract on PATH; `command`: only the configured one; `none`: off. */
  engine: 'auto' | 'command' | 'tesseract' | 'none';
  /** e.g. `tesseract {input} stdout -l {language}` or `my-ocr --lang {language} {input} {output}`. */
  command?: string;
  /** Budget of one OCR run (default 30 s). */
  timeoutMs: number;
}

export const DEFAULT_OCR_TIMEOUT_MS = 30_000;

export const BUILTIN_TESSERACT_COMMAND = 'tesseract {input} stdout -l {language}';

export interface OcrResult {
  text: string;
  lineCount: number;
  /** Always `command` (the reference's name for an external document-OCR command). */
  engine: 'command';
  /** `configured` (TABWRIGHT_OCR_COMMAND) or `tesseract` (the built-in default). */
  commandSource: 'configured' | 'tesseract';
  /** The language as asked (`zh-Hans-CN`) and as given to the command (`chi_sim`). */
  language: string;
  engineLanguage: string;
  durationMs: number;
}

/** BCP-47-ish names → tesseract's traineddata names (others pass through when they look like one). */
const TESSERACT_LANGS: Record<string, string> = {
  zh: 'chi_sim',
  'zh-cn': 'chi_sim',
  'zh-sg': 'chi_sim',
  'zh-hans': 'chi_sim',
  'zh-hans-cn': 'chi_sim',
  'zh-tw': 'chi_tra',
  'zh-hk': 'chi_tra',
  'zh-hant': 'chi_tra',
  'zh-hant-tw': 'chi_tra',
  'zh-hant-hk': 'chi_tra',
  en: 'eng',
  'en-us': 'eng',
  'en-gb': 'eng',
  ja: 'jpn',
  'ja-jp': 'jpn',
  ko: 'kor',
  'ko-kr': 'kor',
  fr: 'fra',
  'fr-fr': 'fra',
  de: 'deu',
  'de-de': 'deu',
  es: 'spa',
  'es-es': 'spa',
  it: 'ita',
  pt: 'por',
  'pt-br': 'por',
  ru: 'rus',
  ar: 'ara',
  hi: 'hin',
  vi: 'vie',
  th: 'tha',
};

const LANGUAGE = /^[A-Za-z0-9_+-]{1,64}$/;

/** The tesseract language for a language name; `chi_sim+eng` style values pass through. */
export function tesseractLanguage(language: string): string {
  const parts = language.split('+');
  return parts.map((p) => TESSERACT_LANGS[p.toLowerCase()] ?? p.replace(/-/g, '_').toLowerCase()).join('+');
}

function onPath(cmd: string, env = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, cmd);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // next
    }
  }
  return undefined;
}

let tesseractLangs: { at: string; langs: string[] } | undefined;

/** Languages tesseract has traineddata for (`tesseract --list-langs`), cached per binary. */
function installedTesseractLanguages(bin: string): string[] {
  if (tesseractLangs?.at === bin) return tesseractLangs.langs;
  const r = spawnSync(bin, ['--list-langs'], { encoding: 'utf8', timeout: 10_000 });
  const langs = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[A-Za-z0-9_]+$/.test(l) && l !== 'osd');
  tesseractLangs = { at: bin, langs };
  return langs;
}

/** What `get_config` shows: which engine an ocr_image call would use now. */
export function describeOcr(cfg: OcrConfig): Record<string, unknown> {
  const tesseract = onPath('tesseract');
  const using =
    cfg.engine === 'none'
      ? null
      : cfg.command && cfg.engine !== 'tesseract'
        ? 'configured'
        : cfg.engine !== 'command' && tesseract
          ? 'tesseract'
          : null;
  return {
    engine: cfg.engine,
    available: using !== null,
    using,
    command: using === 'configured' ? cfg.command : using === 'tesseract' ? BUILTIN_TESSERACT_COMMAND : null,
    timeoutMs: cfg.timeoutMs,
    tesseract: tesseract ?? null,
    tesseractLanguages: tesseract ? installedTesseractLanguages(tesseract) : undefined,
  };
}

const INSTALL_HINT =
  'Install tesseract (Debian: apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim; `npm start` / `npm test` do it as root), or set TABWRIGHT_OCR_COMMAND to a command line with {input}, {output} (optional) and {language} placeholders. Until then, show the image (imageUrl) to a person with request_human_input.';

/** Splits a command line into words: whitespace separates, single and double quotes group, no shell. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) words.push(cur);
      cur = '';
      has = false;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else {
      cur += ch;
      has = true;
    }
  }
  if (quote) throw new TabwrightError('invalid_request', `The OCR command has an unclosed ${quote} quote.`);
  if (has || cur) words.push(cur);
  return words;
}

/** Runs OCR on an image file. */
export async function ocrImage(file: string, language: string, cfg: OcrConfig): Promise<OcrResult> {
  if (!LANGUAGE.test(language)) {
    throw new TabwrightError(
      'invalid_request',
      `language ${JSON.stringify(language)} is not a language name (e.g. zh-Hans-CN, en-US, chi_sim+eng).`,
      { details: { field: 'language' } },
    );
  }
  const tesseract = cfg.engine === 'command' || cfg.engine === 'none' ? undefined : onPath('tesseract');
  let source: OcrResult['commandSource'];
  let line: string;
  let engineLanguage: string;
  if (cfg.engine === 'none') {
    throw new TabwrightError('setup_required', 'OCR is turned off (TABWRIGHT_OCR_ENGINE=none).', {
      details: { engineMissing: true, reason: 'ocr_disabled', install: INSTALL_HINT },
    });
  } else if (cfg.command && cfg.engine !== 'tesseract') {
    source = 'configured';
    line = cfg.command;
    engineLanguage = language;
  } else if (tesseract) {
    source = 'tesseract';
    line = BUILTIN_TESSERACT_COMMAND;
    engineLanguage = tesseractLanguage(language);
    const installed = installedTesseractLanguages(tesseract);
    const missing = engineLanguage.split('+').filter((l) => !installed.includes(l));
    if (missing.length > 0) {
      throw new TabwrightError(
        'setup_required',
        `tesseract has no language data for ${missing.join(', ')} (asked: ${language}). Install it: apt-get install -y ${missing.map((l) => `tesseract-ocr-${l.replace(/_/g, '-')}`).join(' ')}; or pass a language from installedLanguages.`,
        {
          details: {
            engineMissing: true,
            reason: 'language_missing',
            language,
            engineLanguage,
            installedLanguages: installed,
          },
        },
      );
    }
  } else {
    throw new TabwrightError(
      'setup_required',
      cfg.engine === 'command'
        ? `No OCR command is configured (TABWRIGHT_OCR_ENGINE=command needs TABWRIGHT_OCR_COMMAND). ${INSTALL_HINT}`
        : `No OCR engine is available: tesseract is not on PATH and TABWRIGHT_OCR_COMMAND is not set. ${INSTALL_HINT}`,
      { details: { engineMissing: true, reason: 'no_engine', install: INSTALL_HINT } },
    );
  }

  const words = splitCommand(line);
  if (words.length === 0 || !line.includes('{input}')) {
    throw new TabwrightError(
      'setup_required',
      `The OCR command ${JSON.stringify(line)} needs an {input} placeholder (and {output} or stdout for the text).`,
      { details: { reason: 'bad_command' } },
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'tabwright-ocr-'));
  const output = join(dir, 'out.txt');
  const usesOutput = line.includes('{output}');
  const argv = words.map((w) =>
    w.replaceAll('{input}', file).replaceAll('{output}', output).replaceAll('{language}', engineLanguage),
  );
  const began = Date.now();
  try {
    const run = await runCommand(argv, cfg.timeoutMs);
    const failed = run.timedOut || run.code !== 0 || run.spawnError;
    if (failed) {
      const why = run.spawnError
        ? `could not be started (${run.spawnError})`
        : run.timedOut
          ? `did not finish within ${cfg.timeoutMs} ms and was killed`
          : `exited with ${run.code ?? run.signal}`;
      throw new TabwrightError(
        'internal_error',
        `The OCR command ${why}: ${argv[0]}. ${run.stderr.trim().slice(-500)}`,
        {
          details: {
            reason: run.timedOut ? 'ocr_timeout' : 'ocr_command_failed',
            command: argv[0],
            exitCode: run.code,
            stderr: run.stderr.slice(-2000),
            timedOut: run.timedOut,
          },
        },
      );
    }
    let raw = run.stdout;
    if (usesOutput) {
      // tesseract-style commands append .txt to an output base name.
      raw =
        (await readFile(output, 'utf8').catch(() =>
          readFile(`${output}.txt`, 'utf8').catch(() => undefined),
        )) ?? '';
      if (raw === '' && run.stdout.trim() !== '') raw = run.stdout;
    }
    const text = raw
      .replace(/\f/g, '')
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    const lineCount = text === '' ? 0 : text.split('\n').filter((l) => l.trim() !== '').length;
    const durationMs = Date.now() - began;
    log.debug({ command: argv[0], language: engineLanguage, ms: durationMs, chars: text.length }, 'ocr');
    return {
      text,
      lineCount,
      engine: 'command',
      commandSource: source,
      language,
      engineLanguage,
      durationMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface CommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError?: string;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

function runCommand(argv: string[], timeoutMs: number): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += c;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr, timedOut, spawnError: err.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
