import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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
 * then decodes as latin1, which Node keeps as an external one-byte string: 6.9 MB, off the V8
 * heap, with every line and column as before (the escapes only lengthen comment lines, after
 * which no code follows on those lines).
 *
 * Why never `import … from 'playwright-core'`: Node's ESM loader lexes a CommonJS module's source
 * for its export names and follows `module.exports = require(…)`, so it reads coreBundle.js a
 * second time, and its lexer keeps the last source it read in a variable of its own: 7.3 MB more
 * for the process's life.
 *
 * Only characters on comment lines (`//`, `/*`, ` *`) are rewritten; a bundle with one anywhere
 * else (a string, a regular expression, a template) is loaded as it is, so a future playwright-core
 * can cost memory here, never behaviour.
 */

const BUNDLE = /[/\\]playwright-core[/\\]lib[/\\](?:coreBundle|utilsBundle)\.js$/;
const WIDE = /[\u0100-\uffff]/g;

/** The source with its wide characters escaped, or undefined when one is not on a comment line. */
export function oneByteSource(source: string): string | undefined {
  let safe = true;
  const escaped = source.replace(WIDE, (ch, offset: number) => {
    const lineStart = source.lastIndexOf('\n', offset) + 1;
    const head = source.slice(lineStart, offset).trimStart();
    if (!(head.startsWith('//') || head.startsWith('/*') || head.startsWith('*'))) safe = false;
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return safe ? escaped : undefined;
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
    const escaped = oneByteSource(readFileSync(filename, 'utf8'));
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
