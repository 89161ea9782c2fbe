/**
 * The engine's snapshot of a base commit against the working tree's, on every corpus page
 * (../shared/corpus/pages, served from 127.0.0.1, nothing else reachable): is what the doors get
 * the same (text, elements, the model with its node ids and refs, frames, omitted, url, title,
 * viewport), and how long does each engine call take? The proof an engine-side speed-up (frames,
 * transfer, model building) changes nothing; `bench:walker-compare` checks the walker alone.
 *
 * The base's src/ comes from `git archive` into a temporary directory (node_modules linked), so
 * both engines run side by side in this process, each with its own Chromium and session. Per page
 * both open it, then `--rounds` snapshots each, alternating: every pair must be equal (refs
 * included: both sessions hand them out in the same order). Later snapshots matter as much as the
 * first (frames are placed and walked from what the first one found). A pair that differs is taken
 * once more (a page still laying out, a timer); a difference that stays is printed and the exit
 * status is 1. Prints the best time of each side per page and the sums.
 *
 * Usage: npm run bench:engine-compare [-- --base 7b70941] [-- --filter wiki,yahoo] [-- --rounds 4]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS_ROOT, startFixtureServer } from '../test/helpers/fixture-server.js';
import { cliArg, loadText, machine } from './lib/stats.js';

const arg = cliArg;
const base = arg('--base', 'HEAD')!;
const filter = arg('--filter');
const rounds = Number(arg('--rounds', '4'));
const ROOT = join(import.meta.dirname, '..');
const T = 60_000;

const load = loadText;

interface Snap {
  text: string;
  elements: unknown;
  model: unknown;
  frames: number;
  truncated: boolean;
  omitted?: unknown;
  url: string;
  title: string;
  viewport: unknown;
}
interface EngineLike {
  startSession(o: unknown): Promise<{
    page(): {
      open(url: string, w: string, o: unknown): Promise<unknown>;
      snapshot(o: unknown, opts: unknown): Promise<Snap>;
    };
  }>;
  close(): Promise<void>;
}

/** What a door can read of a snapshot: everything but the timing. */
function comparable(s: Snap): string {
  const { text, elements, model, frames, truncated, omitted, url, title, viewport } = s;
  return JSON.stringify({ text, elements, model, frames, truncated, omitted, url, title, viewport });
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at char ${i}: base …${a.slice(Math.max(0, i - 80), i + 80)}… new …${b.slice(Math.max(0, i - 80), i + 80)}…`;
}

async function main() {
  process.env.TABWRIGHT_LOG ??= 'warn';
  // Short paths: Chromium's singleton socket lives under the engine home and must fit 108 bytes.
  const tmp = mkdtempSync(join(tmpdir(), 'twec-'));
  const baseDir = join(tmp, 'base');
  mkdirSync(baseDir);
  execFileSync('sh', ['-c', `git archive ${base} src | tar -x -C ${baseDir}`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(baseDir, 'node_modules'));
  const server = await startFixtureServer();
  const engines: EngineLike[] = [];
  try {
    const make = async (src: string, home: string) => {
      const { createEngine } = (await import(join(src, 'src/index.ts'))) as {
        createEngine(o: { home: string }): EngineLike;
      };
      const engine = createEngine({ home });
      engines.push(engine);
      const session = await engine.startSession({ policy: { allowed_origins: [server.url] } });
      return session.page();
    };
    const sides = [
      { name: 'base', page: await make(baseDir, join(tmp, 'hb')), ms: [] as number[] },
      { name: 'new', page: await make(ROOT, join(tmp, 'hn')), ms: [] as number[] },
    ];
    const dir = join(CORPUS_ROOT, 'pages');
    const names = readdirSync(dir)
      .filter((n) => existsSync(join(dir, n, 'index.html')))
      .filter((n) => !filter || filter.split(',').some((f) => n.includes(f)))
      .sort();
    console.log(`${machine()}; load ${load()}; base ${base}; ${names.length} pages × ${rounds} snapshots`);
    let differ = 0;
    const sums = [0, 0];
    for (const name of names) {
      const url = `${server.url}/corpus/pages/${name}/index.html`;
      await Promise.all(sides.map((s) => s.page.open(url, 'load', { timeoutMs: T })));
      const best = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
      let note = '';
      for (let r = 0; r < rounds; r++) {
        const out: string[] = [];
        for (let k = 0; k < 2; k++) {
          const i = (k + r) % 2;
          const t = performance.now();
          const snap = await sides[i]!.page.snapshot({ max_chars: 10_000_000 }, { timeoutMs: T });
          best[i] = Math.min(best[i]!, performance.now() - t);
          out[i] = comparable(snap);
        }
        if (out[0] !== out[1]) {
          // Once more, both: a page that changed between the two calls is not a difference of the code.
          const again = await Promise.all(
            sides.map(async (s) =>
              comparable(await s.page.snapshot({ max_chars: 10_000_000 }, { timeoutMs: T })),
            ),
          );
          if (again[0] !== again[1]) {
            note = `DIFFERS (round ${r + 1}) ${firstDifference(again[0]!, again[1]!)}`;
            differ++;
            break;
          }
        }
      }
      sums[0]! += best[0]!;
      sums[1]! += best[1]!;
      console.log(
        `${name.padEnd(32)} base ${best[0]!.toFixed(1).padStart(7)} ms  new ${best[1]!.toFixed(1).padStart(7)} ms  ${(best[1]! / best[0]!).toFixed(2)}×  ${note || 'same'}`,
      );
    }
    console.log(
      `\nsum of the best: base ${sums[0]!.toFixed(0)} ms, new ${sums[1]!.toFixed(0)} ms (${(sums[1]! / sums[0]!).toFixed(2)}×); ${differ} page(s) differ; load ${load()}`,
    );
    if (differ) process.exitCode = 1;
  } finally {
    for (const e of engines) await e.close().catch(() => {});
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
