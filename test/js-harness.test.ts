import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type DebuggableChromium, startDebuggableChromium } from './helpers/external-browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type JsCli, jsCli } from './helpers/js-cli.js';

// The Browser / Page / Locator API through the real CLI and daemon: connect() to a Chromium started
// with a debugging port (tabs; an allowlist is refused there, it could not be enforced), then pages
// with an allowlist in a browser the engine launches. Steps share the daemon's globals.
describe('tabwright js: Browser / Page / Locator (an attached Chromium, then a launched one)', () => {
  let js: JsCli;
  let chrome: DebuggableChromium;
  let fx: FixtureServer;
  let port: string;
  let form: string;

  before(async () => {
    [chrome, fx] = await Promise.all([startDebuggableChromium(), startFixtureServer()]);
    port = new URL(chrome.httpEndpoint).port;
    form = `${fx.url}/fixtures/js/form.html?alt=${encodeURIComponent(fx.altUrl)}`;
    js = jsCli(`harness-${process.pid}`);
  });
  after(async () => {
    await js?.stop();
    await chrome?.stop().catch(() => {});
    await fx?.close();
  });

  test('connect, tabs (never a silent pick), allowlist validation; an allowlist only in a launched browser', async () => {
    const r = await js.json<{
      tabs: { targetId: string; url: string }[];
      errors: string[];
      unenforceable: { code: string; message: string }[];
    }>(`
await browser.connect({ port: ${port} });
const tabs = await browser.tabs();
const errors = [];
for (const allowedOrigins of [[], ['${fx.url}/path'], ['https://*.example.com'], undefined]) {
  try { await browser.open('${fx.url}/', { allowedOrigins }); errors.push('accepted'); }
  catch (e) { errors.push(e.code); }
}
try { await browser.open('${fx.altUrl}/fixtures/js/other.html', { allowedOrigins: ['${fx.url}'] }); errors.push('accepted'); }
catch (e) { errors.push(e.code); }
const unenforceable = [];
for (const call of [() => browser.open('${form}', { allowedOrigins: ['${fx.url}'] }),
                    () => browser.attach(tabs[0].targetId, { allowedOrigins: ['${fx.url}'] })]) {
  try { await call(); unenforceable.push({ code: 'accepted' }); }
  catch (e) { unenforceable.push({ code: e.code, message: e.message }); }
}
await browser.disconnect();
await browser.launch();
globalThis.page = await browser.open('${form}', { allowedOrigins: ['${fx.url}'] });
return { tabs, errors, unenforceable };
`);
    assert.ok(r.tabs.length >= 1 && r.tabs.every((t) => /^[0-9A-F]{32}$/.test(t.targetId)));
    assert.deepEqual(r.errors, [
      'invalid_request',
      'invalid_request',
      'invalid_request',
      'invalid_request',
      'permission_denied',
    ]);
    for (const u of r.unenforceable) {
      assert.equal(u.code, 'unsupported_target');
      assert.match(u.message, /browser\.launch\(\) and browser\.open\(url, \{ allowedOrigins \}\)/);
    }
    assert.equal(r.unenforceable.length, 2);
  });

  test('snapshot and diff; a sensitive value never leaks; limits', async () => {
    const r = await js.json<Record<string, unknown>>(`
const s1 = await page.snapshot();
const s2 = await page.snapshot();
const small = await page.snapshot({ interactive: true, maxDepth: 1 });
let tooBig = null;
try { await page.snapshot({ maxChars: 200 }); } catch (e) { tooBig = e.message; }
return { s1, diff2: s2.diff, refs: s1.tree.match(/\\[ref=(\\w+)\\]/g).length, small: small.tree, tooBig };
`);
    const s1 = r.s1 as {
      id: string;
      tree: string;
      diff: string;
      truncated: boolean;
      omissions: unknown;
      url: string;
    };
    assert.match(s1.id, /^snap_/);
    assert.equal(s1.diff, s1.tree, 'the first diff is the whole tree');
    assert.match(s1.tree, /searchbox "Search" \[ref=s[A-Za-z0-9_]{16}\]/);
    assert.match(s1.tree, /textbox "Private note" \[ref=\w+\] value="\[redacted\]"/);
    assert.ok(
      !JSON.stringify(r).includes('sentinel-secret-42'),
      'the data-private value never leaves the page',
    );
    assert.equal(r.diff2, '(no changes)');
    assert.equal(s1.truncated, false);
    assert.match(String(r.tooBig), /over the 200-character limit.*Narrow it/);
  });

  test('getByRole fill (verified by read-back) and click with a verify predicate; a stale ref', async () => {
    const r = await js.json<
      Record<
        string,
        { status: string; reason: string; verified: boolean | null; snapshot: { diff: string } | null }
      >
    >(`
const before = await page.snapshot();
const oldRef = before.tree.match(/searchbox "Search" \\[ref=(\\w+)\\]/)[1];
const fill = await page.getByRole('searchbox', { name: 'Search' }).fill('browser harness');
const click = await page.getByRole('button', { name: 'Search' }).click({
  verify: snapshot => snapshot.tree.includes('Search results')
});
const stale = await page.locator(oldRef).click();
const fresh = click.snapshot.tree.match(/searchbox "Search" \\[ref=(\\w+)\\]/)[1];
const viaFreshRef = await page.locator(fresh).fill('again');
const ambiguous = await page.getByRole('button', { name: 'Delete' }).click().then(() => 'resolved', e => e.code);
const inContext = await page.getByRole('button', { name: 'Delete', context: 'Inbound' }).click({ verify: s => s.tree.includes('inbound delete') });
const select = await page.getByRole('combobox', { name: 'Colour' }).selectOption('Blue');
const badKey = await page.locator('#q').press('F12').then(() => 'resolved', e => e.code);
const byIndex = await page.locator('#colour').selectOption(0);
const press = await page.locator('#q').press('Enter', { verify: s => s.tree.includes('again: 3 items') });
const scrolled = await page.getByRole('button', { name: 'Add later' }).scrollIntoView();
return { fill, click, stale, viaFreshRef, inContext, select, byIndex, press, scrolled, ambiguous: { status: ambiguous }, badKey: { status: badKey } };
`);
    assert.equal(r.fill!.status, 'executed');
    assert.equal(r.fill!.verified, true);
    assert.equal(r.click!.status, 'executed');
    assert.equal(r.click!.verified, true);
    assert.match(r.click!.snapshot!.diff, /Search results/);
    assert.equal(r.stale!.status, 'stale');
    assert.equal(r.stale!.reason, 'ref_expired');
    assert.equal(r.viaFreshRef!.status, 'executed');
    assert.equal(r.viaFreshRef!.verified, true);
    assert.equal(r.ambiguous!.status, 'element_not_found');
    assert.equal(r.inContext!.verified, true);
    assert.equal(r.select!.verified, true);
    assert.equal(r.badKey!.status, 'invalid_request');
    assert.equal(r.byIndex!.verified, true);
    assert.equal(r.press!.status, 'executed');
    assert.equal(r.press!.verified, true);
    assert.equal(r.scrolled!.status, 'executed');
  });

  test('guards: a blocked origin, a sensitive fill refused unless opted in, a deadline', async () => {
    const r = await js.json<Record<string, { status: string; reason: string }>>(`
const away = await page.locator('#away').click();
const goto = await page.goto('${fx.altUrl}/fixtures/js/other.html');
const pw = await page.locator('#pw').fill('hunter2');
const priv = await page.getByRole('textbox', { name: 'Private note' }).fill('x');
const optIn = await page.locator('#pw').fill('hunter2', { allowSensitive: true });
const slow = await page.goto('${fx.url}/slow?ms=4000', { timeoutMs: 800 });
const tooLong = await page.goto('${fx.url}/', { timeoutMs: 61000 }).then(() => 'resolved', e => e.code);
return { away, goto, pw, priv, optIn, slow, tooLong: { status: tooLong } };
`);
    assert.equal(r.away!.status, 'executed');
    assert.match(JSON.stringify(r.away), /blockedNavigation.*localhost/);
    assert.ok(
      String((r.away as unknown as { snapshot: { url: string } }).snapshot.url).startsWith(fx.url),
      'the page stayed',
    );
    assert.equal(r.goto!.status, 'blocked');
    assert.equal(r.goto!.reason, 'origin_denied');
    assert.equal(r.pw!.status, 'blocked');
    assert.equal(r.pw!.reason, 'sensitive_field');
    assert.equal(r.priv!.reason, 'sensitive_field');
    assert.equal(r.optIn!.status, 'executed');
    assert.equal(r.slow!.status, 'outcome_unknown');
    assert.equal(r.tooLong!.status, 'invalid_request');
  });

  test('observe / act: one-time handles, a reused handle refused; waitForChange', async () => {
    const r = await js.json<Record<string, unknown>>(`
await page.goto('${form}');
const seen = await page.observe({ maxElements: 64 });
const again = await page.observe({ maxElements: 64 });
const later = again.candidates.find(c => c.label === 'Add later');
const first = await page.act(again, { targetId: later.id, operation: 'click' });
const reused = await page.act(again, { targetId: later.id, operation: 'click' });
const old = await page.act(seen, { targetId: seen.candidates[0].id, operation: 'click' });
const changed = await page.waitForChange(again.revision, { waitMs: 5000 });
const still = await page.waitForChange(changed.observation.revision, { waitMs: 600 });
const noPassword = again.candidates.every(c => c.label !== 'Password' && c.label !== 'Private note');
return { sameRevision: seen.revision === again.revision, first: first.status, reused: [reused.status, reused.reason],
  old: [old.status, old.reason], changed: changed.changed, appeared: changed.observation.candidates.some(c => c.label === 'Appeared'),
  still: still.changed, noPassword, context: again.candidates.filter(c => c.label === 'Delete').map(c => c.context) };
`);
    assert.equal(r.sameRevision, true, 'revision is stable while nothing changes');
    assert.equal(r.first, 'executed');
    assert.deepEqual(r.reused, ['stale', 'observation_expired']);
    assert.deepEqual(r.old, ['stale', 'observation_expired']);
    assert.equal(r.changed, true);
    assert.equal(r.appeared, true);
    assert.equal(r.still, false);
    assert.equal(r.noPassword, true);
    assert.deepEqual(r.context, ['region: Outbound', 'region: Inbound']);
  });

  test('signals: a dialog and a popup; attach to the popup by targetId; cdp escape hatch expires refs', async () => {
    const r = await js.json<Record<string, unknown>>(`
await page.signals();
await page.locator('#confirm').click();
await page.locator('#popup').click();
const sig = await page.signals();
const drained = await page.signals();
const popup = sig.events.find(e => e.kind === 'popup');
const other = await browser.attach(popup.targetId, { allowedOrigins: ['${fx.url}'] });
const otherInfo = await other.info();
await other.dispose();
const tabsAfterDispose = (await browser.tabs()).some(t => t.targetId === popup.targetId);
const snap = await page.snapshot();
const ref = snap.tree.match(/button "Ask" \\[ref=(\\w+)\\]/)[1];
const cdp = await page.cdp('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
const afterCdp = await page.locator(ref).click();
const info = await page.info();
return { kinds: sig.events.map(e => e.kind), dialog: sig.events.find(e => e.kind === 'dialog').text, drained: drained.events.length,
  otherTitle: otherInfo.title, tabsAfterDispose, cdp: cdp.result.value, afterCdp: afterCdp.status, info };
`);
    assert.deepEqual((r.kinds as string[]).slice(0, 2), ['dialog', 'popup']);
    assert.match(String(r.dialog), /dialog confirm: "Really delete\?" \(dismissed by policy\)/);
    assert.equal(r.drained, 0, 'reading drains the digest');
    assert.equal(r.otherTitle, 'Other page');
    assert.equal(r.tabsAfterDispose, true, 'dispose leaves the tab');
    assert.equal(r.cdp, 'JS harness form');
    assert.equal(r.afterCdp, 'stale', 'a raw call expires printed refs');
    assert.equal((r.info as { url: string }).url.startsWith(fx.url), true);
  });

  test('frames can be read', async () => {
    const r = await js.json<{ frames: { frameId: string; main: boolean }[]; tree: string }>(`
await page.goto('${fx.url}/fixtures/js/frames.html');
const frames = page.frames();
const child = frames.find(f => !f.main);
return { frames, tree: (await page.frame(child.frameId).snapshot()).tree };
`);
    assert.equal(r.frames.length, 2);
    assert.match(r.tree, /Other page/);
    assert.doesNotMatch(r.tree, /Outer/);
  });

  test('recording with consent: a Playwright trace and events.jsonl with masked typing', async () => {
    const refused = await js.run(`await startRecording({ name: 'x' })`);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /consent/);
    const r = await js.json<{
      started: { active: boolean };
      stopped: { dir: string; traceFiles: string[]; eventsFile: string };
    }>(`
const started = await startRecording({ consent: true, name: 'js-test' });
await page.goto('${form}&token=abc123');
await page.getByRole('searchbox', { name: 'Search' }).fill('recorded text');
await page.locator('#pw').fill('hunter2-secret', { allowSensitive: true });
const stopped = await stopRecording();
return { started, stopped, status: recordingStatus() };
`);
    assert.equal(r.started.active, true);
    assert.equal(r.stopped.traceFiles.length, 1);
    const trace = r.stopped.traceFiles[0]!;
    assert.ok(existsSync(trace) && statSync(trace).size > 1000);
    assert.equal(statSync(trace).mode & 0o777, 0o600);
    assert.equal(statSync(r.stopped.dir).mode & 0o777, 0o700);
    const events = readFileSync(r.stopped.eventsFile, 'utf8');
    assert.match(events, /"text":"recorded text"/);
    assert.ok(!events.includes('hunter2-secret'), 'password typing is masked');
    assert.ok(!events.includes('abc123'), 'secret-like query values are scrubbed');
    assert.match(events, /"action":"goto"/);
  });

  test('--status lists the connection and pages; close(); disconnect makes old pages stale', async () => {
    const status = JSON.parse((await js.cli(['--status'])).stdout);
    assert.equal(status.browsers[0].mode, 'launch');
    assert.ok(status.pages.length >= 1);
    const r = await js.json<Record<string, unknown>>(`
const keep = page;
await browser.disconnect();
let after;
try { await keep.snapshot(); after = 'resolved'; } catch (e) { after = e.message; }
return { after };
`);
    assert.match(String(r.after), /disposed/);
  });
});
