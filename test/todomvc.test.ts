import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Engine, Page } from '../src/index.js';
import type { SnapshotNode } from '../src/snapshot/index.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// Proof on real single-page apps: the three TodoMVC builds of ../shared/corpus/apps,
// driven only through snapshot refs, receipts and waits, as an agent would.
let server: FixtureServer;
let engine: Engine;
const home = tempHome();

before(async () => {
  server = await startFixtureServer();
  engine = newEngine(home.dir);
  // The first session launches the browser (Firefox takes several seconds): allow for a slow machine.
  const warm = await engine.startSession({}, { timeoutMs: 60_000 });
  await engine.closeSession(warm.id);
});
after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

function* walk(n: SnapshotNode): Generator<SnapshotNode> {
  yield n;
  for (const c of n.children) yield* walk(c);
}

function textOf(n: SnapshotNode): string {
  return [...walk(n)].map((x) => `${x.name} ${x.text ?? ''}`).join(' ');
}

/** The ref of the `role` element inside the list item that shows `label`. */
async function refInItem(page: Page, label: string, role: string): Promise<string> {
  const snap = await page.snapshot();
  const item = [...walk(snap.model)].find((n) => n.role === 'listitem' && textOf(n).includes(label));
  assert.ok(item, `no list item "${label}" in\n${snap.text}`);
  const el = [...walk(item)].find((n) => n.role === role && n.element_ref);
  assert.ok(el, `no ${role} in item "${label}"`);
  return el.element_ref!;
}

async function refOf(page: Page, role: string, name: string): Promise<string> {
  const snap = await page.snapshot();
  const el = snap.elements.find((e) => e.role === role && e.name.trim() === name);
  assert.ok(el, `no ${role} "${name}" in\n${snap.text}`);
  return el.element_ref;
}

async function itemLabels(page: Page): Promise<string[]> {
  const snap = await page.snapshot();
  return [...walk(snap.model)]
    .filter((n) => n.role === 'listitem' && [...walk(n)].some((c) => c.role === 'checkbox'))
    .map((n) => textOf(n).replace(/\s+/g, ' ').trim());
}

for (const app of ['react', 'vue', 'javascript-es6']) {
  describe(`TodoMVC ${app}`, () => {
    test('add, complete, edit, filter and clear through refs and receipts', async () => {
      const session = await engine.startSession();
      const page = session.page();
      await page.open(`${server.url}/corpus/apps/todomvc-${app}/index.html`);
      await page.wait({ selector_present: '.new-todo' });
      const input = (await page.snapshot()).elements.find((e) => e.role === 'textbox');
      assert.ok(input, 'the new-todo textbox has a ref');

      for (const [i, todo] of ['Buy milk', 'Walk dog', 'Write report'].entries()) {
        const r = await page.act(
          { element_ref: input.element_ref },
          { action: 'type', text: todo, submit: true },
        );
        assert.equal(r.status, 'executed');
        assert.equal(r.changed, true, `adding "${todo}" changed the page`);
        await page.wait({ text_present: `${i + 1} item${i === 0 ? '' : 's'} left` });
      }

      // Complete one.
      const toggle = await page.act(
        { element_ref: await refInItem(page, 'Buy milk', 'checkbox') },
        { action: 'check' },
      );
      assert.equal(toggle.verified, true);
      await page.wait({ text_present: '2 items left' });

      // Edit one by double-click, then replace its text.
      const dbl = await page.act({ text: 'Walk dog', exact: true }, { action: 'click', click_count: 2 });
      assert.equal(dbl.changed, true, 'double-click opened the editor');
      const editor = (await page.snapshot()).elements.find(
        (e) => e.role === 'textbox' && e.element_ref !== input.element_ref,
      );
      assert.ok(editor, 'an edit textbox appeared');
      const fill = await page.act(
        { element_ref: editor.element_ref },
        { action: 'fill', value: 'Walk the dog' },
      );
      assert.equal(fill.verified, true);
      await page.act({ element_ref: editor.element_ref }, { action: 'press', key: 'Enter' });
      await page.wait({ text_present: 'Walk the dog' });
      await page.wait({ text_absent: 'Walk dog' });

      // Filters.
      await page.act({ element_ref: await refOf(page, 'link', 'Active') }, { action: 'click' });
      await page.wait({ text_absent: 'Buy milk' });
      assert.deepEqual((await itemLabels(page)).sort(), ['Walk the dog', 'Write report']);
      await page.act({ element_ref: await refOf(page, 'link', 'Completed') }, { action: 'click' });
      await page.wait({ text_present: 'Buy milk' });
      assert.deepEqual(await itemLabels(page), ['Buy milk']);
      await page.act({ element_ref: await refOf(page, 'link', 'All') }, { action: 'click' });
      await page.wait({ text_present: 'Write report' });
      assert.equal((await itemLabels(page)).length, 3);

      // Clear completed.
      const clear = await page.act(
        { element_ref: await refOf(page, 'button', 'Clear completed') },
        { action: 'click' },
      );
      assert.equal(clear.changed, true);
      await page.wait({ text_absent: 'Buy milk' });
      await page.wait({ text_present: '2 items left' });
      assert.equal((await itemLabels(page)).length, 2);
      await engine.closeSession(session.id);
    });
  });
}
