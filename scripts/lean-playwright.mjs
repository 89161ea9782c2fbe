#!/usr/bin/env node
// Whitespace-minified copies of playwright-core's two large bundles, for the loader in
// src/backends/chromium/load-playwright.ts (run by `npm run build`, after tsc):
//   node_modules/playwright-core/lib/{coreBundle,utilsBundle}.js → dist/vendor/playwright-core/
// V8 keeps a script's source for the process's life; these two are 6.9 MB of every Chromium
// process's memory. esbuild drops their comments and indentation (≈ 5.2 MB left) and nothing else:
// identifiers, syntax and strings stay as they are (`minifyWhitespace` only), every non-ASCII
// character is written as an escape (`charset: 'ascii'`, so the copy is a one-byte string), the
// licence comments are kept at the end of each file. manifest.json names the playwright-core
// version and each original's size: the loader uses a copy only when both match the installed
// package, and loads the original otherwise (a stale or missing copy costs memory, never behaviour).
// coreBundle's copy also initializes its entry modules on first use (scripts/lazy-entries.mjs:
// Playwright's MCP server, CLI and dashboard are never initialized in our processes); the manifest
// lists which (`lazy`), and a bundle of another shape is copied with its eager load.
// Usage: node scripts/lean-playwright.mjs [outDir]   (default dist/vendor/playwright-core)
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { lazyEntries } from './lazy-entries.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? join(root, 'dist/vendor/playwright-core');
const require = createRequire(join(root, 'package.json'));
const pkgFile = require.resolve('playwright-core/package.json');
const { version } = JSON.parse(readFileSync(pkgFile, 'utf8'));
const lib = join(dirname(pkgFile), 'lib');

mkdirSync(out, { recursive: true });
const bundles = {};
for (const name of ['coreBundle', 'utilsBundle']) {
  const file = join(lib, `${name}.js`);
  const original = readFileSync(file, 'utf8');
  const lazy = name === 'coreBundle' ? lazyEntries(original) : undefined;
  if (name === 'coreBundle' && !lazy)
    console.warn(
      'lean-playwright: coreBundle.js is not of the expected shape; its copy keeps the eager load',
    );
  const source = lazy?.code ?? original;
  const { code } = await transform(source, {
    loader: 'js',
    minifyWhitespace: true,
    charset: 'ascii',
    legalComments: 'eof',
    // No target: esbuild's default (esnext) lowers no syntax.
  });
  // The loader reads the copy as latin1, one char per byte: it must be ASCII.
  if (Buffer.byteLength(code) !== code.length) throw new Error(`${name}: esbuild left a non-ASCII character`);
  writeFileSync(join(out, `${name}.js`), code);
  bundles[name] = {
    sourceBytes: statSync(file).size,
    leanBytes: Buffer.byteLength(code),
    ...(lazy ? { lazy: lazy.lazy } : {}),
  };
}
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify({ version, bundles }, null, 2)}\n`);
