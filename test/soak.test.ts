import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSoak } from '../bench/lib/soak/run.js';

// The short soak (issue 23): four agent sessions for half a minute through three doors' real
// transports at once (two on the HTTP command API and one on /mcp of one built `tabwright serve`,
// one on `tabwright provider` over stdio), each looping the benchmark's step mix on the TodoMVC
// apps and corpus pages. It fails on any error, on process-tree memory growing past its bound after
// warm-up, or on anything left after close (sessions, pages, contexts, queued or guarded calls in
// the engine's counts, browser processes, temporary profiles, memory above idle). The long run and
// its figures: `npm run bench:soak`, docs/benchmarks.md. Run `npm run -s build` first.

/** The short run is noisy (few samples, renderers come and go): a bound well above the long run's 10 %. */
const GROWTH_BOUND = 0.3;

test('4 sessions soak through http, mcp and provider: no error, bounded growth, nothing left after close', async () => {
  const lines: string[] = [];
  const [r] = await runSoak({
    doors: ['http', 'mcp', 'provider'],
    sessions: 4,
    durationMs: 36_000,
    sampleMs: 4_000,
    warmupMs: 12_000,
    log: (l) => lines.push(l),
  });
  const report = lines.join('\n');
  assert.ok(r, 'no result');
  assert.ok(r.calls > 40, `too few calls to judge (${r.calls}):\n${report}`);
  assert.equal(r.errors, 0, `errors:\n${r.errorExamples.join('\n')}\n${report}`);
  assert.ok(r.growth < GROWTH_BOUND, `PSS grew ${(r.growth * 100).toFixed(1)} % after warm-up:\n${report}`);
  assert.deepEqual(r.leftovers, [], report);
  for (const door of ['http', 'mcp', 'provider'])
    assert.ok(
      r.samples.some((s) => s.ops[door]),
      `no calls through ${door}:\n${report}`,
    );
});
