/**
 * Accessible names and roles on the web-platform-tests cases stored in
 * ../shared/corpus/wpt-accname/ (accname/, html-aam/, wai-aria/role/): our
 * snapshot model's pass rates next to Chromium's own computation (CDP
 * Accessibility.getPartialAXTree) and Playwright's (locator.ariaSnapshot()).
 *
 * Usage: npm run bench:accname [-- --verbose] [-- --filter accname/name] [-- --json out.json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/index.js';
import {
  behindChromium,
  passes,
  scorePage,
  startWptServer,
  type Tally,
  tally,
  type WptCase,
  wptNorm,
  wptPages,
} from '../test/helpers/wpt-accname.js';

const args = process.argv.slice(2);
const arg = (k: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};
const filter = arg('--filter');
const jsonOut = arg('--json');
const verbose = args.includes('--verbose');

const server = await startWptServer();
const home = mkdtempSync(join(tmpdir(), 'tabwright-bench-'));
const engine = createEngine({ home });
const session = await engine.startSession();
const page = session.page();
const all: WptCase[] = [];
const pct = (t: Tally, k: 'ours' | 'chromium' | 'playwright') =>
  `${t[k]}/${t.total} (${t.total ? ((100 * t[k]) / t.total).toFixed(1) : '100.0'}%)`;
try {
  for (const file of wptPages().filter((f) => !filter || f.includes(filter))) {
    const cases = await scorePage(session, page, server.url, file, { playwright: true });
    all.push(...cases);
    const n = tally(cases, 'name');
    const r = tally(cases, 'role');
    console.log(
      `${file.padEnd(72)} names ours ${n.ours}/${n.total} chromium ${n.chromium} playwright ${n.playwright}` +
        `  roles ours ${r.ours}/${r.total} chromium ${r.chromium} playwright ${r.playwright}`,
    );
    if (verbose) {
      for (const c of cases) {
        if (passes(c, c.ours)) continue;
        const show = (v: { role: string; name: string } | null | undefined) =>
          v ? `${v.role} ${JSON.stringify(wptNorm(v.name))}` : '(none)';
        console.log(
          `   FAIL [${c.kind}] ${c.test}: expected ${JSON.stringify(c.expected)} ours ${show(c.ours)} chromium ${show(c.chromium)} :: ${c.html.slice(0, 140)}`,
        );
      }
    }
  }
} finally {
  await engine.close();
  await server.close();
  rmSync(home, { recursive: true, force: true });
}
const names = tally(all, 'name');
const roles = tally(all, 'role');
console.log('');
console.log(
  `names (${names.total} cases): tabwright ${pct(names, 'ours')}  chromium ${pct(names, 'chromium')}  playwright ${pct(names, 'playwright')}`,
);
console.log(
  `roles (${roles.total} cases): tabwright ${pct(roles, 'ours')}  chromium ${pct(roles, 'chromium')}  playwright ${pct(roles, 'playwright')}`,
);
const behind = behindChromium(all);
console.log(`\nwhere Chromium passes and we differ (${behind.length}):`);
for (const b of behind) console.log(`  ${b}`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ names, roles, cases: all }, null, 2));
