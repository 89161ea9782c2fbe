#!/usr/bin/env node
// Bundles the built CLI (dist/cli/*.js, tsc's output) with its dependencies into dist/bundle/, which
// bin/tabwright.js runs. Why (docs/ARCHITECTURE.md, "A lean Node side"): a long-lived door keeps
// every module's source text and compiled top level for the process's life. One scope-hoisted,
// tree-shaken copy, minified in whitespace and syntax, drops what no door reaches (zod's ~50
// locales, unused exports) and a third of the source bytes: 2-7 MB of a door's PSS at rest with one
// page open (docs/benchmarks.md, "The CLI as one bundle").
//
// What stays as it was:
//   - every lazy `import('./x.js')` becomes a chunk of its own, loaded at the same moment as before;
//   - identifiers are not minified (only whitespace and syntax are). Scope hoisting renames a
//     top-level name that two modules share by adding a number (`dispatch2`; commander's
//     `CommanderError2`), consistently inside each function, so functions serialized into pages
//     (Function.toString) work as they did; a stack trace may show such a name;
//   - packages required at run time through `createRequire` (playwright-core and its lean copy,
//     fflate, fastify's schema compilers) are loaded from node_modules as before: not bundled;
//   - the library entry points (dist/index.js, dist/doors/pipe/sdk) are tsc's output, unbundled.
// One thing differs: zod's `locales` namespace holds only the locales tabwright's code names
// (`locales.<name>` in dist/; English, zod's default, always). zod re-exports its ~50 locales from
// every entry (`export * as locales`), and a namespace object cannot be tree-shaken; the doors word
// their own errors (the HTTP door renders zod's issues again in Chinese) and never switch zod's
// locale. A name this cannot find in zod's list keeps the whole list.
// Every output file sits directly in dist/bundle/, one level under dist/ like dist/cli/, so a path
// made from `import.meta.url` means the same in both (src/package-root.ts finds the rest).
// dist/bundle/meta.json (esbuild's metafile) says which sources each chunk holds: the lean-loading
// test reads it to tell which modules a door loaded.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/bundle');

/** The processes' entry points: the CLI, its V8 flags (set before the CLI loads), the JS daemon. */
const ENTRIES = ['main', 'v8-flags', 'js-daemon-main'].map((name) => join(root, 'dist/cli', `${name}.js`));

/** The zod locales that tabwright's built code names, plus English. */
function namedLocales() {
  const names = new Set(['en']);
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== out && e.name !== 'vendor') walk(p);
      } else if (e.name.endsWith('.js')) {
        for (const m of readFileSync(p, 'utf8').matchAll(/\blocales\.([A-Za-z]+)\b/g)) names.add(m[1]);
      }
    }
  };
  walk(join(root, 'dist'));
  return names;
}

/** zod/v4/locales/index.js with only the locales named (see above). */
const zodNamedLocales = {
  name: 'zod-named-locales',
  setup(b) {
    const names = namedLocales();
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, ({ path }) => {
      const lines = readFileSync(path, 'utf8').split('\n');
      const kept = lines.filter((l) => names.has(/^export \{ default as (\w+) \}/.exec(l)?.[1]));
      return { contents: (kept.length === names.size ? kept : lines).join('\n'), loader: 'js' };
    });
  },
};

rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: ENTRIES,
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  plugins: [zodNamedLocales],
  // Loaded through createRequire when first needed (see above), or optional and absent.
  external: [
    'playwright-core',
    'fflate',
    '@fastify/ajv-compiler',
    '@fastify/fast-json-stringify-compiler',
    'bufferutil',
    'utf-8-validate',
  ],
  // CommonJS packages in an ES module bundle call `require` for Node's built-ins.
  banner: {
    js: "import{createRequire as __tabwrightRequire}from'node:module';const require=__tabwrightRequire(import.meta.url);",
  },
});
writeFileSync(join(out, 'meta.json'), JSON.stringify(result.metafile));
