import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { type DebuggableChromium, startDebuggableChromium } from './helpers/external-browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type JsCli, jsCli } from './helpers/js-cli.js';

// The seed's Browser / Page / Locator contract through the real CLI and daemon, truth and safety
// first: dialogs report what the page got, reads are refused outside a Page's allowlist, recordings
// keep secrets out of their traces; then the seed's exact rules. One daemon, one launched browser.
describe('tabwright js: the seed contract, truthful', () => {
  let js: JsCli;
  let fx: FixtureServer;
  let chrome: DebuggableChromium;
  let widgets: string;

  before(async () => {
    [fx, chrome] = await Promise.all([startFixtureServer(), startDebuggableChromium()]);
    widgets = `${fx.url}/fixtures/js/widgets.html`;
    js = jsCli(`contract-${process.pid}`);
  });
  after(async () => {
    await js?.stop();
    await chrome?.stop().catch(() => {});
    await fx?.close();
  });

  test('a connected browser hands out no Page and answers none of its dialogs: nothing there can be silently wrong', async () => {
    const port = new URL(chrome.httpEndpoint).port;
    const r = await js.json<{ out: { code: string; message: string }[]; mine: unknown }>(`
await browser.connect({ port: ${port} });
const tabs = await browser.tabs();
const out = [];
for (const call of [
  () => browser.open('${widgets}', { allowedOrigins: ['${fx.url}'], dialogs: 'accept' }),
  () => browser.open('${widgets}', { allowedOrigins: ['${fx.url}'], dialogs: 'hold' }),
  () => browser.attach(tabs[0].targetId, { allowedOrigins: ['${fx.altUrl}'] }),
]) out.push(await call().then(() => ({ code: 'accepted' }), e => ({ code: e.code, message: e.message })));
// Connecting answers no dialog of the user's tabs: a confirm() there stays open for the person.
const asked = cdp(tabs[0].targetId, 'Runtime.evaluate', { expression: 'confirm("Yours?")', returnByValue: true });
asked.catch(() => {});
const mine = await Promise.race([asked.then(v => v.result.value), sleep(700).then(() => 'still open')]);
await cdp(null, 'Target.closeTarget', { targetId: tabs[0].targetId });
await browser.disconnect();
await browser.launch();
globalThis.readLog = async p => (await p.cdp('Runtime.evaluate', { expression: 'document.getElementById("log").textContent', returnByValue: true })).result.value;
globalThis.strip = r => { const { snapshot, ...rest } = r; return rest; };
return { out, mine };
`);
    assert.equal(r.mine, 'still open');
    assert.equal(r.out.length, 3);
    for (const x of r.out) {
      assert.equal(x.code, 'unsupported_target');
      assert.match(
        x.message,
        /browser\.disconnect\(\), then browser\.launch\(\) and browser\.open\(url, \{ allowedOrigins \}\)/,
      );
    }
  });

  test('dialogs on a launched browser: the signal and the answer are what the page received', async () => {
    const r = await js.json<Record<string, unknown>>(`
const acc = await browser.open('${widgets}', { allowedOrigins: ['${fx.url}'], dialogs: 'accept' });
const click = await acc.getByRole('button', { name: 'Ask first' }).click();
const accepted = { dialog: click.dialog, log: await readLog(acc), signal: (await acc.signals()).events.find(e => e.kind === 'dialog') };
await acc.close();
const held = await browser.open('${widgets}', { allowedOrigins: ['${fx.url}'], dialogs: 'hold' });
const ask = await held.getByRole('button', { name: 'Name the traveller' }).click();
const pending = (await held.info()).dialog;
const answer = await held.handleDialog(true, 'Ada');
await sleep(100);
const log = await readLog(held);
await held.close();
return { accepted, ask: ask.status, pending, answer, log };
`);
    const accepted = r.accepted as {
      dialog: { type: string };
      log: string;
      signal: { text: string; state: string };
    };
    assert.equal(accepted.dialog.type, 'confirm');
    assert.equal(accepted.log, 'confirm=true;');
    assert.match(accepted.signal.text, /dialog confirm: "Book this trip\?" \(accepted by policy\)/);
    assert.equal(r.ask, 'executed');
    assert.equal((r.pending as { type: string }).type, 'prompt');
    assert.equal((r.answer as { state: string }).state, 'accepted');
    assert.equal(r.log, 'name=Ada;');
  });

  test("reads, actions and goto are refused when the tab is outside the Page's own allowlist", async () => {
    const r = await js.json<Record<string, { code?: string; reason?: string; status?: string }>>(`
const wide = await browser.open('${fx.url}/fixtures/js/form.html', { allowedOrigins: ['${fx.url}', '${fx.altUrl}'] });
await wide.goto('${fx.altUrl}/fixtures/js/form.html');
const narrow = await browser.attach(wide.targetId, { allowedOrigins: ['${fx.url}'] });
const refused = e => ({ code: e.code, reason: e.details?.reason });
const o = {
  snapshot: await narrow.snapshot().then(() => ({ code: 'read' }), refused),
  observe: await narrow.observe().then(() => ({ code: 'read' }), refused),
  waitForChange: await narrow.waitForChange('x', { waitMs: 0 }).then(() => ({ code: 'read' }), refused),
  click: strip(await narrow.getByRole('button', { name: 'Search' }).click()),
  fill: strip(await narrow.locator('#q').fill('x')),
  wideReads: { code: (await wide.snapshot()).tree.includes('Search') ? 'read' : 'empty' },
};
await wide.goto('${fx.url}/fixtures/js/cross-frame.html?alt=' + encodeURIComponent('${fx.altUrl}'));
// A frame at an origin only the wider allowlist has: marked, never read, by the narrower Page.
const narrowTree = (await narrow.snapshot()).tree;
const partner = narrow.frames().find(f => !f.main);
o.frameMarked = { code: narrowTree.includes('not read: outside the allowed origins') && !narrowTree.includes('Other page') ? 'marked' : narrowTree };
o.frameAllowed = { code: String(partner.allowed) };
o.frameRead = await narrow.frame(partner.frameId).snapshot().then(() => ({ code: 'read' }), refused);
o.wideFrame = { code: (await wide.snapshot()).tree.includes('Other page') ? 'read' : 'empty' };
o.gotoOut = strip(await narrow.goto('${fx.altUrl}/fixtures/js/other.html'));
o.stillHere = { code: (await narrow.info()).url.startsWith('${fx.url}') ? 'stayed' : 'moved' };
o.readsAgain = { code: (await narrow.snapshot()).tree.includes('Outer page') ? 'read' : 'empty' };
await narrow.dispose();
await wide.close();
return o;
`);
    for (const k of ['snapshot', 'observe', 'waitForChange'] as const)
      assert.deepEqual(r[k], { code: 'permission_denied', reason: 'origin_denied' }, k);
    for (const k of ['click', 'fill', 'gotoOut'] as const) {
      assert.equal(r[k]!.status, 'blocked', k);
      assert.equal(r[k]!.reason, 'origin_denied', k);
    }
    assert.equal(r.wideReads!.code, 'read');
    assert.equal(r.frameMarked!.code, 'marked');
    assert.equal(r.frameAllowed!.code, 'false');
    assert.deepEqual(r.frameRead, { code: 'permission_denied', reason: 'origin_denied' });
    assert.equal(r.wideFrame!.code, 'read');
    assert.equal(r.stillHere!.code, 'stayed');
    assert.equal(r.readsAgain!.code, 'read');
  });

  test("the seed's matching, selection, scrolling and refusals, in this API's words", async () => {
    const r = await js.json<Record<string, Record<string, unknown>>>(`
globalThis.page = await browser.open('${widgets}', { allowedOrigins: ['${fx.url}'] });
const err = e => ({ thrown: e.code, message: e.message, details: e.details });
const act = (l, op, ...a) => l[op](...a).then(strip, err);
const ac = new AbortController(); ac.abort();
const o = {
  lowerExact: await act(page.getByRole('button', { name: 'refund' }), 'click'),
  upperSub: await act(page.getByRole('button', { name: 'REFU', exact: false }), 'click'),
  sub: await act(page.getByRole('button', { name: 'efun', exact: false }), 'click'),
  contextSeed: await act(page.getByRole('button', { name: 'Book', context: 'group: Outbound' }), 'click'),
  ambiguous: await act(page.getByRole('button', { name: 'Book' }), 'click'),
  sharedLabel: await act(page.locator('#seat'), 'selectOption', 'Aisle'),
  byIndex: await act(page.locator('#seat'), 'selectOption', 3),
  scrolled: await act(page.getByRole('button', { name: 'Far away' }), 'scrollIntoView'),
  canvas: await act(page.locator('#map'), 'click'),
  closedShadow: await act(page.getByRole('button', { name: 'Hidden inside' }), 'click'),
  custom: await act(page.locator('#seats'), 'click'),
  customWithRole: await act(page.getByRole('button', { name: 'Fare picker' }), 'click'),
  aborted: await act(page.getByRole('button', { name: 'Refund' }), 'click', { signal: ac.signal }),
  overlayLink: await act(page.getByRole('link', { name: 'Timetable' }), 'click'),
  halfCovered: await act(page.getByRole('button', { name: 'Half hidden' }), 'click'),
  fullyCovered: await act(page.getByRole('button', { name: 'Fully hidden' }), 'click'),
};
o.log = { text: await readLog(page) };
return o;
`);
    assert.equal(r.lowerExact!.reason, 'no_match');
    assert.equal(r.upperSub!.reason, 'no_match');
    assert.equal(r.sub!.status, 'executed');
    assert.equal(r.contextSeed!.status, 'executed');
    assert.equal(r.ambiguous!.thrown, 'element_not_found');
    assert.deepEqual((r.ambiguous!.details as { candidates: unknown[] }).candidates, [
      { name: 'Book', context: 'group: Outbound' },
      { name: 'Book', context: 'group: Return leg' },
    ]);
    assert.deepEqual([r.sharedLabel!.status, r.sharedLabel!.reason], ['blocked', 'ambiguous_option']);
    assert.deepEqual([r.byIndex!.status, r.byIndex!.verified], ['executed', true]);
    assert.deepEqual([r.scrolled!.status, r.scrolled!.verified], ['executed', true]);
    assert.deepEqual([r.canvas!.status, r.canvas!.reason], ['blocked', 'canvas']);
    assert.deepEqual([r.closedShadow!.status, r.closedShadow!.reason], ['blocked', 'closed_shadow_root']);
    assert.deepEqual([r.custom!.status, r.custom!.reason], ['blocked', 'custom_component']);
    assert.equal(r.customWithRole!.status, 'executed');
    assert.deepEqual([r.aborted!.status, r.aborted!.reason], ['blocked', 'cancelled']);
    assert.equal(r.overlayLink!.status, 'executed');
    assert.equal(r.halfCovered!.status, 'executed');
    assert.deepEqual([r.fullyCovered!.status, r.fullyCovered!.reason], ['blocked', 'obscured']);
    assert.deepEqual(r.fullyCovered!.coveredBy, { role: 'generic', name: '', tag: 'div' });
    // Only what the clicks that were executed did: no canvas, shadow, custom, cancelled or covered click.
    assert.equal(r.log!.text, 'Upper;out-book;seat=3;fare;timetable;half;');
    // This API's vocabulary only: no engine refs, fields or calls it does not have.
    const words = JSON.stringify(r);
    assert.doesNotMatch(
      words,
      /\be[1-9][0-9]*\b|element_ref|covered_by|page\.wait\b|\bnth\b|page\.(click|select)\b/,
    );
  });

  test('the peer harness widgets through observe / act, as its live test drives them', async () => {
    const r = await js.json<Record<string, unknown>>(`
const pick = (seen, label) => seen.candidates.find(c => c.label === label);
const step = async (label, operation, extra = {}) => {
  const seen = await page.observe({ maxElements: 128 });
  const c = pick(seen, label);
  if (!c) return { missing: label, labels: seen.candidates.map(x => x.label) };
  return strip(await page.act(seen, { targetId: c.id, operation, ...extra }));
};
await page.goto('${widgets}');
const first = await page.observe({ maxElements: 128 });
const o = { offered: Object.fromEntries(first.candidates.map(c => [c.label, c.operations])) };
o.remarks = pick(first, 'Remarks').value;
o.print = (await step('Print ticket', 'click')).status;
o.pressOnly = (await step('Press only', 'click')).status;
o.typed = (await step('Destination', 'type', { text: 'be' })).status;
const opened = await page.waitForChange(first.revision, { waitMs: 3000 });
o.expanded = pick(opened.observation, 'Destination').expanded;
o.options = opened.observation.candidates.filter(c => c.role === 'option' && ['Basel', 'Bern', 'Geneva'].includes(c.label)).map(c => c.label);
o.snapshotOption = /option "Bern"[^\\n]*\\[ref=s\\w{16}\\]/.test((await page.snapshot()).tree);
o.down = (await step('Destination', 'press', { key: 'ArrowDown' })).status;
o.highlighted = pick(await page.observe({ maxElements: 128 }), 'Bern').selected;
o.enter = (await step('Destination', 'press', { key: 'Enter' })).status;
const chosen = await page.observe({ maxElements: 128 });
o.value = pick(chosen, 'Destination').value;
o.closed = pick(chosen, 'Destination').expanded;
o.notes = (await step('Remarks', 'type', { text: 'aisle seat' })).verified;
o.notesValue = pick(await page.observe({ maxElements: 128 }), 'Remarks').value;
o.tab = (await step('Return', 'click')).status;
o.tabSelected = pick(await page.observe({ maxElements: 128 }), 'Return').selected;
o.switch = (await step('Quiet coach', 'click')).status;
o.switchOn = pick(await page.observe({ maxElements: 128 }), 'Quiet coach').checked;
o.select = (await step('Seat', 'select', { option: 2 })).verified;
o.keyOnButton = (await step('Refund', 'press', { key: 'Enter' })).status;
o.scrollOffer = pick(first, 'Stations').operations;
o.scrolled = (await step('Stations', 'scroll_down')).verified;
o.scrollAfter = pick(await page.observe({ maxElements: 128 }), 'Stations').operations;
o.log = await readLog(page);
return o;
`);
    const offered = r.offered as Record<string, string[]>;
    assert.deepEqual(offered['Print ticket'], ['click', 'press']);
    assert.deepEqual(offered.Destination, ['type', 'press', 'click']);
    assert.deepEqual(offered.Seat, ['select']);
    assert.equal(r.remarks, 'early boarding');
    assert.equal(r.print, 'executed');
    assert.equal(r.pressOnly, 'executed');
    assert.equal(r.typed, 'executed');
    assert.equal(r.expanded, true);
    assert.deepEqual(r.options, ['Bern']);
    assert.equal(r.snapshotOption, true);
    assert.equal(r.down, 'executed');
    assert.equal(r.highlighted, true);
    assert.equal(r.enter, 'executed');
    assert.equal(r.value, 'Bern');
    assert.equal(r.closed, false);
    assert.equal(r.notes, true);
    assert.equal(r.notesValue, 'aisle seat');
    assert.equal(r.tabSelected, true);
    assert.equal(r.switchOn, true);
    assert.equal(r.select, true);
    assert.equal(r.keyOnButton, 'executed');
    assert.deepEqual(r.scrollOffer, ['scroll_down']);
    assert.equal(r.scrolled, true);
    assert.deepEqual(r.scrollAfter, ['scroll_up']);
    assert.equal(r.log, 'printed;pressed;dest=Bern;seat=2;Upper;');
  });

  test('the WAI-ARIA APG patterns: list autocomplete (keyup), menu button, tabs, listbox, tree, sliders, spinbutton, mixed checkbox, disclosure, modal dialog', async () => {
    const r = await js.json<Record<string, unknown>>(`
const apg = await browser.open('${fx.url}/fixtures/js/apg.html', { allowedOrigins: ['${fx.url}'] });
const role = (r, name) => apg.getByRole(r, { name });
const check = async (l, op, arg, want) => {
  const res = arg === undefined ? await l[op]({ verify: want }) : await l[op](arg, { verify: want });
  return res.status === 'executed' ? res.verified : res.status + '/' + res.reason;
};
const o = {};
const plain = await role('combobox', 'Fruit').fill('Ap');
o.plain = [plain.verified, plain.snapshot.tree.includes('option "Apple"')];
const keyed = await role('combobox', 'Fruit').fill('Ap', { keyByKey: true });
o.keyed = [keyed.verified, /option "Apple"[^\\n]*\\[ref=s\\w{16}\\]/.test(keyed.snapshot.tree), keyed.snapshot.tree.includes('option "Banana"')];
o.fruit = await check(role('option', 'Apricot'), 'click', undefined, s => s.tree.includes('value="Apricot"'));
o.menu = await check(role('button', 'Actions'), 'press', 'ArrowDown', s => s.tree.includes('menuitem "Archive"'));
o.tabs = await check(role('tab', 'Summer'), 'press', 'ArrowRight', s => /tab "Winter" \\[selected/.test(s.tree) && s.tree.includes('Slopes'));
o.option = await check(role('option', 'Teal'), 'click', undefined, s => /option "Teal" \\[selected/.test(s.tree));
o.tree = await check(role('treeitem', 'Documents'), 'click', undefined, s => s.tree.includes('treeitem "CV.pdf"'));
o.slider = await check(role('slider', 'Volume'), 'press', 'ArrowRight', s => /slider "Volume"[^\\n]*value="6"/.test(s.tree));
o.svgSlider = await check(role('slider', 'Rating'), 'press', 'ArrowRight', s => /slider "Rating"[^\\n]*value="3 stars"/.test(s.tree));
o.spin = await check(role('spinbutton', 'Quantity'), 'press', 'ArrowUp', s => /spinbutton "Quantity"[^\\n]*value="4"/.test(s.tree));
o.mixed = await check(role('checkbox', 'All toppings'), 'click', undefined, s => /checkbox "Cheese" \\[checked/.test(s.tree));
o.disclosure = await check(role('button', 'Opening hours'), 'click', undefined, s => s.tree.includes('Nine to five'));
o.dialog = await check(role('button', 'Add delivery address'), 'click', undefined, s => s.tree.includes('dialog "Delivery address"'));
o.street = (await role('textbox', 'Street').fill('1 Main St')).verified;
o.behind = (await role('button', 'Opening hours').click()).reason;
o.done = (await role('button', 'Done').click()).status;
o.log = await readLog(apg);
await apg.close();
return o;
`);
    assert.deepEqual(r.plain, [true, false], 'one insertion fires no keyup: the list stays closed');
    assert.deepEqual(r.keyed, [true, true, false], 'key by key filters like typing');
    for (const k of [
      'fruit',
      'menu',
      'tabs',
      'option',
      'tree',
      'slider',
      'svgSlider',
      'spin',
      'mixed',
      'disclosure',
      'dialog',
      'street',
    ])
      assert.equal(r[k], true, k);
    assert.equal(r.behind, 'obscured', 'the modal covers the page behind it');
    assert.equal(r.log, 'fruit=Apricot;street=1 Main St;');
  });

  test('frames beyond the 32-frame limit are marked where they stand; typed raw wrappers; raw CDP meets the network policy', async () => {
    const r = await js.json<Record<string, unknown>>(`
const p = await browser.open('${fx.url}/fixtures/js/many-frames.html', { allowedOrigins: ['${fx.url}'] });
const s = await p.snapshot();
// The typed raw wrappers route explicitly; raw CDP skips the guards, the network policy still holds.
const title = (await new Session(p.targetId).Runtime.evaluate({ expression: 'document.title', returnByValue: true })).result.value;
const use = (() => { try { session.use(p.targetId); return 'switched'; } catch (e) { return e.code; } })();
await session.Runtime.evaluate({ expression: 'location.href = "${fx.altUrl}/fixtures/js/other.html"' }, { targetId: p.targetId });
await sleep(500);
const stayed = (await p.info()).url.startsWith('${fx.url}');
const blocked = (await p.signals()).events.some(e => e.kind === 'blocked' && e.url.startsWith('${fx.altUrl}'));
await p.close();
return { truncated: s.truncated, marks: s.tree.split('beyond the 32-frame limit').length - 1, frames: s.omissions.frames, title, use, stayed, blocked };
`);
    // 32 frames are read: the main frame and the first 31 iframes.
    assert.deepEqual(r, {
      truncated: true,
      marks: 3,
      frames: 3,
      title: 'Many frames',
      use: 'invalid_request',
      stayed: true,
      blocked: true,
    });
  });

  test("a recording's trace holds no typed password, page password value or secret query value", async () => {
    const r = await js.json<{ traceFiles: string[]; eventsFile: string; fill: string }>(`
await startRecording({ consent: true, name: 'secrets' });
const p = await browser.open('${fx.url}/fixtures/js/secret-form.html?token=Tok-Url-3131', { allowedOrigins: ['${fx.url}'] });
const fill = (await p.locator('#pw2').fill('Typed-Pw-7731', { allowSensitive: true })).status;
await p.getByRole('button', { name: 'Check' }).click();
await p.snapshot();
await p.dispose();
const stopped = await stopRecording();
return { ...stopped, fill };
`);
    assert.equal(r.fill, 'executed');
    assert.ok(r.traceFiles.length >= 1);
    const texts = [readFileSync(r.eventsFile, 'utf8')];
    for (const f of r.traceFiles)
      for (const [name, bytes] of Object.entries(unzipSync(readFileSync(f))))
        if (!/\.(png|jpe?g|webp)$/.test(name)) texts.push(strFromU8(bytes));
    const all = texts.join('\n');
    assert.ok(all.includes('secret-form.html'), 'the trace recorded the page');
    for (const secret of ['Typed-Pw-7731', 'Preset-Pw-5599', 'Tok-Url-3131', 'Tok-Fetch-8181'])
      assert.ok(!all.includes(secret), `${secret} leaked into the recording`);
  });
});
