/**
 * node --import tsx bench/soak-idle-cpu.ts [--sessions N] [--seconds S]
 *
 * What the soak's pages cost when nobody drives them: N provider sessions (built CLI) each open
 * one page of the soak's mix (the TodoMVC apps and ../shared/corpus/pages, as the soak deals them),
 * then nothing is sent for S seconds while CPU seconds per process kind are counted (the soak's
 * CpuMeter). What is left is the pages' own work (timers, animations, their compositor frames) and
 * ours that runs without a call (observers injected in pages, polling).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { spawnProvider } from '../test/helpers/provider.js';
import { providerSession, type SoakSession } from './lib/soak/doors.js';
import { APPS, corpusPages } from './lib/soak/run.js';
import { CpuMeter, pssByKind } from './lib/soak/tree.js';
import { cliArg } from './lib/stats.js';

const sessions = Number(cliArg('--sessions', '16'));
const seconds = Number(cliArg('--seconds', '30'));
const home = mkdtempSync(join(tmpdir(), 'tabwright-idle-cpu-'));
const fx = await startFixtureServer();
const provider = spawnProvider(home, [], { TABWRIGHT_LOG: 'error', TABWRIGHT_MIN_FREE_MB: '0' });
const roots = () => (provider.pid ? [{ pid: provider.pid, name: 'provider' }] : []);
const pages = corpusPages();
const opened: SoakSession[] = [];
try {
  const meter = new CpuMeter();
  for (let i = 0; i < sessions; i++) {
    const s = await providerSession(provider, fx.url, `idle-${i}`, !process.argv.includes('--unrestricted'));
    opened.push(s);
    // Half on an app, half on a corpus page, as the soak's sessions are at any moment.
    const url =
      i % 2 === 0
        ? `${fx.url}/corpus/apps/todomvc-${APPS[(i / 2) % APPS.length]}/index.html`
        : `${fx.url}/corpus/pages/${pages[(i * 7) % pages.length]}/index.html`;
    await s.open(url);
  }
  await new Promise((r) => setTimeout(r, 5000));
  // Each step of the mix alone, on session 0 (the others idle): CPU per call by process kind.
  const s0 = opened[0]!;
  const app = `${fx.url}/corpus/apps/todomvc-react/index.html`;
  const corpus = `${fx.url}/corpus/pages/${pages[0]}/index.html`;
  const steps: [string, () => Promise<unknown>][] = [
    ['open (TodoMVC)', () => s0.open(app)],
    ['open (corpus page)', () => s0.open(corpus)],
    ['snapshot (corpus page)', () => s0.snapshot()],
    ['screenshot (corpus page)', () => s0.screenshot()],
    ['network read', () => s0.network()],
  ];
  const per = Number(cliArg('--calls', '8'));
  for (const [name, fn] of steps) {
    if (name.startsWith('snapshot')) await s0.open(corpus);
    meter.window(roots());
    for (let k = 0; k < per; k++) await fn();
    const w = meter.window(roots());
    const parts = Object.entries(w.seconds)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${((1000 * v) / per).toFixed(0)}`);
    console.log(`  ${name}: CPU ms per call ${parts.join(', ')}`);
  }
  meter.window(roots());
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const w = meter.window(roots());
  const parts = Object.entries(w.seconds)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${((100 * v) / seconds).toFixed(1)} %`);
  console.log(
    `${sessions} pages open, nothing sent for ${seconds} s: CPU (of one core) ${parts.join(', ')}; machine busy ${((100 * w.machineBusy) / w.machineCapacity).toFixed(0)} % of ${(w.machineCapacity / seconds).toFixed(0)} cores`,
  );
  const pss = Object.entries(pssByKind(roots()))
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(0)}`);
  console.log(`PSS MB: ${pss.join(', ')}`);
} finally {
  for (const s of opened) await s.close().catch(() => {});
  await provider.close();
  await fx.close();
  rmSync(home, { recursive: true, force: true });
}
