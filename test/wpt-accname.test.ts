import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { engineTestEnv } from './helpers/engine.js';
import {
  behindChromium,
  scorePage,
  startWptServer,
  tally,
  type WptCase,
  wptPages,
} from './helpers/wpt-accname.js';

/**
 * The web-platform-tests accessible-name and role cases (../shared/corpus/wpt-accname: accname/,
 * html-aam/, wai-aria/role/), read in place with our own harness stubs: our snapshot model against
 * each case's expectation and against Chromium's own computation (CDP) in the same browser.
 * npm run bench:accname prints the same scores next to Playwright's.
 */
const { engine } = await engineTestEnv();
const wpt = await startWptServer();
after(() => wpt.close());
// Restricted to the WPT server: some cases load outside resources (an <img> on www.w3.org in
// comp_host_language_label.tentative.html, `content: url('http://example.com')` in
// name_pseudo-content-url.html), which an unrestricted session fetched, resolving both hosts. The
// names do not depend on them (the image's is its alt; an unloadable url() contributes nothing).
const session = await engine.startSession(
  { policy: { allowed_origins: [wpt.url], subresources: 'block' } },
  { timeoutMs: 30_000 },
);

test('WPT accname and role cases: at least Chromium pass rates, and Chromium answers wherever Chromium passes', async () => {
  const page = session.page();
  const cases: WptCase[] = [];
  for (const file of wptPages()) cases.push(...(await scorePage(session, page, wpt.url, file)));
  const names = tally(cases, 'name');
  const roles = tally(cases, 'role');
  // The corpus holds 860 name and 268 role expectations our stubs can read (pages that throw in
  // WPT itself, such as tr-td-th.html, record none).
  assert.ok(
    names.total >= 850 && roles.total >= 260,
    `cases read: ${names.total} names, ${roles.total} roles`,
  );
  const summary = `names ${names.ours}/${names.total} (chromium ${names.chromium}), roles ${roles.ours}/${roles.total} (chromium ${roles.chromium})`;
  assert.ok(names.ours >= names.chromium, summary);
  assert.ok(roles.ours >= roles.chromium, summary);
  const behind = behindChromium(cases);
  assert.deepEqual(behind, [], `${summary}\n${behind.join('\n')}`);
});
