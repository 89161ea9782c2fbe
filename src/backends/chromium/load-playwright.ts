import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * playwright-core, required (never imported: see below) with its two large bundles held as
 * one-byte strings outside the V8 heap. Only the driver's modules call it (driver.ts): a process
 * loads playwright-core at its first launch or attach.
 *
 * Why: V8 keeps every script's source for as long as its functions may still be compiled lazily,
 * i.e. for the process's life. lib/coreBundle.js (3.6 MB) and lib/utilsBundle.js (3.3 MB) are ASCII
 * except for about 200 box-drawing characters, dashes and arrows in their comments, and one such
 * character makes Node read the whole file as a two-byte string: 13.6 MB of heap for 6.9 MB of
 * text. Written as `\uXXXX` those characters mean the same in a comment (nothing), and the source
 * is then one-byte, which Node keeps as an external string: 6.9 MB, off the V8 heap, with every
 * line as before (the escapes only lengthen comment lines, after which no code follows on those
 * lines). The file is read as latin1 in small pieces and decoded here, so that neither a two-byte
 * copy nor a large freed buffer is left behind (see latin1File).
 *
 * Why never `import … from 'playwright-core'`: Node's ESM loader lexes a CommonJS module's source
 * for its export names and follows `module.exports = require(…)`, so it reads coreBundle.js a
 * second time, and its lexer keeps the last source it read in a variable of its own: 7.3 MB more
 * for the process's life.
 *
 * Only characters on comment lines (`//`, `/*`, ` *`) are rewritten; a bundle with one anywhere
 * else (a string, a regular expression, a template) is loaded as it is, so a future playwright-core
 * can cost memory here, never behaviour.
 *
 * Smaller still: `npm run build` writes whitespace-minified copies of the two bundles to
 * dist/vendor/playwright-core (scripts/lean-playwright.mjs: no comments or indentation, identifiers
 * and syntax unchanged, ASCII only; 6.9 → 5.2 MB). The loader compiles a copy under the original's
 * file name when its manifest names the installed playwright-core version and the original's size,
 * and the original (as above) otherwise: a stale or missing copy, or running from src/, costs
 * memory, never behaviour.
 */

const BUNDLE = /[/\\]playwright-core[/\\]lib[/\\](?:coreBundle|utilsBundle)\.js$/;
/** A run of UTF-8 bytes of non-ASCII characters, read as latin1 (one char per byte). */
const NON_ASCII = /[\x80-\xff]+/g;

/**
 * JavaScript source from its UTF-8 bytes read as latin1 (one char per byte): every non-ASCII
 * character decoded, a Latin-1 one kept as it is (one-byte already), a wider one escaped as
 * `\uXXXX`; undefined when a wide character is not on a comment line or the bytes are not UTF-8.
 */
export function oneByteSource(bytes: string): string | undefined {
  let safe = true;
  const escaped = bytes.replace(NON_ASCII, (run, offset: number) => {
    const text = Buffer.from(run, 'latin1').toString('utf8');
    if (text.includes('\ufffd')) safe = false;
    if (!/[\u0100-\uffff]/.test(text)) return text;
    const lineStart = bytes.lastIndexOf('\n', offset) + 1;
    const head = bytes.slice(lineStart, offset).trimStart();
    if (!(head.startsWith('//') || head.startsWith('/*') || head.startsWith('*'))) safe = false;
    let out = '';
    for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
  return safe ? escaped : undefined;
}

/**
 * A file's bytes as a latin1 string, read in 64 KiB pieces. Why not `readFileSync`: its buffer of
 * the whole file is a malloc'd block of more than 128 KiB (an mmap), and glibc raises its mmap
 * and trim thresholds when such a block is freed: the memory freed while the bundles compile
 * then stays in the process (measured: 13 MB more PSS for the same heap).
 */
function latin1File(filename: string): string {
  const fd = openSync(filename, 'r');
  const piece = Buffer.allocUnsafeSlow(64 * 1024);
  const parts: string[] = [];
  try {
    for (;;) {
      const n = readSync(fd, piece, 0, piece.length, null);
      if (n === 0) break;
      parts.push(piece.toString('latin1', 0, n));
    }
  } finally {
    closeSync(fd);
  }
  return parts.join('');
}

/** dist/vendor/playwright-core (written by `npm run build`; without a build there is none). */
const LEAN_DIR = join(PACKAGE_ROOT, 'dist/vendor/playwright-core');

interface LeanManifest {
  version: string;
  bundles: Record<string, { sourceBytes: number }>;
}

/**
 * The lean copy of the bundle at `filename` (latin1, ASCII only), or undefined when there is none
 * for this playwright-core: no manifest, another version, or an original of another size.
 */
export function leanBundle(filename: string, dir = LEAN_DIR): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as LeanManifest;
    const pkg = JSON.parse(readFileSync(join(dirname(filename), '../package.json'), 'utf8')) as {
      version?: string;
    };
    const name = basename(filename, '.js');
    const entry = manifest.bundles[name];
    if (!entry || manifest.version !== pkg.version || statSync(filename).size !== entry.sourceBytes)
      return undefined;
    return latin1File(join(dir, `${name}.js`));
  } catch {
    return undefined;
  }
}

interface CjsModule {
  _compile(source: string, filename: string): void;
}
type Loader = (module: CjsModule, filename: string) => void;

type PlaywrightCore = typeof import('playwright-core');
let loaded: PlaywrightCore | undefined;

/** playwright-core's exports, loaded on the first call. */
export function playwrightCore(): PlaywrightCore {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const extensions = (require('node:module') as { _extensions: Record<string, Loader> })._extensions;
  const plain = extensions['.js']!;
  extensions['.js'] = (module, filename) => {
    if (!BUNDLE.test(filename)) return plain(module, filename);
    const escaped = leanBundle(filename) ?? oneByteSource(latin1File(filename));
    if (escaped === undefined) return plain(module, filename);
    // latin1 of more than about 1 MB: Node makes it an external one-byte string.
    module._compile(Buffer.from(escaped, 'latin1').toString('latin1'), filename);
  };
  try {
    loaded = require('playwright-core') as PlaywrightCore;
  } finally {
    extensions['.js'] = plain;
  }
  return loaded;
}
