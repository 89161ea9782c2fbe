import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ops } from '../src/engine/api.js';
import { engineTestEnv } from './helpers/engine.js';

/**
 * Reads and waits see what the snapshot sees: text that arrives inside an open shadow root (and a
 * nested one), a closed shadow root and a same-origin iframe satisfies text_present, shows in
 * page.read_text and page.find_text, and `host >>> inner` selectors count and wait inside shadow roots.
 */
const { server, session } = await engineTestEnv();

test('text waits, text reads and shadow-piercing selectors see open and closed shadow roots and same-origin frames', async () => {
  const page = await session.newPage();
  await page.open(`${server.url}/fixtures/shadow-text/index.html`);
  for (const text of ['3 items left', 'Nested shadow words', 'Closed root words', 'Frame words arrived']) {
    const w = await page.wait({ text_present: text }, {}, { timeoutMs: 5000 });
    assert.equal(w.satisfied, true, text);
  }
  const snap = await page.snapshot({ include_frames: true });
  const read = await ops.readPageText.call(page, {});
  for (const text of [
    'Light text',
    '3 items left',
    'Nested shadow words',
    'Closed root words',
    'Frame words arrived',
  ]) {
    assert.ok(snap.text.includes(text), `snapshot: ${text}\n${snap.text}`);
    assert.ok(read.content.replace(/\s+/g, ' ').includes(text), `read_text: ${text}\n${read.content}`);
  }
  const found = await ops.findText.call(page, { text: 'Closed root words' });
  assert.equal(found.matches.length, 1);
  const absent = await page
    .wait({ text_absent: '3 items left' }, {}, { timeoutMs: 600 })
    .catch((e: Error) => e);
  assert.ok(absent instanceof Error, 'text_absent must not hold while the shadow root shows the text');
  assert.equal(await ops.count.call(page, { selector: 'open-box >>> .count' }), 1);
  assert.equal(await ops.count.call(page, { selector: 'open-box >>> inner-box >>> .deep' }), 1);
  assert.equal(await ops.count.call(page, { selector: 'closed-box >>> p' }), 1);
  assert.equal(
    await ops.count.call(page, { selector: '.count' }),
    0,
    'a plain selector stays in the light DOM',
  );
  const w = await page.wait({ selector_present: 'open-box >>> strong' }, {}, { timeoutMs: 3000 });
  assert.equal(w.satisfied, true);
  await page.close();
});

test('a todo app built from shadow roots (closed footer): the counter-text wait flow', async () => {
  const page = await session.newPage();
  await page.open(`${server.url}/fixtures/shadow-text/todo.html`);
  const todos = ['Buy milk', 'Walk dog', 'Write report'];
  for (const [i, title] of todos.entries()) {
    await page.act({ role: 'textbox', name: 'New todo', exact: true }, { action: 'fill', value: title });
    await page.act({ role: 'textbox', name: 'New todo', exact: true }, { action: 'press', key: 'Enter' });
    await page.wait({ text_present: `${i + 1} item${i === 0 ? '' : 's'} left` }, {}, { timeoutMs: 5000 });
  }
  await page.act({ role: 'checkbox', name: 'Toggle Buy milk', exact: true }, { action: 'click' });
  await page.wait({ text_present: '2 items left' }, {}, { timeoutMs: 5000 });
  await page.wait({ text_absent: '3 items left' }, {}, { timeoutMs: 5000 });
  assert.equal(await ops.count.call(page, { selector: 'todo-app >>> todo-list >>> li' }), 3);
  await page.close();
});
