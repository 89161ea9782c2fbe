import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type JsCli, jsCli } from './helpers/js-cli.js';

// Signals (file choosers, crashes) and deadlines through the real CLI and daemon, on a
// browser launched by the engine (headless: file choosers are intercepted and reported).
describe('tabwright js: file choosers, crashes and deadlines', () => {
  let js: JsCli;
  let fx: FixtureServer;
  let page: string;

  before(async () => {
    fx = await startFixtureServer();
    js = jsCli(`signals-${process.pid}`);
    page = `${fx.url}/fixtures/js/signals.html`;
    const r = await js.run(`
await browser.launch();
globalThis.page = await browser.open('${page}', { allowedOrigins: ['${fx.url}'] });
return 'ok';
`);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await js?.stop();
    await fx?.close();
  });

  test('a file chooser: the signal says which input opened it; nothing is chosen', async () => {
    const r = await js.json<{ chooser: Record<string, unknown>; second: number; tree: string }>(`
await page.signals();
await page.locator('#choose').click();
// The chooser is reported a moment after the click returns: read the digest until it shows.
let chooser;
for (let i = 0; i < 50 && !chooser; i++) {
  chooser = (await page.signals()).events.find(e => e.kind === 'file_chooser');
  if (!chooser) await sleep(100);
}
// Intercepted choosers do not stick: the next one is reported too.
await page.getByRole('button', { name: 'Choose files' }).click();
let second = 0;
for (let i = 0; i < 50 && !second; i++) {
  second = (await page.signals()).events.filter(e => e.kind === 'file_chooser').length;
  if (!second) await sleep(100);
}
return { chooser, second, tree: (await page.snapshot()).tree };
`);
    assert.deepEqual(r.chooser, {
      kind: 'file_chooser',
      text: 'file chooser: "Attachments" (multiple files, accept .pdf,image/*; nothing chosen)',
      multiple: true,
      accept: '.pdf,image/*',
      input: { id: 'files', name: null, label: 'Attachments', selector: '#files' },
      frame: 'main',
    });
    assert.equal(r.second, 1);
    assert.doesNotMatch(r.tree, /chosen:/, 'no file was chosen on the page');
  });

  test('the snippet deadline abandons a raw call that never answers; the page is free for the next call', async () => {
    const stuck = await js.run(
      `await page.cdp('Runtime.evaluate', { expression: 'new Promise(() => {})', awaitPromise: true })`,
      ['--timeout', '1000'],
    );
    assert.equal(stuck.code, 1);
    assert.match(stuck.stderr, /did not finish within 1000 ms and was abandoned/);
    // Not wedged: the next call on the same page runs (before, it waited behind the stuck call forever).
    const next = await js.run(`
const perCall = await page.cdp('Runtime.evaluate', { expression: 'new Promise(() => {})', awaitPromise: true }, { timeoutMs: 800 })
  .then(() => 'resolved', e => [e.code, e.details.outcome]);
const title = await page.cdp('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
return { perCall, title: title.result.value, tree: (await page.snapshot()).tree };
`);
    assert.equal(next.code, 0, next.stderr);
    const out = JSON.parse(next.stdout);
    assert.deepEqual(out.perCall, ['not_ready', 'unknown'], 'a per-call deadline ends a raw call too');
    assert.equal(out.title, 'JS harness signals');
    assert.match(out.tree, /button "Choose files"/);
  });

  test('the snippet deadline abandons a long waitForChange; the next call runs at once', async () => {
    const seen = await js.run(`globalThis.rev = (await page.observe()).revision; return 'ok'`);
    assert.equal(seen.code, 0, seen.stderr);
    const r = await js.run(`await page.waitForChange(rev, { waitMs: 30000 })`, ['--timeout', '1000']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /did not finish within 1000 ms and was abandoned/);
    // The abandoned wait stops sampling: the page is not held for the rest of its 30 s.
    const next = await js.run(`(await page.observe()).revision === rev`, ['--timeout', '8000']);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(next.stdout, 'true\n');
  });

  test('the snippet deadline during a click whose handler blocks: abandoned; the next call sees the click', async () => {
    assert.equal((await js.run(`(await page.goto('${page}?busy=5000')).status`)).stdout, 'executed\n');
    const r = await js.run(`await page.locator('#busy').click()`, ['--timeout', '2000']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /abandoned/);
    assert.match(r.stderr, /input already sent cannot be taken back/);
    // The click was in flight: the page's queue waits for it to settle, then serves the next call.
    const next = await js.run(`(await page.snapshot()).tree`);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /busy done/);
  });

  test('a per-call timeoutMs that passes after the click was sent: outcome_unknown; the page works after', async () => {
    const r = await js.json<{ click: { status: string; reason: string }; tree: string }>(`
await page.goto('${page}?busy=5000');
const click = await page.locator('#busy').click({ timeoutMs: 2000 });
return { click, tree: (await page.snapshot()).tree };
`);
    assert.equal(r.click.status, 'outcome_unknown');
    assert.equal(r.click.reason, 'deadline_after_dispatch');
    assert.match(r.tree, /busy done/);
  });

  test('an abandoned click that was still waiting for its target sends nothing later', async () => {
    assert.equal((await js.run(`(await page.goto('${page}?late=3000')).status`)).stdout, 'executed\n');
    // #late is disabled for 3 s: the click waits for it to become actionable when the snippet is abandoned.
    const r = await js.run(`await page.locator('#late').click()`, ['--timeout', '1000']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /abandoned/);
    const later = await js.json<{ enabled: string; log: string; clicked: string }>(`
await sleep(3500);
const tree = (await page.snapshot()).tree;
const enabled = tree.match(/button "Late"[^\\n]*/)[0];
const log = tree.includes('late clicked') ? 'clicked' : 'not clicked';
// The button works: a click now is seen (so the check above could see one).
await page.locator('#late').click();
const clicked = (await page.snapshot()).tree.includes('late clicked') ? 'clicked' : 'not clicked';
return { enabled, log, clicked };
`);
    assert.doesNotMatch(later.enabled, /disabled/, 'the button was enabled while nobody waited for it');
    assert.equal(later.log, 'not clicked', 'the abandoned click was never sent');
    assert.equal(later.clicked, 'clicked');
  });

  test('a renderer crash: a crashed signal (once), typed errors after, close removes the tab', async () => {
    const r = await js.json<Record<string, unknown>>(`
await page.signals();
const targetId = page.targetId;
const crash = await page.cdp('Page.crash', {}, { timeoutMs: 5000 }).then(() => 'resolved', e => [e.code, e.details.reason]);
const sig = await page.signals();
const again = await page.signals();
const snapshot = await page.snapshot().then(() => 'resolved', e => [e.code, e.details.reason]);
const click = await page.locator('#choose').click();
const info = await page.info();
await page.close();
const tabGone = !(await browser.tabs()).some(t => t.targetId === targetId);
globalThis.page = await browser.open('${page}', { allowedOrigins: ['${fx.url}'] });
return { crash, kinds: sig.events.map(e => e.kind), crashed: sig.events.find(e => e.kind === 'crashed'),
  again: again.events.length, snapshot, click: [click.status, click.reason], info, tabGone,
  fresh: (await page.info()).title };
`);
    assert.deepEqual(r.crash, ['page_not_found', 'crashed'], 'the call in flight fails at once');
    assert.deepEqual(r.kinds, ['crashed']);
    assert.match(String((r.crashed as { text: string }).text), /^renderer crashed: http:.*signals\.html/);
    assert.equal(r.again, 0, 'reported once');
    assert.deepEqual(r.snapshot, ['page_not_found', 'page_crashed']);
    assert.deepEqual(r.click, ['stale', 'page_crashed']);
    assert.deepEqual(r.info, {
      closed: true,
      reason: 'page_crashed',
      targetId: (r.info as { targetId: string }).targetId,
    });
    assert.equal(r.tabGone, true);
    assert.equal(r.fresh, 'JS harness signals');
  });
});
