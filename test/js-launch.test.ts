import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type JsCli, jsCli } from './helpers/js-cli.js';

// browser.launch(): a Chromium started through the engine; each open() is its own isolated context.
describe('tabwright js: a launched browser', () => {
  let js: JsCli;
  let fx: FixtureServer;
  before(async () => {
    fx = await startFixtureServer();
    js = jsCli(`launch-${process.pid}`);
  });
  after(async () => {
    await js?.stop();
    await fx?.close();
  });

  test('launch, open, tabs, attach with a narrower allowlist, dispose keeps the tab, close removes it', async () => {
    const r = await js.json<Record<string, unknown>>(`
await browser.launch();
const again = await browser.connect({ port: 9 }).then(() => 'connected', e => e.code);
globalThis.page = await browser.open('${fx.url}/fixtures/js/form.html', { allowedOrigins: ['${fx.url}'] });
const tabs = await browser.tabs();
const mine = tabs.find(t => t.targetId === page.targetId);
const wider = await browser.attach(page.targetId, { allowedOrigins: ['${fx.url}', '${fx.altUrl}'] }).then(() => 'attached', e => e.code);
const second = await browser.attach(page.targetId, { allowedOrigins: ['${fx.url}'] });
const fill = await second.getByRole('searchbox', { name: 'Search' }).fill('from the second wrapper');
await second.dispose();
const stillThere = (await browser.tabs()).some(t => t.targetId === page.targetId);
const value = (await page.snapshot()).tree.includes('from the second wrapper');
await page.close();
const gone = !(await browser.tabs()).some(t => t.targetId === mine.targetId);
return { again, title: mine.title, wider, fill: fill.verified, stillThere, value, gone };
`);
    assert.deepEqual(r, {
      again: 'invalid_request',
      title: 'JS harness form',
      wider: 'permission_denied',
      fill: true,
      stillThere: true,
      value: true,
      gone: true,
    });
  });
});
