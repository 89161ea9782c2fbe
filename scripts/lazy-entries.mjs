// playwright-core's coreBundle.js with its entry modules initialized when first used, for the lean
// copy scripts/lean-playwright.mjs writes (src/backends/chromium/load-playwright.ts loads it).
//
// Why: coreBundle.js is an esbuild bundle whose modules are each wrapped in `__esm` (initialized
// once, by whoever imports them first: every module's init calls the inits of what it imports). Its
// last module, coreBundle.ts, re-exports a dozen entry points (`inprocess`, `server`, `tools`,
// `libCli`, `oop`, `remote`, …) through getters and initializes every one of them at load. A
// process that drives a browser in process reads `inprocess` (playwright-core's index.js) and
// `server` (our driver), and nothing else; the rest (Playwright's MCP server and its ≈ 1,000 zod
// tool schemas, its CLI programs, the dashboard, the trace tools) cost ≈ 2 MB of V8 heap for
// nothing (docs/benchmarks.md, memory).
//
// What changes: each getter of coreBundle's exports whose object belongs to a module that
// coreBundle.ts initializes becomes `key: () => (init_X(), X_exports)`, and that init leaves
// coreBundle.ts's own init. The first read of an export initializes its module as the load did,
// with the same `__esm` wrapper (once; an error is thrown again at every later read); the exports'
// names, getters and enumerability are unchanged. Inits that back no such getter stay where they
// were. When the bundle does not have exactly the expected shape (another esbuild or
// playwright-core), `lazyEntries` returns undefined and the copy keeps the eager load: memory,
// never behaviour.

const EXPORTS = /\n__export\(coreBundle_exports, \{\n((?: {2}[\w$]+: \(\) => [\w$]+,?\n)+)\}\);\n/;
const INIT =
  /\nvar init_coreBundle = __esm\(\{\n {2}"packages\/playwright-core\/src\/coreBundle\.ts"\(\) \{\n((?: {4}init_[\w$]+\(\);\n)+) {2}\}\n\}\);\ninit_coreBundle\(\);\n/;

/**
 * `source` (coreBundle.js as published) with its entry modules initialized on first read, and the
 * inits made lazy and kept eager; undefined when the bundle is not of the expected shape.
 */
export function lazyEntries(source) {
  const exp = EXPORTS.exec(source);
  const init = INIT.exec(source);
  if (
    !exp ||
    !init ||
    source.indexOf(exp[0], exp.index + 1) >= 0 ||
    source.indexOf(init[0], init.index + 1) >= 0
  )
    return undefined;
  const inits = [...init[1].matchAll(/init_[\w$]+/g)].map((m) => m[0]);
  const lazy = [];
  const getters = [...exp[1].matchAll(/ {2}([\w$]+): \(\) => ([\w$]+)/g)].map(([, key, ident]) => {
    const owner = ident.endsWith('_exports') ? initOf(source, ident) : undefined;
    if (!owner || !inits.includes(owner)) return `  ${key}: () => ${ident}`;
    lazy.push(owner);
    return `  ${key}: () => (${owner}(), ${ident})`;
  });
  if (lazy.length === 0) return undefined;
  const eager = inits.filter((i) => !lazy.includes(i));
  const exportsBlock = `\n__export(coreBundle_exports, {\n${getters.join(',\n')}\n});\n`;
  const initBlock = `\nvar init_coreBundle = __esm({\n  "packages/playwright-core/src/coreBundle.ts"() {\n${eager.map((i) => `    ${i}();\n`).join('')}  }\n});\ninit_coreBundle();\n`;
  const code = source.replace(exp[0], () => exportsBlock).replace(init[0], () => initBlock);
  return { code, lazy, eager };
}

/**
 * The init of the module that declares `ident` (`var <ident> = {};`, then its `__export`, then the
 * module's own `var init_X = __esm(`: esbuild writes a module's export object just before its init).
 */
function initOf(source, ident) {
  const decl = source.indexOf(`\nvar ${ident} = {};\n`);
  if (decl < 0) return undefined;
  const next = /\nvar (init_[\w$]+) = __esm\(/g;
  next.lastIndex = decl;
  const m = next.exec(source);
  // Another module's declaration in between would mean the init found is not this object's.
  const between = m ? source.slice(decl + 1, m.index) : '';
  if (!m || /\nvar [\w$]+_exports = \{\};\n/.test(between.slice(between.indexOf('\n')))) return undefined;
  return m[1];
}
