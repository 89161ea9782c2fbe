import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
// @ts-expect-error: a build script in plain JavaScript (no declarations)
import { lazyEntries } from '../scripts/lazy-entries.mjs';
import { ROOT } from './helpers/provider.js';

/**
 * The lean copy of playwright-core's coreBundle.js initializes its entry modules on first use
 * (scripts/lazy-entries.mjs; docs/ARCHITECTURE.md, a lean Node side): what we never read
 * (Playwright's MCP tools, CLI, dashboard) is never initialized, what we read works as before.
 */

type Lazy = { code: string; lazy: string[]; eager: string[] } | undefined;
const transform = lazyEntries as (source: string) => Lazy;

/** A bundle of esbuild's shape: two entry modules whose inits log, and coreBundle.ts's eager load. */
const BUNDLE = `"use strict";
var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res) => function __init() {
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var log = globalThis.initLog;

// packages/playwright-core/src/a.ts
var a_exports = {};
__export(a_exports, {
  value: () => value
});
var value;
var init_a = __esm({
  "packages/playwright-core/src/a.ts"() {
    log.push("a");
    value = "A";
  }
});

// packages/playwright-core/src/b.ts
var b_exports = {};
__export(b_exports, {
  other: () => other
});
var other;
var init_b = __esm({
  "packages/playwright-core/src/b.ts"() {
    init_a();
    log.push("b");
    other = value + "B";
  }
});

// packages/playwright-core/src/plain.ts
function version() { return "1"; }
var init_plain = __esm({
  "packages/playwright-core/src/plain.ts"() {
    log.push("plain");
  }
});

// packages/playwright-core/src/coreBundle.ts
var coreBundle_exports = {};
__export(coreBundle_exports, {
  a: () => a_exports,
  b: () => b_exports,
  version: () => version
});
module.exports = coreBundle_exports;
var init_coreBundle = __esm({
  "packages/playwright-core/src/coreBundle.ts"() {
    init_b();
    init_plain();
    init_a();
  }
});
init_coreBundle();
`;

function load(code: string): { exports: Record<string, Record<string, string>>; log: string[] } {
  const log: string[] = [];
  (globalThis as { initLog?: string[] }).initLog = log;
  const module = { exports: {} as Record<string, Record<string, string>> };
  new Function('module', code)(module);
  return { exports: module.exports, log };
}

describe('coreBundle entry modules initialized on first use (scripts/lazy-entries.mjs)', () => {
  test('an entry module is initialized at the first read of its export, once, with its imports', () => {
    const eager = load(BUNDLE);
    assert.deepEqual(eager.log, ['a', 'b', 'plain'], 'the bundle as published: everything at load');
    const t = transform(BUNDLE);
    assert.ok(t, 'the shape is recognized');
    assert.deepEqual(t.lazy, ['init_a', 'init_b']);
    assert.deepEqual(t.eager, ['init_plain'], 'an init backing no getter stays at load');
    const lazy = load(t.code);
    assert.deepEqual(lazy.log, ['plain'], 'nothing but the init without a getter at load');
    assert.equal(lazy.exports.b!.other, 'AB');
    assert.deepEqual(lazy.log, ['plain', 'a', 'b'], 'b and what it imports, when b is read');
    assert.equal(lazy.exports.a!.value, 'A');
    assert.equal((lazy.exports.version as unknown as () => string)(), '1');
    assert.deepEqual(lazy.log, ['plain', 'a', 'b'], 'each once');
    assert.deepEqual(Object.keys(lazy.exports), Object.keys(eager.exports), 'the same exports');
  });

  test('a bundle of another shape is left to load eagerly', () => {
    assert.equal(transform(BUNDLE.replace('init_coreBundle();\n', '')), undefined, 'no load call');
    assert.equal(
      transform(BUNDLE.replace('a: () => a_exports', 'a: () => { return a_exports; }')),
      undefined,
    );
    assert.equal(transform(`${BUNDLE}${BUNDLE}`), undefined, 'two candidates');
    assert.equal(transform('module.exports = 1;'), undefined);
  });

  test('the installed playwright-core is of that shape: its MCP tools, CLI and dashboard wait', () => {
    const original = readFileSync(
      createRequire(import.meta.url).resolve('playwright-core/lib/coreBundle'),
      'utf8',
    );
    const t = transform(original);
    assert.ok(t, 'playwright-core changed its bundle: see scripts/lazy-entries.mjs');
    for (const init of ['init_inprocess', 'init_server', 'init_tools2', 'init_program3'])
      assert.ok(t.lazy.includes(init), `${init} is lazy (${t.lazy.join(', ')})`);
  });

  test('the built copy loads no entry module but what is read, and the others still work when read', async () => {
    const manifest = JSON.parse(
      readFileSync(join(ROOT, 'dist/vendor/playwright-core/manifest.json'), 'utf8'),
    ) as {
      bundles: { coreBundle: { lazy?: string[] } };
    };
    assert.ok(manifest.bundles.coreBundle.lazy?.includes('init_tools2'), 'run `npm run build`');
    const copy = readFileSync(join(ROOT, 'dist/vendor/playwright-core/coreBundle.js'), 'latin1');
    const load =
      /var init_coreBundle=__esm\(\{"packages\/playwright-core\/src\/coreBundle\.ts"\(\)\{([^}]*)\}/.exec(
        copy,
      );
    assert.ok(load, 'the copy ends with coreBundle.ts');
    assert.doesNotMatch(load[1]!, /init_tools2|init_program3|init_inprocess/);
    // Through the built loader (which compiles the copy): what our driver reads, then what it never does.
    const loader = join(ROOT, 'dist/backends/chromium/load-playwright.js');
    const code = `import { createRequire } from 'node:module';
const { playwrightCore } = await import(${JSON.stringify(loader)});
const launch = typeof playwrightCore().chromium.launch;
const core = createRequire(${JSON.stringify(loader)})('playwright-core/lib/coreBundle');
console.log(JSON.stringify({ launch, server: typeof core.server.Page, tools: typeof core.tools.filteredTools, keys: Object.keys(core).length }));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await once(child, 'exit');
    assert.deepEqual(JSON.parse(out), {
      launch: 'function',
      server: 'function',
      tools: 'function',
      keys: 13,
    });
  });
});
