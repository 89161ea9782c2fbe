/**
 * The snapshot walker of a base commit against the working tree's, alternating in one document per
 * corpus page (../shared/corpus/pages, served from 127.0.0.1, nothing else reachable): is the output
 * the same, and how long does each take in the page? The proof a walker speed-up changes nothing.
 *
 * Both walkers are bundled from source (the base's with `git archive`), each installed under its own
 * key; the page gets the working tree's init script (closed shadow roots, failed stylesheets). Per
 * page and option set (default; boxes and URLs) the base walks, then the new one: the JSON must be
 * equal but for the timing and document id (and fields listed in --ignore). A difference is checked
 * once more with the base against itself, to tell the page's own changes (timers, layout) apart.
 * Then `--rounds` alternating walks each: the best in-page time of each side, and their sums.
 *
 * Usage: npm run bench:walker-compare [-- --base 6073f0d] [-- --filter wiki] [-- --rounds 7]
 *        [-- --ignore blankFrames]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { INJECTED_BUILD_OPTIONS } from '../scripts/injected-build-options.mjs';
import { requireChromium } from '../src/backends/chromium/discovery.js';
import { chromiumFlags } from '../src/backends/chromium/flags.js';
import { CORPUS_ROOT, startFixtureServer } from '../test/helpers/fixture-server.js';
import { cliArg, loadText, machine } from './lib/stats.js';

const arg = cliArg;
const base = arg('--base', 'HEAD')!;
const filter = arg('--filter');
const rounds = Number(arg('--rounds', '5'));
const ignored = (arg('--ignore') ?? '').split(',').filter(Boolean);
const ROOT = join(import.meta.dirname, '..');
const ENTRY = 'src/snapshot/injected/entry.ts';

const load = loadText;

async function bundle(entry: string, globalName?: string): Promise<string> {
  const res = await build({ ...INJECTED_BUILD_OPTIONS, entryPoints: [entry], globalName });
  return res.outputFiles[0]!.text;
}

/** A page function that installs `source` under `key` once, then walks and times the walk with its JSON. */
function walker(key: string, source: string): (arg: unknown) => [number, string] {
  return new Function(
    'arg',
    `const K = Symbol.for(${JSON.stringify(key)}); let tw = globalThis[K];
     if (!tw) { ${source}
       tw = __tabwrightSnapshot.create();
       Object.defineProperty(globalThis, K, { value: tw, configurable: true }); }
     const t0 = performance.now(); const s = JSON.stringify(tw.call(arg)); return [performance.now() - t0, s];`,
  ) as (arg: unknown) => [number, string];
}

/** The walk's JSON without what differs between two walkers by design: timing, document id, --ignore. */
function comparable(json: string): string {
  const r = JSON.parse(json) as Record<string, unknown>;
  delete r.ms;
  delete r.doc;
  for (const k of ignored) delete r[k];
  return JSON.stringify(r);
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `base …${a.slice(Math.max(0, i - 80), i + 80)}\n    new  …${b.slice(Math.max(0, i - 80), i + 80)}`;
}

async function main() {
  const old = mkdtempSync(join(tmpdir(), 'tw-walker-base-'));
  const server = await startFixtureServer();
  const browser = await chromium.launch({ executablePath: requireChromium().path, args: chromiumFlags() });
  try {
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${base}" src | tar -x -C "${old}"`]);
    const baseWalk = walker('tabwright.compare.base', await bundle(join(old, ENTRY), '__tabwrightSnapshot'));
    const newWalk = walker('tabwright.compare.new', await bundle(join(ROOT, ENTRY), '__tabwrightSnapshot'));
    const init = await bundle(join(ROOT, 'src/snapshot/injected/entry-closed-shadow.ts'));
    const context = await browser.newContext();
    await context.addInitScript({ content: init });
    await context.route('**', (r) => (r.request().url().startsWith(server.url) ? r.continue() : r.abort()));
    const page = await context.newPage();
    const dir = join(CORPUS_ROOT, 'pages');
    const names = readdirSync(dir)
      .filter((n) => existsSync(join(dir, n, 'index.html')))
      .filter((n) => !filter || n.includes(filter))
      .sort();
    // No page compared proves nothing: fail rather than report "0 of 0 different".
    if (names.length === 0)
      throw new Error(
        `no corpus page in ${dir}${filter ? ` matches --filter ${filter}` : ''}: check the corpus and the filter`,
      );
    console.log(
      `${machine()}; base ${base}; load average ${load()}; ${names.length} pages × ${rounds} rounds`,
    );
    const run = async (fn: (arg: unknown) => [number, string], opts: object) =>
      (await page.evaluate(fn, { op: 'walk', opts })) as [number, string];
    let sumBase = 0;
    let sumNew = 0;
    let differing = 0;
    let unstable = 0;
    for (const name of names) {
      await page.goto(`${server.url}/corpus/pages/${name}/index.html`, { waitUntil: 'load' });
      let same = true;
      for (const opts of [{}, { boxes: true, urls: true }]) {
        const a = comparable((await run(baseWalk, opts))[1]);
        const b = comparable((await run(newWalk, opts))[1]);
        if (a === b) continue;
        const again = comparable((await run(baseWalk, opts))[1]);
        if (again !== a) {
          unstable++;
          console.log(
            `  ${name} ${JSON.stringify(opts)}: the page changed between walks (base against itself)`,
          );
          continue;
        }
        same = false;
        console.log(`  DIFFERENT ${name} ${JSON.stringify(opts)}:\n    ${firstDifference(a, b)}`);
      }
      if (!same) differing++;
      let bestBase = Number.POSITIVE_INFINITY;
      let bestNew = Number.POSITIVE_INFINITY;
      for (let i = 0; i < rounds; i++) {
        bestBase = Math.min(bestBase, (await run(baseWalk, {}))[0]);
        bestNew = Math.min(bestNew, (await run(newWalk, {}))[0]);
      }
      sumBase += bestBase;
      sumNew += bestNew;
      console.log(
        `${name.padEnd(32)} base ${bestBase.toFixed(1).padStart(6)} ms  new ${bestNew.toFixed(1).padStart(6)} ms  ${(bestNew / bestBase).toFixed(2)}×${same ? '' : '  DIFFERENT'}`,
      );
    }
    console.log(
      `\nsum of the best of ${rounds}: base ${sumBase.toFixed(0)} ms, new ${sumNew.toFixed(0)} ms (${(sumNew / sumBase).toFixed(2)}×); ` +
        `pages with a different output: ${differing} of ${names.length} (${unstable} walks skipped: the page changed); load average ${load()}`,
    );
    if (differing) process.exitCode = 1;
  } finally {
    await browser.close();
    await server.close();
    rmSync(old, { recursive: true, force: true });
  }
}

await main();
