/**
 * Provider protocol benchmark (not a timed test):
 *   1. 10,000 sequential provider.status round trips over stdio (p50, p99);
 *   2. the same 10,000 pipelined (all written at once; per-request latency and throughput);
 *   3. page.snapshot through the door versus the in-process engine call on the
 *      same pages (two corpus pages and a small fixture), median of N each, and the
 *      door's own share (round trip minus the engine's reported snapshot time).
 * Targets (issue 5): p50 ≤ 0.3 ms sequential; door overhead on page.snapshot ≤ 10%.
 *
 * Usage: npm run bench:protocol [-- --n 10000] [-- --snapshots 30]
 * Needs the build (npm run -s build): it spawns bin/tabwright.js provider.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProviderClient } from '../src/conformance/client.js';
import { Engine } from '../src/index.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 10_000);
const SNAPSHOTS = arg('snapshots', 30);
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const ms = (x: number) => `${x.toFixed(3)} ms`;

async function main() {
  const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-'));
  const server = await startFixtureServer();
  const client = ProviderClient.spawn([process.execPath, join(ROOT, 'bin/tabwright.js'), 'provider'], {
    env: { TABWRIGHT_HOME: home, TABWRIGHT_LOG: 'warn' },
  });
  const engine = new Engine({ home });
  try {
    // Warm up: diagnostics are computed on the first status, the JIT on the next few hundred.
    for (let i = 0; i < 500; i++) await client.call('provider.status');

    const seq: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      const r = await client.request('provider.status');
      seq.push(performance.now() - t);
      if (!r.ok) throw new Error(`status failed: ${r.error.message}`);
    }
    console.log(
      `sequential provider.status ×${N}: p50 ${ms(pct(seq, 50))}  p99 ${ms(pct(seq, 99))}  mean ${ms(seq.reduce((a, b) => a + b, 0) / N)}`,
    );

    const sent = new Array<number>(N);
    const lat = new Array<number>(N);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: N }, (_, i) => {
        sent[i] = performance.now();
        return client.request('provider.status').then(() => {
          lat[i] = performance.now() - sent[i]!;
        });
      }),
    );
    const total = performance.now() - t0;
    console.log(
      `pipelined provider.status ×${N}: total ${total.toFixed(0)} ms (${Math.round((N / total) * 1000)} req/s)  latency p50 ${ms(pct(lat, 50))}  p99 ${ms(pct(lat, 99))}`,
    );

    const policy = { allowed_origins: [server.url] };
    const s = await client.call('session.ensure', policy);
    const es = await engine.startSession({ policy });
    const pages = [
      '/corpus/pages/wikipedia/index.html',
      '/corpus/pages/nytimes-1/index.html',
      '/fixtures/provider/index.html',
    ];
    console.log(`page.snapshot, median of ${SNAPSHOTS} (door = round trip through the provider process):`);
    for (const path of pages) {
      const url = `${server.url}${path}`;
      await client.call('page.open', { session_id: s.session_id, url, timeout_ms: 30_000 });
      await es.page().open(url, 'load', { timeoutMs: 30_000 });
      const door: number[] = [];
      const inner: number[] = [];
      const local: number[] = [];
      const localFull: number[] = [];
      let bytes = 0;
      // The same for a caller that reads only the text (include_nodes / include_elements false).
      const doorLean: number[] = [];
      const localLean: number[] = [];
      let bytesLean = 0;
      const lean = {
        session_id: s.session_id,
        timeout_ms: 30_000,
        include_nodes: false,
        include_elements: false,
      };
      for (let i = 0; i < SNAPSHOTS + 3; i++) {
        // Interleaved, so both sides see the same machine load.
        const t = performance.now();
        const r = await client.call('page.snapshot', { session_id: s.session_id, timeout_ms: 30_000 });
        const rtt = performance.now() - t;
        const t2 = performance.now();
        const er = await es.page().snapshot({}, { timeoutMs: 30_000 });
        const eng = performance.now() - t2;
        // The same fields the door returns (the jcode form is built lazily, on first read).
        void [er.snapshot, er.elements, er.text];
        const full = performance.now() - t2;
        const t3 = performance.now();
        const rl = await client.call('page.snapshot', lean);
        const rttLean = performance.now() - t3;
        const t4 = performance.now();
        void (await es.page().snapshot({}, { timeoutMs: 30_000 })).text;
        const engLean = performance.now() - t4;
        if (i < 3) continue;
        doorLean.push(rttLean);
        localLean.push(engLean);
        bytesLean = JSON.stringify(rl).length;
        door.push(rtt);
        local.push(eng);
        localFull.push(full);
        if (r.timing?.total_ms !== undefined) inner.push(rtt - r.timing.total_ms);
        bytes = JSON.stringify(r).length;
      }
      const d = pct(door, 50);
      const e = pct(localFull, 50);
      const own = inner.length ? ` door's own share p50 ${ms(pct(inner, 50))}` : '';
      console.log(
        `  ${path}: door ${ms(d)}  engine ${ms(e)} (${ms(pct(local, 50))} before reading the jcode form)  overhead ${(((d - e) / e) * 100).toFixed(1)}%${own}  (${(bytes / 1024).toFixed(0)} KiB reply)`,
      );
      const dl = pct(doorLean, 50);
      const el = pct(localLean, 50);
      console.log(
        `    text only: door ${ms(dl)}  engine ${ms(el)}  overhead ${(((dl - el) / el) * 100).toFixed(1)}%  (${(bytesLean / 1024).toFixed(0)} KiB reply)`,
      );
    }
    await client.call('session.close', { session_id: s.session_id });
  } finally {
    await client.close();
    await engine.close();
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
