import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { toPageSnapshotV1 } from '../src/doors/provider/page-snapshot.js';
import type { Page } from '../src/index.js';
import type { SnapshotNode, SnapshotResult } from '../src/snapshot/index.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, session } = await engineTestEnv();

const fixture = (name: string) => `${server.url}/fixtures/snapshot/${name}`;

async function openPage(name: string): Promise<Page> {
  const page = await session.newPage();
  await page.open(fixture(name));
  return page;
}

/** Waits (up to 5 s) until the page has at least `n` frames, the main one included. */
async function framesLoaded(page: Page, n: number): Promise<void> {
  for (let i = 0; i < 50 && page.backend.frames().length < n; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok(
    page.backend.frames().length >= n,
    `only ${page.backend.frames().length} of ${n} frames loaded in 5 s`,
  );
}

function find(s: SnapshotResult, pred: (n: SnapshotNode) => boolean): SnapshotNode | undefined {
  const stack = [s.model];
  while (stack.length) {
    const n = stack.shift()!;
    if (pred(n)) return n;
    stack.push(...n.children);
  }
  return undefined;
}

function byName(s: SnapshotResult, role: string, name: string): SnapshotNode {
  const n = find(s, (x) => x.role === role && x.name === name);
  assert.ok(n, `no ${role} "${name}" in:\n${s.text}`);
  return n;
}

function assertInvariants(s: SnapshotResult): void {
  for (const e of s.elements)
    assert.ok(s.text.includes(`[ref=${e.element_ref}]`), `ref ${e.element_ref} missing from text`);
  // The provider door's form is built from the model, nothing else.
  assert.equal(toPageSnapshotV1(s.model).format, 'jcode.page_snapshot.v1');
}

test('injected bundle is fresh (run npm run build:injected after editing src/snapshot/injected)', () => {
  const r = spawnSync(process.execPath, ['scripts/build-injected.mjs', '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

describe('page model', () => {
  test('roles, names, states, values, text, tables, pseudo text, promoted clickables; hidden content excluded', async () => {
    const page = await openPage('basic.html');
    const s = await page.snapshot();
    assertInvariants(s);
    assert.equal(s.title, 'Basic fixture');
    byName(s, 'link', 'Home');
    byName(s, 'link', 'Docs and API');
    const h1 = byName(s, 'heading', 'Welcome to the fixture');
    assert.equal(h1.states?.level, 1);
    assert.match(s.text, /Q: pseudo text \(end\)/);
    assert.doesNotMatch(s.text, /hidden display none/);
    assert.doesNotMatch(s.text, /hidden visibility/);
    assert.match(s.text, /but visible child/);
    assert.doesNotMatch(s.text, /secret details text/, 'closed <details> content is not rendered');
    const email = byName(s, 'textbox', 'Email');
    assert.equal(email.value, 'a@b.c');
    assert.equal(email.states?.required, true);
    assert.equal(byName(s, 'checkbox', 'Remember me').states?.checked, true);
    assert.equal(byName(s, 'combobox', 'Color').value, 'Green');
    const send = byName(s, 'button', 'Send');
    assert.equal(send.states?.disabled, true);
    assert.equal(send.actionable, false);
    assert.equal(s.elements.find((e) => e.element_ref === send.element_ref)?.enabled, false);
    byName(s, 'button', 'Go');
    const card = find(s, (n) => n.clickable === true && n.name === 'Clickable card');
    assert.ok(card?.element_ref, 'cursor:pointer div promoted');
    assert.match(
      s.text,
      new RegExp(`generic "Clickable card" \\[clickable\\] \\[ref=${card.element_ref}\\]`),
    );
    assert.ok(find(s, (n) => n.clickable === true && n.name === 'onclick div'));
    assert.ok(find(s, (n) => n.clickable === true && n.name === 'focusable span'));
    const table = byName(s, 'table', 'Prices');
    const rows = [...table.children].filter((c) => c.role === 'row');
    assert.equal(rows.length, 3);
    assert.deepEqual(
      rows[0]!.children.map((c) => [c.role, c.name]),
      [
        ['columnheader', 'Item'],
        ['columnheader', 'Price'],
      ],
    );
    assert.deepEqual(
      rows[1]!.children.map((c) => c.name),
      ['Apple', '1.20'],
    );
    assert.match(s.text, /row \(header\): Item \| Price/);
    assert.match(s.text, /row: Apple \| 1\.20/);
    // A row with a control inside prints cell by cell; text cells keep their text.
    assert.match(s.text, /row\n\s+Pear\n\s+button "Buy pear"/);
    // A display:none radio is reachable through its label, which stands in with the radio's state.
    const hiddenRadio = byName(s, 'radio', 'Hidden radio plan');
    assert.equal(hiddenRadio.tag, 'label');
    assert.equal(hiddenRadio.states?.checked, true);
    assert.equal(hiddenRadio.actionable, true);
    // A visually hidden checkbox stays actionable through its visible label.
    assert.equal(byName(s, 'checkbox', 'Visually hidden checkbox').actionable, true);
    // aria-owns moves the owned element under its owner.
    const owner = byName(s, 'listbox', 'Owner');
    assert.ok(owner.children.some((c) => c.role === 'option' && c.name === 'Owned option'));
    const editable = find(s, (n) => n.role === 'textbox' && n.tag === 'div');
    assert.equal(editable?.text, 'Editable area');
    // Selector hints and the flat list.
    const emailEl = s.elements.find((e) => e.element_ref === email.element_ref);
    assert.equal(emailEl?.selector_hint, '#email');
    // jcode form (the provider door's): flat, linked by ids.
    const v1 = toPageSnapshotV1(s.model);
    const ids = new Set(v1.nodes.map((n) => n.node_id));
    for (const id of v1.root.children) assert.ok(ids.has(id));
    await page.close();
  });

  test('pseudo text from readable and cross-origin sheets; a sheet that failed to load is known to have no rules', async () => {
    const page = await openPage('stylesheets.html');
    const s = await page.snapshot();
    assert.match(s.text, /Near: inline rule/);
    // A loaded cross-origin sheet cannot be read: its ::after must still be found.
    assert.match(s.text, /cross-origin rule \(from afar\)/);
    // The init script's record, which lets the walker skip pseudo reads for a sheet that never loaded.
    const marks = await page.evaluate(
      'marks',
      () => {
        const failed = (globalThis as unknown as Record<symbol, (el: Element) => boolean>)[
          Symbol.for('tabwright.failedStylesheet')
        ];
        return ['gone', 'far'].map((id) => failed?.(document.getElementById(id)!) ?? null);
      },
      null,
    );
    assert.deepEqual(marks, [true, false]);
    await page.close();
  });

  test("a loaded cross-origin sheet whose @import failed keeps its pseudo text (its link fired 'error' too)", async () => {
    const page = await openPage('stylesheet-import.html');
    // Wait for both links to settle (the far one fires error once its import fails).
    await page.wait({
      js_predicate:
        "document.styleSheets.length === 2 && performance.getEntriesByType('resource').length >= 2",
    });
    const s = await page.snapshot();
    assert.match(s.text, /sheet with a failed import \(imported afar\)/);
    await page.close();
  });

  test('live form values come from DOM properties', async () => {
    const page = await openPage('basic.html');
    await page.evaluate(
      'set',
      () => {
        (document.getElementById('email') as HTMLInputElement).value = 'typed@example.com';
        (document.querySelector('input[type=checkbox]') as HTMLInputElement).checked = false;
        (document.querySelector('select') as HTMLSelectElement).selectedIndex = 0;
      },
      null,
    );
    const s = await page.snapshot();
    assert.equal(byName(s, 'textbox', 'Email').value, 'typed@example.com');
    assert.equal(byName(s, 'checkbox', 'Remember me').states?.checked, false);
    assert.equal(byName(s, 'combobox', 'Color').value, 'Red');
    assert.match(s.text, /value="typed@example.com"/);
    await page.close();
  });

  test('iframes: same- and cross-origin content under the iframe node, nested', async () => {
    const page = await session.newPage();
    await page.open(`${fixture('iframes.html')}?alt=${encodeURIComponent(server.altUrl)}`);
    // Wait for the cross-origin frame and its leaf to load.
    await framesLoaded(page, 5);
    const s = await page.snapshot();
    assertInvariants(s);
    const same = byName(s, 'iframe', 'Same origin frame');
    const cross = byName(s, 'iframe', 'Cross origin frame');
    for (const f of [same, cross]) {
      const btn = [...walk(f)].find((n) => n.role === 'button' && n.name === 'Inner button');
      assert.ok(btn, `button inside ${f.name}`);
      assert.ok(btn.frame, 'frame id on nodes inside frames');
      const leaf = [...walk(f)].find((n) => n.role === 'link' && n.name === 'Leaf link');
      assert.ok(leaf, `nested leaf frame inside ${f.name}`);
    }
    assert.equal(s.frames, 5);
    // Refs inside a cross-origin frame resolve there.
    const crossBtn = [...walk(cross)].find((n) => n.role === 'button')!;
    const tag = await page.evaluateRef(crossBtn.element_ref!, '(el) => el.id + "@" + location.host', null);
    assert.equal(tag, `inner-btn@localhost:${server.port}`);
    // Scope to an iframe ref.
    const scoped = await page.snapshot({ scope_ref: cross.element_ref });
    assert.match(scoped.text, /Inner button/);
    assert.doesNotMatch(scoped.text, /Top button/);
    await page.close();
  });

  test('iframes: a later snapshot places frames without asking the parent again; a new iframe is looked up', async () => {
    const page = await session.newPage();
    await page.open(fixture('iframes.html'));
    await framesLoaded(page, 3);
    // Count the round trips that find a frame's iframe element in its parent document.
    const proto = Object.getPrototypeOf(page.backend.frames()[1]!) as {
      evaluateOnOwner: (...a: unknown[]) => Promise<unknown>;
    };
    const original = proto.evaluateOnOwner;
    let lookups = 0;
    proto.evaluateOnOwner = function (this: unknown, ...a: unknown[]) {
      lookups++;
      return original.apply(this, a);
    };
    const innerButton = (s: SnapshotResult, frameName: string) =>
      [...walk(byName(s, 'iframe', frameName))].some((n) => n.role === 'button' && n.name === 'Inner button');
    try {
      const first = await page.snapshot();
      assert.ok(innerButton(first, 'Same origin frame'));
      assert.ok(lookups >= 2, `the first snapshot looks up both frames (${lookups})`);
      lookups = 0;
      const second = await page.snapshot();
      assert.ok(innerButton(second, 'Same origin frame'), 'placed from what the first snapshot found');
      assert.ok(second.text.includes('Leaf link'));
      assert.equal(lookups, 0);
      // A new iframe element is a new frame: looked up, placed under the new element.
      const swap = new Function(
        '_',
        `const old = document.getElementById('same'); const n = old.cloneNode(); n.title = 'Replaced frame';
         return new Promise((done) => { n.onload = () => done(true); old.replaceWith(n); });`,
      ) as (a: null) => Promise<boolean>;
      await page.backend.frames()[0]!.evaluate(swap, null, 10_000);
      await framesLoaded(page, 3);
      const third = await page.snapshot();
      assert.ok(innerButton(third, 'Replaced frame'), third.text);
      assert.ok(lookups >= 1);
    } finally {
      proto.evaluateOnOwner = original;
      await page.close();
    }
  });

  test('iframes: a blank frame found empty is not probed again while its parent shows it blank; content written later is seen', async () => {
    const page = await session.newPage();
    await page.open(fixture('iframes.html'));
    await framesLoaded(page, 3);
    // #cross has no src here: an about:blank frame with nothing in it.
    const blank = page.backend.frames().find((f) => f.url() === 'about:blank')!;
    assert.ok(blank, 'the blank frame');
    const own = blank as unknown as { evaluate: (...a: unknown[]) => Promise<unknown> };
    const original = own.evaluate;
    let calls = 0;
    own.evaluate = function (this: unknown, ...a: unknown[]) {
      calls++;
      return original.apply(this, a);
    };
    try {
      const first = await page.snapshot();
      assert.ok(calls >= 1, 'the first snapshot probes the blank frame');
      calls = 0;
      const second = await page.snapshot();
      assert.equal(calls, 0, 'the parent walk showed it blank: no round trip to the frame');
      assert.equal(second.text, first.text);
      assert.equal(second.frames, first.frames);
      // Filled by its parent's script: no longer blank, so it is read again.
      await page.evaluate(
        'fill',
        () => {
          const doc = (document.getElementById('cross') as HTMLIFrameElement).contentDocument!;
          doc.body.innerHTML = '<button>Written later</button>';
        },
        null,
      );
      const third = await page.snapshot();
      const cross = byName(third, 'iframe', 'Cross origin frame');
      assert.ok(
        [...walk(cross)].some((n) => n.role === 'button' && n.name === 'Written later'),
        third.text,
      );
      assert.ok(calls >= 1);
    } finally {
      own.evaluate = original;
      await page.close();
    }
  });

  test('iframes: a later snapshot walks same-origin frames inside their parent walk (live content, refs of their own); a cross-origin frame and a hidden blank one are handled as before', async () => {
    const page = await session.newPage();
    await page.open(`${fixture('iframes.html')}?alt=${encodeURIComponent(server.altUrl)}`);
    await framesLoaded(page, 5);
    // A hidden blank iframe: the parent's walk never reaches it, yet can tell it is still blank.
    await page.evaluate(
      'hidden blank frame',
      () => {
        const f = document.createElement('iframe');
        f.style.display = 'none';
        document.body.append(f);
      },
      null,
    );
    await framesLoaded(page, 6);
    const main = page.backend.frames()[0]!;
    const proto = Object.getPrototypeOf(main) as { evaluate: (...a: unknown[]) => Promise<unknown> };
    const original = proto.evaluate;
    const asked: string[] = [];
    proto.evaluate = function (this: typeof main, ...a: unknown[]) {
      if (this !== main) asked.push(this.url() || '(blank)');
      return original.apply(this, a);
    };
    const inSame = (s: SnapshotResult) => [...walk(byName(s, 'iframe', 'Same origin frame'))];
    try {
      const first = await page.snapshot();
      assert.ok(asked.length >= 4, `the first snapshot asks every frame itself (${asked.join(', ')})`);
      asked.length = 0;
      const second = await page.snapshot();
      assert.equal(second.text, first.text);
      assert.equal(second.frames, first.frames);
      // Only the cross-origin frame is asked (its parent cannot read it); its own leaf frame is walked
      // inside its walk, the same-origin frames inside the page's.
      assert.deepEqual(
        asked.map((u) => new URL(u).host),
        [new URL(server.altUrl).host],
        asked.join(', '),
      );
      assert.ok(inSame(second).some((n) => n.role === 'link' && n.name === 'Leaf link'));
      // What the frame shows now, not what it showed: content added to it is in the next snapshot.
      await page.evaluate(
        'add to frame',
        () => {
          const doc = (document.getElementById('same') as HTMLIFrameElement).contentDocument!;
          doc.body.insertAdjacentHTML('beforeend', '<button id="later">Added later</button>');
        },
        null,
      );
      const third = await page.snapshot();
      const added = inSame(third).find((n) => n.role === 'button' && n.name === 'Added later');
      assert.ok(added?.element_ref, third.text);
      const inner = inSame(third).find((n) => n.role === 'button' && n.name === 'Inner button')!;
      assert.equal(inner.element_ref, inSame(first).find((n) => n.name === 'Inner button')!.element_ref);
      // The refs are the frame's own: they resolve in that frame, to those elements.
      for (const [n, id] of [
        [added, 'later'],
        [inner, 'inner-btn'],
      ] as const) {
        const where = await page.evaluateRef(
          n!.element_ref!,
          '(el) => el.id + "@" + location.pathname',
          null,
        );
        assert.equal(where, `${id}@/fixtures/snapshot/frame-inner.html`);
      }
    } finally {
      proto.evaluate = original;
      await page.close();
    }
  });

  test("frame_origins: a blank or srcdoc frame is judged by its parent's origin, not read for its about: URL", async () => {
    const page = await session.newPage();
    try {
      await page.open(`${fixture('blank-frames.html')}?alt=${encodeURIComponent(server.altUrl)}`);
      await framesLoaded(page, 6);
      const all = await page.snapshot();
      assert.match(all.text, /Blank text of the other origin/, 'without a narrower list every frame is read');
      // Which frames the snapshot asks itself (the walker runs in them).
      const frames = page.backend.frames();
      const proto = Object.getPrototypeOf(frames[0]!) as { evaluate: (...a: unknown[]) => Promise<unknown> };
      const original = proto.evaluate;
      const asked = new Set<unknown>();
      proto.evaluate = function (this: unknown, ...a: unknown[]) {
        asked.add(this);
        return original.apply(this, a);
      };
      let narrowed: SnapshotResult;
      try {
        narrowed = await page.snapshot({ frame_origins: [server.url] });
      } finally {
        proto.evaluate = original;
      }
      const other = frames.find((f) => f.url().startsWith(server.altUrl))!;
      const inOther = frames.filter((f) => f.parentId === other.id);
      assert.equal(inOther.length, 2, 'the other origin has a blank and a srcdoc child');
      for (const f of [other, ...inOther])
        assert.ok(!asked.has(f), `a frame of the outside origin is never asked (${f.url()})`);
      for (const own of ['Blank text of the top', 'Srcdoc text of the top'])
        assert.ok(
          narrowed.text.includes(own),
          `the top's own blank frames are read: ${own}\n${narrowed.text}`,
        );
      for (const other of [
        'Text of the other origin',
        'Blank text of the other origin',
        'Srcdoc text of the other origin',
      ])
        assert.ok(
          !narrowed.text.includes(other),
          `an outside frame's blank child is not read: ${other}\n${narrowed.text}`,
        );
    } finally {
      await page.close();
    }
  });

  test('shadow DOM: open roots with slots, closed roots', async () => {
    const page = await openPage('shadow.html');
    const s = await page.snapshot();
    assertInvariants(s);
    byName(s, 'heading', 'Slotted title');
    byName(s, 'button', 'Open shadow button');
    assert.match(s.text, /Open shadow text/);
    const closed = byName(s, 'button', 'Closed shadow button');
    assert.equal(byName(s, 'textbox', 'Closed input').value, 'inside');
    const text = await page.evaluateRef(closed.element_ref!, '(el) => el.textContent', null);
    assert.equal(text, 'Closed shadow button');
    await page.close();
  });

  test("elements made in another realm (an iframe's document), moved or adopted here, are walked like this realm's; secrets stay redacted", async () => {
    const page = await openPage('realms.html');
    const WHO = ['Native', 'Foreign', 'Adopted'];
    // The fixture crosses realms for real: instanceof against this window fails for the moved ones.
    const sameRealm = await page.evaluate(
      'test',
      (who: string[]) => who.map((w) => document.getElementById(`${w}-btn`) instanceof HTMLElement),
      WHO,
    );
    assert.deepEqual(sameRealm, [true, false, false]);
    await page.evaluate(
      'test',
      (who: string[]) => {
        for (const w of who) {
          (document.getElementById(`${w}-name`) as HTMLInputElement).value = `name of ${w}`;
          (document.getElementById(`${w}-pw`) as HTMLInputElement).value = `QZXrealm${w}9`;
        }
      },
      WHO,
    );
    const s = await page.snapshot();
    assertInvariants(s);
    assert.ok(!JSON.stringify(s).includes('QZXrealm'), 'a password value leaked');
    for (const w of WHO) {
      assert.equal(byName(s, 'textbox', `${w} password`).value, '[redacted]');
      assert.equal(byName(s, 'textbox', `${w} name`).value, `name of ${w}`);
      // Pseudo text from that realm's stylesheet (a scoped snapshot reads every element's, a whole one not).
      assert.match(s.text, new RegExp(`\\n ${w} pseudo text\\n`));
    }
    // Each section, scoped (the adopted one's root is itself from the other realm), reads as the native one.
    const scoped = async (w: string) => {
      const part = await page.snapshot({ scope_selector: `#${w}` });
      assert.ok(!JSON.stringify(part).includes('QZXrealm'), `a password value leaked from #${w}`);
      return part.text.replaceAll(w, 'W').replace(/\[ref=e\d+\]/g, '[ref]');
    };
    const native = await scoped('Native');
    assert.match(native, /button "W shadow button" \[ref\]/);
    for (const w of ['Foreign', 'Adopted']) assert.equal(await scoped(w), native, `#${w}`);
    await page.close();
  });

  test('modal occlusion: covered elements are not actionable', async () => {
    const page = await openPage('modal.html');
    let s = await page.snapshot();
    const behind = byName(s, 'button', 'Behind button');
    assert.equal(behind.actionable, false);
    assert.equal(behind.covered, true);
    assert.match(s.text, /button "Behind button" \[covered\]/);
    assert.equal(byName(s, 'button', 'Accept').actionable, true);
    // A native modal dialog makes everything outside it inert, even off-screen.
    await page.evaluate(
      'modal',
      () => {
        document.getElementById('overlay')!.remove();
        (document.getElementById('dlg') as HTMLDialogElement).showModal();
      },
      null,
    );
    s = await page.snapshot();
    assert.equal(byName(s, 'button', 'Dialog button').actionable, true);
    assert.equal(byName(s, 'button', 'Behind button').actionable, false);
    assert.equal(byName(s, 'button', 'Far button').actionable, false);
    await page.evaluate('close', () => (document.getElementById('dlg') as HTMLDialogElement).close(), null);
    s = await page.snapshot();
    assert.equal(byName(s, 'button', 'Behind button').actionable, true);
    assert.equal(byName(s, 'button', 'Far button').actionable, true);
    await page.close();
  });
});

function* walk(n: SnapshotNode): Generator<SnapshotNode> {
  yield n;
  for (const c of n.children) yield* walk(c);
}

describe('refs', () => {
  test('reorder and rename keep refs; removal and navigation make them stale; no look-alikes', async () => {
    const page = await openPage('dynamic.html');
    const s1 = await page.snapshot();
    const alpha = byName(s1, 'button', 'Alpha').element_ref!;
    const beta = byName(s1, 'button', 'Beta').element_ref!;
    const gamma = byName(s1, 'button', 'Gamma').element_ref!;
    assert.match(alpha, /^e\d+$/);

    await page.evaluate('reorder', () => (window as unknown as { reorder(): void }).reorder(), null);
    const s2 = await page.snapshot();
    assert.equal(byName(s2, 'button', 'Gamma').element_ref, gamma);
    assert.equal(byName(s2, 'button', 'Alpha').element_ref, alpha);
    assert.ok(s2.text.indexOf('Gamma') < s2.text.indexOf('Alpha'));

    await page.evaluate('rename', () => (window as unknown as { rename(): void }).rename(), null);
    const s3 = await page.snapshot();
    assert.equal(byName(s3, 'button', 'Beta renamed').element_ref, beta);

    await page.evaluate('removeA', () => (window as unknown as { removeA(): void }).removeA(), null);
    // A look-alike (same tag, id and text) must not inherit the ref.
    await page.evaluate('lookalike', () => (window as unknown as { lookalike(): void }).lookalike(), null);
    const err = await rejectsWith(page.evaluateRef(alpha, '(el) => el.id', null), 'element_not_found');
    assert.equal(err.details.reason, 'stale_ref');
    const s4 = await page.snapshot();
    const newAlpha = byName(s4, 'button', 'Alpha').element_ref!;
    assert.notEqual(newAlpha, alpha, 'a new element gets a new ref');
    const all = new Set([...walk(s4.model)].map((n) => n.element_ref).filter(Boolean));
    assert.ok(!all.has(alpha));

    // Navigation: refs from the earlier document are stale, new refs never reuse numbers.
    await page.open(fixture('dynamic.html'));
    const err2 = await rejectsWith(page.evaluateRef(gamma, '(el) => el.id', null), 'element_not_found');
    assert.equal(err2.details.reason, 'stale_ref');
    const s5 = await page.snapshot();
    const refs5 = [...walk(s5.model)].map((n) => n.element_ref).filter(Boolean) as string[];
    for (const r of [alpha, beta, gamma]) assert.ok(!refs5.includes(r), `ref ${r} reused after navigation`);
    assert.ok(s5.diff === undefined);
    // Unknown refs and refs of another page.
    const e3 = await rejectsWith(page.evaluateRef('e999999', '(el) => 1', null), 'element_not_found');
    assert.equal(e3.details.reason, 'unknown_ref');
    await rejectsWith(page.evaluateRef('nonsense', '(el) => 1', null), 'invalid_request');
    const other = await openPage('dynamic.html');
    const e4 = await rejectsWith(
      other.evaluateRef(byName(s5, 'button', 'Alpha').element_ref!, '(el) => 1', null),
      'element_not_found',
    );
    assert.equal(e4.details.reason, 'other_page');
    await other.close();
    await page.close();
  });
});

describe('renderings and limits', () => {
  test('redaction: secrets appear only as [redacted] in every output', async () => {
    const page = await openPage('secrets.html');
    const CANARY = 'CANARY-7f3a9';
    const first = await page.snapshot({ diff: true });
    await page.evaluate(
      'type',
      (c: string) => {
        for (const id of ['pw', 'np', 'cc', 'otp', 'notes'])
          (document.getElementById(id) as HTMLInputElement).value = `${c}-${id}`;
        (document.getElementById('exp') as HTMLSelectElement).selectedIndex = 1;
        document.querySelector('input[name=user]')!.setAttribute('value', 'jane');
      },
      CANARY,
    );
    const outputs: unknown[] = [first];
    outputs.push(await page.snapshot({ diff: true, include_boxes: true, include_urls: true }));
    outputs.push(await page.snapshot({ interactive_only: true }));
    outputs.push(await page.snapshot({ scope_selector: 'form', max_chars: 400 }));
    const s = outputs[1] as SnapshotResult;
    for (const o of outputs) {
      const json = JSON.stringify(o);
      assert.ok(
        !json.includes(CANARY),
        `canary leaked: ${json.slice(json.indexOf(CANARY) - 80, json.indexOf(CANARY) + 40)}`,
      );
      assert.ok(!json.includes('CANARY-SELECT-77'));
    }
    assert.equal(byName(s, 'textbox', 'Password').value, '[redacted]');
    assert.equal(byName(s, 'textbox', 'Card').value, '[redacted]');
    assert.equal(byName(s, 'textbox', 'Code').value, '[redacted]');
    assert.equal(byName(s, 'combobox', 'Expiry').value, '[redacted]');
    assert.equal(byName(s, 'textbox', 'User').value, 'jane');
    assert.match(s.diff!.text, /\[redacted\]/);
    await page.close();
  });

  test('options: interactive-only, scope, depth, viewport, urls, boxes', async () => {
    const page = await openPage('basic.html');
    const io = await page.snapshot({ interactive_only: true });
    assertInvariants(io);
    assert.doesNotMatch(io.text, /Some bold text/);
    assert.match(io.text, /link "Home"/);
    const scoped = await page.snapshot({ scope_selector: 'form' });
    assert.match(scoped.text, /textbox "Email"/);
    assert.doesNotMatch(scoped.text, /Home/);
    await rejectsWith(page.snapshot({ scope_selector: '##bad' }), 'invalid_selector');
    await rejectsWith(page.snapshot({ scope_selector: '#missing' }), 'element_not_found');
    const full = await page.snapshot();
    const formRef = find(full, (n) => n.role === 'form')!.element_ref!;
    const byRef = await page.snapshot({ scope_ref: formRef });
    assert.equal(byRef.text, scoped.text);
    const shallow = await page.snapshot({ max_depth: 0 });
    assert.equal(shallow.truncated, true);
    assert.ok(shallow.omitted!.depth_nodes > 0);
    assert.ok(!shallow.text.split('\n').some((l) => l.startsWith(' ') && !l.startsWith('[')));
    assertInvariants(shallow);
    const urls = await page.snapshot({ include_urls: true, include_boxes: true });
    assert.match(urls.text, /link "Home" \[ref=e\d+\] -> http:\/\/127\.0\.0\.1:\d+\/a/);
    assert.doesNotMatch(full.text, /-> http/);
    const home = byName(urls, 'link', 'Home');
    assert.equal(home.bbox?.length, 4);
    assert.match(urls.text, /\[box=\d+,\d+,\d+,\d+\]/);
    await page.close();

    const big = await openPage('big.html');
    const vp = await big.snapshot({ viewport: true, viewport_margin: 0 });
    assert.match(vp.text, /Section 0/);
    assert.doesNotMatch(vp.text, /Section 399/);
    assert.ok(vp.omitted!.outside_viewport > 0);
    await big.close();
  });

  test('character budget: truncated with what was omitted, or an error under strict limits', async () => {
    const page = await openPage('big.html');
    const s = await page.snapshot({ max_chars: 2000 });
    assert.equal(s.truncated, true);
    assert.ok(s.text.length <= 2000, `text is ${s.text.length} chars`);
    assert.match(s.text, /\[truncated: \d+ more lines/);
    assert.ok(s.omitted!.lines > 0);
    assert.ok(s.omitted!.refs > 0);
    assertInvariants(s);
    assert.ok(s.elements.length < 400);
    const err = await rejectsWith(page.snapshot({ max_chars: 2000, strict: true }), 'invalid_request');
    assert.equal(err.details.reason, 'snapshot_too_large');
    const whole = await page.snapshot({ max_chars: 1_000_000 });
    assert.equal(whole.truncated, false);
    assert.equal(whole.elements.length, 401);
    const nodes = await page.snapshot({ max_nodes: 10 });
    assert.equal(nodes.truncated, true);
    const v1 = toPageSnapshotV1(nodes.model, 10);
    assert.equal(v1.nodes.length, 10);
    assert.equal(v1.truncated, true);
    await page.close();
  });

  test('diff: added, removed, changed by ref; (no changes); full after navigation', async () => {
    const page = await openPage('dynamic.html');
    const d0 = await page.snapshot({ diff: true });
    assert.equal(d0.diff?.full, true);
    assert.equal(d0.text, d0.diff?.text);
    const d1 = await page.snapshot({ diff: true });
    assert.equal(d1.text, '(no changes)');
    assert.equal(d1.diff?.full, false);
    const beta = byName(d1, 'button', 'Beta').element_ref!;
    const alpha = byName(d1, 'button', 'Alpha').element_ref!;
    await page.evaluate(
      'mutate',
      () => {
        const w = window as unknown as { rename(): void; removeA(): void; addD(): void };
        w.rename();
        w.removeA();
        w.addD();
        (document.getElementById('q') as HTMLInputElement).value = 'hello';
        document.getElementById('status')!.textContent = 'Status: busy';
      },
      null,
    );
    const d2 = await page.snapshot({ diff: true });
    const diff = d2.diff!;
    assert.equal(diff.full, false);
    assert.ok(diff.added.some((e) => /button "Delta"/.test(e.line)));
    assert.ok(diff.removed.some((e) => e.ref === alpha));
    assert.ok(
      diff.changed.some((e) => e.ref === beta && /Beta renamed/.test(e.line) && /"Beta"/.test(e.was ?? '')),
    );
    assert.ok(diff.changed.some((e) => /value="hello"/.test(e.line)));
    assert.ok(diff.changed.some((e) => /Status: busy/.test(e.line)));
    assert.match(d2.text, /^\s*\+ .*button "Delta"/m);
    assert.match(d2.text, new RegExp(`^\\s*- .*\\[ref=${alpha}\\]`, 'm'));
    assert.match(d2.text, /^~ .*Beta renamed/m);
    assert.ok(d2.full_text?.includes('Beta renamed'));
    await page.open(fixture('dynamic.html'));
    const d3 = await page.snapshot({ diff: true });
    assert.equal(d3.diff?.full, true);
    assert.equal(d3.diff?.reason, 'navigation');
    assert.match(d3.text, /button "Alpha"/);
    await page.close();
  });
});
