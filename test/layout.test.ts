import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layering rules of docs/ARCHITECTURE.md as a test (like Playwright's DEPS.list check):
 *   1. a door (src/doors/*) imports values from the engine only through src/engine/api.ts, plus the
 *      door kit and its own folder; types may come from src/engine, src/snapshot and the backend
 *      interface with `import type`; doors never import each other;
 *   2. only src/backends/<browser>/ imports a browser driver;
 *   3. engine and snapshot code never imports a door, the CLI, the conformance suite or a concrete
 *      backend (only the backend interface);
 *   4. backends never import doors or the CLI;
 *   5. the conformance suite is a client of the provider protocol: it imports no engine code.
 * Only src/cli (the composition root) and src/index.ts put the pieces together.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const DRIVERS =
  /^(playwright-core|playwright|@playwright\/|puppeteer|puppeteer-core|webdriver-bidi-protocol|ws|selenium-webdriver|webdriver|webdriverio)(\/|$)/;

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return files(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.generated.ts') ? [p] : [];
  });
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of files(SRC)) {
    const from = relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    const statement = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm;
    for (const m of text.matchAll(statement)) {
      // `import { type A, type B } from` is type-only too.
      const braces = /\{([^}]*)\}/.exec(m[0])?.[1];
      const allTypes =
        braces !== undefined &&
        braces
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .every((s) => s.startsWith('type '));
      out.push({ from, to: m[3]!, typeOnly: !!m[2] || allTypes });
    }
    for (const m of text.matchAll(/import\('([^']+)'\)(\.)?/g))
      out.push({ from, to: m[1]!, typeOnly: !!m[2] });
  }
  return out;
}

/** The repository path an import points at ("src/engine/api.ts"), or the package name. */
function target(e: Edge): string {
  if (!e.to.startsWith('.')) return e.to;
  return relative(ROOT, resolve(ROOT, dirname(e.from), e.to)).replace(/\.js$/, '.ts');
}

const area = (path: string) => path.split('/').slice(0, 3).join('/');

function violations(): string[] {
  const bad: string[] = [];
  for (const e of edges()) {
    const to = target(e);
    const local = e.to.startsWith('.');
    const why = (rule: string) => bad.push(`${e.from} -> ${to}${e.typeOnly ? ' (type)' : ''}: ${rule}`);
    if (!local) {
      if (DRIVERS.test(to) && !/^src\/backends\/[a-z]+\//.test(e.from) && !e.typeOnly)
        why('only src/backends/<browser>/ imports a browser driver');
      continue;
    }
    if (e.from.startsWith('src/doors/')) {
      const door = area(e.from);
      if (to.startsWith(door) || to.startsWith('src/doors/kit/')) continue;
      if (to.startsWith('src/doors/')) why('doors never import each other (compose them in src/cli)');
      else if (to === 'src/engine/api.ts' || to === 'src/version.ts' || to === 'src/package-root.ts')
        continue;
      else if (e.typeOnly && /^src\/(engine|snapshot)\//.test(to)) continue;
      else if (e.typeOnly && /^src\/backends\/(backend|raw)\.ts$/.test(to)) continue;
      else why('a door reaches the engine only through src/engine/api.ts (types: import type)');
    } else if (/^src\/(engine|snapshot)\//.test(e.from)) {
      if (/^src\/(doors|cli|conformance)\//.test(to))
        why('engine code never imports a door, the CLI or the conformance suite');
      else if (/^src\/backends\/[a-z]+\//.test(to)) why('the engine knows backends only by their interface');
    } else if (e.from.startsWith('src/backends/')) {
      if (/^src\/(doors|cli|conformance)\//.test(to)) why('backends never import doors or the CLI');
    } else if (e.from.startsWith('src/conformance/')) {
      if (/^src\/(engine|snapshot|backends|doors)\//.test(to) && !e.typeOnly)
        why('the conformance suite trusts nothing of the provider it certifies: no engine code');
    }
  }
  return bad;
}

describe('layout', () => {
  test('the layering rules hold (docs/ARCHITECTURE.md)', () => {
    const found = violations();
    assert.deepEqual(found, [], `layering violations:\n${found.join('\n')}`);
  });

  test("the typecheck's mapping of the package's own subpaths matches package.json exports", () => {
    // tsconfig.check.json lets a fresh checkout typecheck examples/ against src; the published types
    // are the build of that same file, so the mapping may name no other one.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const check = JSON.parse(readFileSync(join(ROOT, 'tsconfig.check.json'), 'utf8'));
    const paths = check.compilerOptions.paths as Record<string, string[]>;
    assert.ok(Object.keys(paths).length > 0);
    for (const [name, [target]] of Object.entries(paths)) {
      const sub = `.${name.slice(pkg.name.length)}`;
      const published = pkg.exports[sub]?.types as string | undefined;
      assert.equal(
        published,
        `./${target!.replace(/^\.\/src\//, 'dist/').replace(/\.ts$/, '.d.ts')}`,
        `${name} maps to the source of what package.json publishes`,
      );
    }
  });

  test('the checker sees imports of every form', () => {
    const all = edges();
    assert.ok(all.length > 500, `only ${all.length} imports found`);
    assert.ok(all.some((e) => e.typeOnly && e.from.startsWith('src/doors/')));
    assert.ok(all.some((e) => !e.typeOnly && e.to === 'playwright-core'));
  });
});
