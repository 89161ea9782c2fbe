import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { ops } from '../src/engine/api.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, engine, session, home } = await engineTestEnv();
const page = session.page();

async function load(name = 'form.html'): Promise<void> {
  await page.open(`${server.url}/fixtures/actions/${name}`);
}
const status = () => page.evaluate('test', () => document.getElementById('status')!.textContent, null);
/** The ref of the first element in the agent text whose line contains `label`. */
async function refOf(label: string): Promise<string> {
  const snap = await page.snapshot();
  const line = snap.text.split('\n').find((l) => l.includes(label));
  const m = line && /\[ref=(e\d+)\]/.exec(line);
  assert.ok(m, `no ref for ${label} in:\n${snap.text}`);
  return m[1]!;
}

describe('targeting', () => {
  beforeEach(() => load());

  test('by ref', async () => {
    const r = await page.act({ element_ref: await refOf('Change status') }, { action: 'click' });
    assert.equal(r.status, 'executed');
    assert.equal(await status(), 'clicked 1');
  });

  test('by CSS selector: exactly one match, else a count', async () => {
    await page.act({ selector: '#change' }, { action: 'click' });
    assert.equal(await status(), 'clicked 1');
    const none = await rejectsWith(page.act({ selector: '#nope' }, { action: 'click' }), 'element_not_found');
    assert.equal(none.details.match_count, 0);
    const many = await rejectsWith(
      page.act({ selector: 'button' }, { action: 'click' }),
      'element_not_found',
    );
    assert.ok((many.details.match_count as number) > 1);
    await rejectsWith(page.act({ selector: 'button[' }, { action: 'click' }), 'invalid_selector');
  });

  test('by role and name: exact, substring, and ambiguity with candidates', async () => {
    const r = await page.act({ role: 'button', name: 'Change status', exact: true }, { action: 'click' });
    assert.equal(r.target.role, 'button');
    assert.equal(r.target.name, 'Change status');
    await page.act({ role: 'button', name: 'change stat' }, { action: 'click' });
    assert.equal(await status(), 'clicked 2');
    const err = await rejectsWith(
      page.act({ role: 'button', name: 'o' }, { action: 'click' }),
      'element_not_found',
    );
    assert.equal(err.details.reason, 'ambiguous');
    assert.ok(Array.isArray(err.details.candidates));
  });

  test('by role with context (nearest named ancestor)', async () => {
    await page.act({ selector: '#open-modal' }, { action: 'click' });
    const r = await page.act({ role: 'button', name: 'Close', context: 'Consent' }, { action: 'click' });
    assert.equal(r.status, 'executed');
  });

  test('by visible text', async () => {
    await page.act({ text: 'Clickable div' }, { action: 'click' });
    assert.equal(await status(), 'div clicked');
  });

  test('by position', async () => {
    const box = await page.evaluate(
      'test',
      () => {
        const r = document.getElementById('change')!.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      },
      null,
    );
    const r = await page.act(box, { action: 'click' });
    assert.deepEqual(r.target.point, box);
    assert.equal(await status(), 'clicked 1');
  });

  test('inside an iframe, by ref, at the right place', async () => {
    await load('frames.html');
    const r = await page.act({ element_ref: await refOf('Inner button') }, { action: 'click' });
    assert.equal(r.changed, true);
    const inner = await page.evaluate(
      'test',
      () =>
        (document.getElementById('inner') as HTMLIFrameElement).contentDocument!.getElementById(
          'inner-status',
        )!.textContent,
      null,
    );
    assert.equal(inner, 'inner clicked');
  });

  test('exactly one target kind', async () => {
    await rejectsWith(page.act({} as never, { action: 'click' }), 'invalid_request');
    await rejectsWith(
      page.act({ selector: '#a', text: 'b' } as never, { action: 'click' }),
      'invalid_request',
    );
  });
});

describe('actions', () => {
  beforeEach(() => load());

  test('click with click count and modifiers', async () => {
    await page.act({ selector: '#dbl' }, { action: 'click', click_count: 2 });
    assert.equal(await status(), 'double clicked');
    await page.act({ selector: '#mods' }, { action: 'click', modifiers: ['Shift'] });
    assert.equal(await status(), 'shift=true');
  });

  test('type appends, replace clears, submit presses Enter', async () => {
    const r = await page.act({ selector: '#name' }, { action: 'type', text: ' Lovelace' });
    assert.deepEqual(r.changes.value, { before: 'Ada', after: 'Ada Lovelace' });
    await page.act({ selector: '#name' }, { action: 'type', text: 'Grace', replace: true });
    assert.equal(
      await page.evaluate('test', () => (document.getElementById('name') as HTMLInputElement).value, null),
      'Grace',
    );
    await page.act({ selector: '#search' }, { action: 'type', text: 'cats', submit: true });
    assert.equal(await status(), 'searched cats');
  });

  test('a render the page defers by a task after typed text is in the receipt', async () => {
    await page.open(`${server.url}/fixtures/actions/deferred.html`);
    try {
      for (let i = 0; i < 5; i++) {
        const text = `q${i}`;
        const r = await page.act({ selector: '#q' }, { action: 'type', text, replace: true });
        assert.equal(r.changes.text_changed, true, `round ${i}: ${JSON.stringify(r.changes)}`);
        assert.ok(r.changes.dom_mutations > 0);
      }
    } finally {
      await load();
    }
  });

  test('typed text is an IME commit: trusted beforeinput and textInput reach the page, which may cancel it', async () => {
    // What document.execCommand('insertText') would not do (it fires neither event, so editors, input
    // masks and React's onBeforeInput never see the text): keeps typing on Input.insertText.
    // (The next test's beforeEach loads the form again.)
    await page.open(`${server.url}/fixtures/actions/editor-events.html`);
    await page.act({ selector: '#logged' }, { action: 'type', text: 'hi' });
    const log = await page.evaluate('test', () => document.getElementById('log')!.textContent, null);
    assert.deepEqual(log?.split('\n'), [
      'beforeinput true true insertText hi',
      'textInput true true  hi',
      'input true false insertText hi',
    ]);
    await page.act({ selector: '#digits' }, { action: 'type', text: '42' });
    const refused = await page.act({ selector: '#digits' }, { action: 'type', text: 'x7' });
    assert.deepEqual(refused.changes.value, { before: '42', after: '42' });
  });

  test('fill replaces the value and verifies it', async () => {
    const r = await page.act({ selector: '#notes' }, { action: 'fill', value: 'line one\nline two' });
    assert.equal(r.verified, true);
    assert.deepEqual(r.changes.value, { before: '', after: 'line one\nline two' });
    const empty = await page.act({ selector: '#name' }, { action: 'fill', value: '' });
    assert.equal(empty.verified, true);
  });

  test('a secret typed into a password field never appears in the receipt', async () => {
    const canary = 'canary-S3cr3t-42';
    const r = await page.act({ selector: '#pw' }, { action: 'fill', value: canary });
    assert.equal(r.verified, true);
    assert.ok(!JSON.stringify(r).includes(canary), JSON.stringify(r));
    assert.equal(r.changes.value?.after, '[redacted]');
  });

  test('press a key and a chord', async () => {
    await page.act({ selector: '#search' }, { action: 'fill', value: 'dogs' });
    await page.act({ selector: '#search' }, { action: 'press', key: 'Enter' });
    assert.equal(await status(), 'searched dogs');
    await page.act(undefined, { action: 'press', key: 'ControlOrMeta+A' });
  });

  test('select by label, value and index; multiple; unknown option refused', async () => {
    let r = await page.act({ selector: '#color' }, { action: 'select', labels: ['Green'] });
    assert.deepEqual(r.changes.value, { before: 'Red', after: 'Green' });
    r = await page.act({ selector: '#color' }, { action: 'select', values: ['b'] });
    assert.equal(r.changes.value?.after, 'Blue');
    r = await page.act({ selector: '#color' }, { action: 'select', indexes: [0] });
    assert.equal(r.changes.value?.after, 'Red');
    r = await page.act({ selector: '#tags' }, { action: 'select', labels: ['Alpha', 'Gamma'] });
    assert.equal(r.changes.value?.after, 'Alpha, Gamma');
    const err = await rejectsWith(
      page.act({ selector: '#color' }, { action: 'select', labels: ['Purple'] }),
      'element_not_found',
    );
    assert.equal(err.details.reason, 'no_such_option');
    await rejectsWith(
      page.act({ selector: '#name' }, { action: 'select', labels: ['x'] }),
      'unsupported_target',
    );
  });

  test('check and uncheck, including a visually hidden checkbox through its label', async () => {
    let r = await page.act({ selector: '#agree' }, { action: 'check' });
    assert.equal(r.verified, true);
    assert.deepEqual(r.changes.value, { before: false, after: true });
    r = await page.act({ selector: '#agree' }, { action: 'check' });
    assert.equal(r.verified, true);
    assert.match(r.hint ?? '', /already checked/);
    assert.equal(r.mode, 'none', 'nothing was sent');
    r = await page.act({ selector: '#agree' }, { action: 'uncheck' });
    assert.deepEqual(r.changes.value, { before: true, after: false });
    r = await page.act({ selector: '#fancy' }, { action: 'check' });
    assert.equal(r.verified, true);
  });

  test('hover and focus', async () => {
    const h = await page.act({ selector: '#change' }, { action: 'hover' });
    assert.equal(h.status, 'executed');
    const f = await page.act({ selector: '#name' }, { action: 'focus' });
    assert.equal(f.verified, true);
  });

  test('scroll an element by pages, the page, and into view', async () => {
    await page.act({ selector: '#scroller' }, { action: 'scroll', pages: 1 });
    const top = await page.evaluate('test', () => document.getElementById('scroller')!.scrollTop, null);
    assert.ok(top > 0, `scrollTop ${top}`);
    await page.act(undefined, { action: 'scroll', pages: 1 });
    await page.act({ selector: '#change' }, { action: 'scroll', into_view: true });
  });

  test('a scroll that cannot move says why: at the end already, or nothing to scroll', async () => {
    const down = await page.act({ selector: '#scroller' }, { action: 'scroll', pages: 100 });
    assert.equal(down.verified, true, 'to the bottom');
    const again = await page.act({ selector: '#scroller' }, { action: 'scroll', pages: 1 });
    assert.equal(again.verified, false);
    assert.match(again.hint ?? '', /at the bottom already/);
    // The wheel went out (the browser dropped it): trusted input, and the hint as a code for a door's own words.
    assert.equal(again.mode, 'trusted');
    assert.deepEqual(again.notes.hint, { code: 'scroll_at_end', params: { ends: 'bottom' } });
    const up = await page.act({ selector: '#scroller' }, { action: 'scroll', dy: -100_000 });
    assert.equal(up.verified, true, 'back to the top');
    const above = await page.act({ selector: '#scroller' }, { action: 'scroll', dy: -10 });
    assert.match(above.hint ?? '', /at the top already/);
    const button = await page.act({ selector: '#change' }, { action: 'scroll', pages: 1 });
    assert.equal(button.verified, false);
    assert.match(button.hint ?? '', /the element’s content fits, it has nothing to scroll/);
  });

  test('drag to another target', async () => {
    await page.act({ selector: '#drag' }, { action: 'drag', to: { selector: '#drop' } });
    assert.equal(await status(), 'dropped');
  });

  test('set files on a file input: only through the upload operation, which reads them back', async () => {
    const file = join(home, 'upload.txt');
    writeFileSync(file, 'hello');
    const refused = await rejectsWith(
      page.act({ selector: '#file' }, { action: 'set_files', files: [file] } as never),
      'invalid_request',
    );
    assert.match(refused.message, /page\.upload/);
    const u = await ops.upload.call(page, { target: { selector: '#file' }, files: [file] });
    assert.equal(await status(), 'files 1 upload.txt');
    assert.equal(u.receipt.action, 'set_files');
    assert.equal(u.filesLength, 1);
    assert.deepEqual(u.fileNames, ['upload.txt']);
  });

  test('files onto an element that is not a file input: the code of every wrong element kind', async () => {
    const file = join(home, 'upload.txt');
    writeFileSync(file, 'hello');
    const upload = await rejectsWith(
      ops.upload.call(page, { target: { selector: '#change' }, files: [file] }),
      'unsupported_target',
    );
    assert.equal(upload.details.reason, 'not_file_input');
    const select = await rejectsWith(
      page.act({ selector: '#change' }, { action: 'select', values: ['x'] }),
      'unsupported_target',
    );
    assert.equal(select.details.reason, 'not_select');
  });
});

describe('guard refusals', () => {
  beforeEach(() => load());

  test('hidden', async () => {
    const err = await rejectsWith(
      page.act({ selector: '#hidden' }, { action: 'click' }, { timeoutMs: 2500 }),
      'element_not_actionable',
    );
    assert.equal(err.details.reason, 'hidden');
  });

  test('disabled', async () => {
    const err = await rejectsWith(
      page.act({ selector: '#disabled' }, { action: 'click' }, { timeoutMs: 2500 }),
      'element_not_actionable',
    );
    assert.equal(err.details.reason, 'disabled');
    assert.equal(await status(), 'idle', 'nothing was dispatched');
  });

  test('read-only and not editable', async () => {
    const ro = await rejectsWith(
      page.act({ selector: '#ro' }, { action: 'type', text: 'x' }),
      'element_not_actionable',
    );
    assert.equal(ro.details.reason, 'readonly');
    const ne = await rejectsWith(
      page.act({ selector: '#change' }, { action: 'fill', value: 'x' }),
      'element_not_actionable',
    );
    assert.equal(ne.details.reason, 'not_editable');
  });

  test('obscured names the covering element with its ref', async () => {
    await page.act({ selector: '#open-modal' }, { action: 'click' });
    const err = await rejectsWith(
      page.act({ selector: '#change' }, { action: 'click' }, { timeoutMs: 2500 }),
      'element_not_actionable',
    );
    assert.equal(err.details.reason, 'obscured');
    const cover = err.details.covered_by as { role: string; name: string; element_ref: string | null };
    assert.equal(cover.role, 'dialog');
    assert.match(cover.name, /Consent/);
    assert.match(String(cover.element_ref), /^e\d+$/);
    assert.equal(await status(), 'idle');
  });

  test('waits for actionability up to the deadline', async () => {
    await page.act({ selector: '#show-later' }, { action: 'click' });
    const r = await page.act({ selector: '#later' }, { action: 'click' });
    assert.equal(r.status, 'executed');
    assert.equal(await status(), 'later clicked');
  });

  test('stale: removed element and earlier document', async () => {
    const ref = await refOf('Change status');
    await page.evaluate('test', () => document.getElementById('change')!.remove(), null);
    const gone = await rejectsWith(page.act({ element_ref: ref }, { action: 'click' }), 'element_not_found');
    assert.equal(gone.details.reason, 'stale_ref');
    const ref2 = await refOf('Do nothing');
    await load();
    const old = await rejectsWith(page.act({ element_ref: ref2 }, { action: 'click' }), 'element_not_found');
    assert.equal(old.details.reason, 'stale_ref');
  });
});

describe('receipts', () => {
  beforeEach(() => load());

  test('equal-length text replacement is a change', async () => {
    await page.act({ selector: '#swap' }, { action: 'click' });
    const r = await page.act({ selector: '#swap' }, { action: 'click' });
    assert.equal(r.changed, true);
    assert.equal(r.changes.text_changed, true);
    assert.equal(r.change_status, 'observed');
  });

  test('a click that changes nothing says so, without calling it a failure', async () => {
    const r = await page.act({ selector: '#noop' }, { action: 'click' });
    assert.equal(r.status, 'executed');
    assert.equal(r.changed, false);
    assert.equal(r.change_status, 'not_observed');
    assert.match(r.hint ?? '', /does not mean the action failed/);
    assert.ok(r.observation.window_ms <= r.observation.cap_ms + 100);
  });

  test('a popup appears as a new page', async () => {
    const r = await page.act({ selector: '#popup' }, { action: 'click' });
    assert.equal(r.changes.new_pages.length, 1);
    assert.deepEqual(r.changes.tab_count, { before: 1, after: 2 });
    await session.closePage(r.changes.new_pages[0]!.page_id);
  });

  test('a dialog is reported', async () => {
    const r = await page.act({ selector: '#alert' }, { action: 'click' });
    assert.deepEqual(r.dialog, { type: 'alert', message: 'hello from the page' });
    assert.equal(await status(), 'after alert');
  });

  test('a download is reported', async () => {
    const r = await page.act({ selector: '#download' }, { action: 'click' });
    assert.equal(r.downloads.length, 1);
    assert.equal(r.downloads[0]!.suggested_filename, 'note.txt');
  });

  test('navigation and URL change', async () => {
    await load('frames.html');
    await page.open(`${server.url}/fixtures/nav/a.html`);
    const r = await page.act({ role: 'link', name: 'to B' }, { action: 'click' });
    assert.equal(r.changes.navigated, true);
    assert.equal(r.changes.url?.after, `${server.url}/fixtures/nav/b.html`);
  });

  test('a verify condition sets verified true or false, never failing the action', async () => {
    const ok = await page.act(
      { selector: '#change' },
      { action: 'click' },
      { verify: { text_present: 'clicked 1' } },
    );
    assert.equal(ok.verified, true);
    assert.equal(ok.verification?.satisfied, true);
    const no = await page.act(
      { selector: '#noop' },
      { action: 'click' },
      { verify: { text_present: 'never shown' }, timeoutMs: 1500 },
    );
    assert.equal(no.status, 'executed');
    assert.equal(no.verified, false);
    assert.equal(no.verification?.satisfied, false);
    // A malformed condition is refused before anything is dispatched.
    await rejectsWith(
      page.act({ selector: '#change' }, { action: 'click' }, { verify: {} }),
      'invalid_request',
    );
    assert.equal(await status(), 'clicked 1');
  });

  test('trusted input by default; synthetic events only when asked', async () => {
    const trusted = await page.act({ selector: '#change' }, { action: 'click' });
    assert.equal(trusted.mode, 'trusted');
    await page.act({ selector: '#open-modal' }, { action: 'click' });
    // Covered, so a trusted click is refused; a synthetic click was asked for explicitly and goes through.
    await rejectsWith(
      page.act({ selector: '#change' }, { action: 'click' }, { timeoutMs: 2500 }),
      'element_not_actionable',
    );
    const synthetic = await page.act({ selector: '#change' }, { action: 'click', synthetic: true });
    assert.equal(synthetic.mode, 'synthetic');
    assert.equal(await status(), 'clicked 2');
  });

  test('optional snapshot diff', async () => {
    await page.snapshot();
    const r = await page.act({ selector: '#change' }, { action: 'click' }, { snapshot_diff: true });
    assert.match(r.diff ?? '', /clicked 1/);
  });
});

// select runs in the guard's wake (one round trip, src/engine/actions/perform.ts): the receipt
// still reports what the page did after its handlers ran, and a refused guard changes nothing.
describe('select receipts', () => {
  const url = `${server.url}/fixtures/actions/select.html`;
  const read = <T>(fn: () => T) => page.evaluate('test', fn, null);

  test('a render deferred by a timer turn is in the receipt; the change fires once', async () => {
    await page.open(url);
    // By ref on a new document: the action script is not in the page yet (installed on the way).
    const r = await page.act({ element_ref: await refOf('Size') }, { action: 'select', labels: ['Large'] });
    assert.equal(r.verified, true);
    assert.deepEqual(r.changes.value, { before: 'Small', after: 'Large' });
    assert.equal(r.changes.text_changed, true);
    assert.equal(r.change_status, 'observed');
    assert.equal(await read(() => document.getElementById('status')!.textContent), 'size l');
    assert.equal(await read(() => (window as unknown as { changes: number }).changes), 1);
  });

  test('a disabled select is refused and keeps its value; enabled later, it is selected once', async () => {
    await page.open(url);
    const err = await rejectsWith(
      page.act({ selector: '#later' }, { action: 'select', labels: ['Two'] }, { timeoutMs: 900 }),
      'element_not_actionable',
    );
    assert.equal(err.details.reason, 'disabled');
    assert.equal(await read(() => (document.getElementById('later') as HTMLSelectElement).value), '1');
    assert.equal(await read(() => (window as unknown as { laterChanges?: number }).laterChanges ?? 0), 0);
    // Enabled while the action waits: the first guard fails, a later one passes.
    await read(() => {
      setTimeout(() => {
        (document.getElementById('later') as HTMLSelectElement).disabled = false;
      }, 150);
    });
    const r = await page.act({ selector: '#later' }, { action: 'select', labels: ['Two'] });
    assert.deepEqual(r.changes.value, { before: 'One', after: 'Two' });
    assert.equal(await read(() => (window as unknown as { laterChanges?: number }).laterChanges ?? 0), 1);
  });

  test('an unknown option is refused before anything changes', async () => {
    await page.open(url);
    const err = await rejectsWith(
      page.act({ selector: '#size' }, { action: 'select', labels: ['Huge'] }),
      'element_not_found',
    );
    assert.equal(err.details.reason, 'no_such_option');
    assert.equal(await read(() => (window as unknown as { changes?: number }).changes ?? 0), 0);
    // The window's read behind the refused step stopped the observer: the next action still observes.
    const r = await page.act({ selector: '#size' }, { action: 'select', labels: ['Medium'] });
    assert.equal(r.changes.text_changed, true);
  });

  test('a dialog the change opens is held and reported', async () => {
    const s = await engine.startSession();
    s.setDialogPolicy('hold');
    const p = s.page();
    await p.open(url);
    const r = await p.act({ selector: '#asks' }, { action: 'select', labels: ['Why'] });
    assert.deepEqual(r.dialog, { type: 'alert', message: 'picked y' });
    assert.ok(r.warnings.some((w) => /held/.test(w)));
    await p.handleDialog({ accept: true });
    assert.equal(
      await p.evaluate('test', () => document.getElementById('status')!.textContent, null),
      'asked',
    );
    await engine.closeSession(s.id);
  });
});

// Elements an iframe's document made and this one shows, moved with append or taken with adoptNode
// (test/fixtures/pages/snapshot/realms.html): instanceof against this window fails for them, and the
// guard, the values and the receipt must not care.
describe('elements made in another realm', () => {
  test('click, type, fill a password, select and check by ref: receipts as for this realm', async () => {
    await page.open(`${server.url}/fixtures/snapshot/realms.html`);
    const snap = await page.snapshot();
    const ref = (line: string) => {
      const m = new RegExp(`${line} \\[ref=(e\\d+)\\]`).exec(snap.text);
      assert.ok(m, `no ${line} in:\n${snap.text}`);
      return { element_ref: m[1]! };
    };
    for (const w of ['Foreign', 'Adopted']) {
      const button = ref(`button "${w} button"`);
      let r = await page.act(button, { action: 'click' });
      assert.deepEqual([r.status, r.target.element_ref, r.changed], ['executed', button.element_ref, true]);
      assert.equal(await status(), `${w} clicked`);
      r = await page.act(ref(`textbox "${w} name"`), { action: 'type', text: 'Ada' });
      assert.deepEqual(r.changes.value, { before: '', after: 'Ada' });
      const canary = `QZXact${w}9`;
      r = await page.act(ref(`textbox "${w} password"`), { action: 'fill', value: canary });
      assert.equal(r.verified, true);
      assert.ok(!JSON.stringify(r).includes(canary), JSON.stringify(r));
      assert.equal(r.changes.value?.after, '[redacted]');
      r = await page.act(ref(`combobox "${w} color"`), { action: 'select', labels: ['Blue'] });
      assert.deepEqual(r.changes.value, { before: 'Red', after: 'Blue' });
      assert.equal(await status(), `${w} picked b`);
      r = await page.act(ref(`checkbox "${w} check"`), { action: 'check' });
      assert.equal(r.verified, true);
      assert.deepEqual(r.changes.value, { before: false, after: true });
    }
  });

  test('by visible text, picked by text, and read: options and the text of an adopted subtree', async () => {
    await page.open(`${server.url}/fixtures/snapshot/realms.html`);
    const r = await page.act({ text: 'Foreign button' }, { action: 'click' });
    assert.equal(r.status, 'executed');
    assert.equal(await status(), 'Foreign clicked');
    const picked = await ops.pick.call(page, { text: 'Adopted offer' });
    assert.deepEqual([picked.tag, picked.matched], ['a', 1]);
    const options = await ops.readOneElement.call(page, {
      target: { selector: '#Adopted-sel' },
      kind: 'options',
    });
    assert.deepEqual(options.value, ['Red', 'Blue']);
    // The rendered text with the shadow root's, as for this realm's elements (not textContent).
    const text = await ops.readPageText.call(page, { selector: '#Adopted' });
    assert.match(text.content, /Adopted heading[\s\S]*Adopted shadow button/);
  });
});

describe('origin policy before dispatch', () => {
  test('no action on a page or in a frame whose origin is not allowed', async () => {
    const s = await engine.startSession({ policy: { allowed_origins: [server.url], subresources: 'allow' } });
    const p = s.page();
    await p.open(`${server.url}/fixtures/actions/form.html`);
    const ok = await p.act({ selector: '#change' }, { action: 'click' });
    assert.equal(ok.status, 'executed');
    // A disallowed navigation is stopped at the network layer; the page stays where it was.
    await rejectsWith(p.open(`${server.altUrl}/fixtures/actions/form.html`), 'permission_denied');
    assert.equal(p.url(), `${server.url}/fixtures/actions/form.html`);
    await engine.closeSession(s.id);
  });
});

describe('held dialogs', () => {
  test('an action is refused while a held dialog blocks the page, and works once it is answered', async () => {
    const s = await engine.startSession();
    s.setDialogPolicy('hold');
    const p = s.page();
    await p.open(`${server.url}/fixtures/actions/form.html`);
    const r = await p.act({ selector: '#alert' }, { action: 'click' });
    assert.equal(r.dialog?.type, 'alert');
    assert.ok(r.warnings.some((w) => /held/.test(w)));
    const err = await rejectsWith(p.act({ selector: '#change' }, { action: 'click' }), 'not_ready');
    assert.equal(err.details.reason, 'dialog_open');
    await p.handleDialog({ accept: true });
    await p.act({ selector: '#change' }, { action: 'click' });
    assert.equal(
      await p.evaluate('test', () => document.getElementById('status')!.textContent, null),
      'clicked 1',
    );
    await engine.closeSession(s.id);
  });
});

describe('blocked requests in receipts', () => {
  test('a popup to a disallowed origin shows as blocked in the receipt', async () => {
    const s = await engine.startSession({ policy: { allowed_origins: [server.url], subresources: 'allow' } });
    const p = s.page();
    await p.open(`${server.url}/fixtures/actions/form.html`);
    await p.evaluate(
      'test',
      (alt: string) => {
        const a = document.getElementById('popup') as HTMLAnchorElement;
        a.href = `${alt}/fixtures/actions/other.html`;
      },
      server.altUrl,
    );
    const r = await p.act({ selector: '#popup' }, { action: 'click' });
    assert.ok(
      r.blocked_requests.some((b) => b.origin === server.altUrl),
      JSON.stringify(r.blocked_requests),
    );
    assert.equal(r.changed, true);
    await engine.closeSession(s.id);
  });
});
