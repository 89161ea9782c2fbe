/**
 * node --import tsx bench/soak-refs-per-page.ts
 *
 * How many refs one snapshot of each page of the soak's mix hands out (the TodoMVC apps and every
 * ../shared/corpus/pages page, one provider session): what an agent acting on its latest snapshot
 * needs a session to remember, against the bound on refs (src/snapshot/refs.ts, MAX_REFS).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import { spawnProvider } from '../test/helpers/provider.js';
import { providerSession } from './lib/soak/doors.js';
import { APPS, corpusPages } from './lib/soak/run.js';
import { median, percentile } from './lib/stats.js';

const home = mkdtempSync(join(tmpdir(), 'tabwright-refs-'));
const fx = await startFixtureServer();
const provider = spawnProvider(home, [], { TABWRIGHT_LOG: 'error', TABWRIGHT_MIN_FREE_MB: '0' });
try {
  const s = await providerSession(provider, fx.url, 'refs');
  const counts: [string, number][] = [];
  const urls = [
    ...APPS.map((a) => `/corpus/apps/todomvc-${a}/index.html`),
    ...corpusPages().map((p) => `/corpus/pages/${p}/index.html`),
  ];
  for (const u of urls) {
    try {
      await s.open(`${fx.url}${u}`);
      const text = await s.snapshot();
      counts.push([u, new Set(text.match(/\[ref=[^\]]+\]/g) ?? []).size]);
    } catch (err) {
      console.error(`${u}: ${String(err).slice(0, 120)}`);
    }
  }
  const n = counts.map(([, c]) => c);
  console.log(
    `${n.length} pages: refs per snapshot median ${median(n)}, p90 ${percentile(n, 90)}, max ${percentile(n, 100)}, sum ${n.reduce((a, b) => a + b, 0)}`,
  );
  for (const [u, c] of counts.sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  ${c} ${u}`);
  await s.close();
} finally {
  await provider.close();
  await fx.close();
  rmSync(home, { recursive: true, force: true });
}
