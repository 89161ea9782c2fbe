/**
 * Provider protocol benchmark (not a timed test):
 *   1. 10,000 sequential provider.status round trips over stdio (p50, p99);
 *   2. the same 10,000 pipelined (all written at once; per-request latency and throughput);
 *   3. provider.status after 8 ms idle: the process hop's floor on this machine;
 *   4. page.snapshot through the door versus the in-process engine call on the
 *      same pages (two corpus pages and a small fixture), interleaved, median of N:
 *      the full default reply and a text-only one, each timed to the reply's arrival
 *      and after this Node client's JSON.parse of it.
 * Targets (issue 5): p50 ≤ 0.3 ms sequential; door overhead on page.snapshot ≤ 10%.
 *
 * Usage: npm run bench:protocol [-- --n 10000] [-- --snapshots 30] [-- --same-browser]
 * Needs the build (npm run -s build): it spawns bin/tabwright.js provider.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProviderClient } from '../src/conformance/client.js';
import { toPageSnapshotV1 } from '../src/doors/provider/page-snapshot.js';
import { createEngine, type Engine } from '../src/index.js';
import { type DebuggableChromium, startDebuggableChromium } from '../test/helpers/external-browser.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { median, percentile } from './lib/stats.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 10_000);
const SNAPSHOTS = arg('snapshots', 30);
const SAME_BROWSER = process.argv.includes('--same-browser');
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

const ms = (x: number) => `${x.toFixed(3)} ms`;

type EngineSession = Awaited<ReturnType<Engine['startSession']>>;
type EngineSnapshot = Awaited<ReturnType<ReturnType<EngineSession['page']>['snapshot']>>;

/**
 * One page.snapshot comparison: the door's round trip (to the reply's arrival, and
 * after this Node client's JSON.parse) against the in-process engine call that
 * reads the same fields.
 */
function sample() {
  const received: number[] = [];
  const decoded: number[] = [];
  const decode: number[] = [];
  const engine: number[] = [];
  let bytes = 0;
  return {
    async door(client: ProviderClient, params: Record<string, unknown>, warm: boolean) {
      const t = performance.now();
      const r = await client.request('page.snapshot', params);
      const done = performance.now();
      if (!r.ok) throw new Error(`page.snapshot failed: ${r.error.message}`);
      const a = client.arrival(r);
      if (warm || !a) return;
      received.push(a.arrivedAt - t);
      decoded.push(done - t);
      decode.push(a.decodeMs);
      bytes = a.bytes;
    },
    async engine(es: EngineSession, read: (r: EngineSnapshot) => void, warm: boolean) {
      const t = performance.now();
      read(await es.page().snapshot({}, { timeoutMs: 30_000 }));
      if (!warm) engine.push(performance.now() - t);
    },
    print(label: string) {
      // Each door call is paired with the engine call right after it; the median of the pairs'
      // ratios follows the machine's drift better than a ratio of two medians.
      const over = (xs: number[]) => {
        const ratios = xs.map((x, i) => (x - engine[i]!) / engine[i]!);
        return `${(median(ratios) * 100).toFixed(1)}%`;
      };
      console.log(
        `    ${label}, ${(bytes / 1024).toFixed(0)} KiB: engine ${ms(median(engine))} | door, reply received ${ms(median(received))} → overhead ${over(received)} | + client JSON.parse ${ms(median(decode))} → ${ms(median(decoded))}, ${over(decoded)}`,
      );
    },
  };
}

async function main() {
  const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-'));
  const server = await startFixtureServer();
  const client = ProviderClient.spawn([process.execPath, join(ROOT, 'bin/tabwright.js'), 'provider'], {
    env: { TABWRIGHT_HOME: home, TABWRIGHT_LOG: 'warn' },
  });
  const engine = createEngine({ home });
  let shared: DebuggableChromium | undefined;
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
      `sequential provider.status ×${N}: p50 ${ms(median(seq))}  p99 ${ms(percentile(seq, 99))}  mean ${ms(seq.reduce((a, b) => a + b, 0) / N)}`,
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
      `pipelined provider.status ×${N}: total ${total.toFixed(0)} ms (${Math.round((N / total) * 1000)} req/s)  latency p50 ${ms(median(lat))}  p99 ${ms(percentile(lat, 99))}`,
    );

    const policy = { allowed_origins: [server.url] };
    // --same-browser: both sides attach to one Chromium (each in its own tab), so the comparison is
    // not also a comparison of two browser instances (which differ by up to ±15% here on their own).
    shared = SAME_BROWSER ? await startDebuggableChromium() : undefined;
    const s = await client.call(
      'session.ensure',
      shared ? { ...policy, cdp_endpoint: shared.httpEndpoint, attach: 'require' } : policy,
    );
    const es = await engine.startSession(
      shared ? { kind: 'attach', endpoint: shared.httpEndpoint, policy } : { policy },
    );
    if (shared) {
      // Each side in a tab of its own.
      await client.call('page.open', { session_id: s.session_id, url: 'about:blank', new_page: true });
      await es.newPage();
    }
    const pages = [
      '/corpus/pages/wikipedia/index.html',
      '/corpus/pages/nytimes-1/index.html',
      '/fixtures/provider/index.html',
    ];
    // The fixed cost of crossing the process boundary when both processes have been idle for as
    // long as a small snapshot takes: the machine's wake-up latency, paid by any out-of-process door.
    const idle: number[] = [];
    for (let i = 0; i < 60; i++) {
      await new Promise((r) => setTimeout(r, 8));
      const t = performance.now();
      await client.request('provider.status');
      idle.push(performance.now() - t);
    }
    console.log(
      `provider.status after 8 ms idle ×60: p50 ${ms(median(idle))} (the process hop's floor here)`,
    );

    console.log(`page.snapshot, median of ${SNAPSHOTS} (door = round trip through the provider process):`);
    for (const path of pages) {
      const url = `${server.url}${path}`;
      await client.call('page.open', { session_id: s.session_id, url, timeout_ms: 30_000 });
      await es.page().open(url, 'load', { timeoutMs: 30_000 });
      const full = sample();
      const lean = sample();
      const leanParams = { include_nodes: false, include_elements: false };
      for (let i = 0; i < SNAPSHOTS + 3; i++) {
        // Interleaved, so both sides see the same machine load, and in alternating order, so
        // neither side always runs right after the other (a warm browser, a collected heap).
        const warm = i < 3;
        const steps = [
          () => full.door(client, { session_id: s.session_id, timeout_ms: 30_000 }, warm),
          () => full.engine(es, (er) => void [toPageSnapshotV1(er.model), er.elements, er.text], warm),
          () => lean.door(client, { session_id: s.session_id, timeout_ms: 30_000, ...leanParams }, warm),
          () => lean.engine(es, (er) => void er.text, warm),
        ];
        const order = i % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
        for (const k of order) await steps[k]!();
      }
      console.log(`  ${path}:`);
      full.print('full reply (jcode nodes + elements + text)');
      lean.print('text only (include_nodes/include_elements false)');
    }
    await client.call('session.close', { session_id: s.session_id });
  } finally {
    await client.close();
    await engine.close();
    await shared?.stop();
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
