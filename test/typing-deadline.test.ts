import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';
import { doorTestEnv } from './helpers/http.js';

// Key-by-key typing honours its deadline and the caller's abort between keys, so a long text cannot hold a page.
const { server, session } = await engineTestEnv();
const page = session.page();
const notes = () =>
  page.evaluate('notes', () => (document.getElementById('notes') as HTMLTextAreaElement).value, null);

describe('key-by-key typing', () => {
  test('stops at its deadline, and the page is free for the next operation at once', async () => {
    await page.open(`${server.url}/fixtures/actions/form.html`);
    const started = Date.now();
    const err = await rejectsWith(
      page.act(
        { selector: '#notes' },
        { action: 'type', text: 'x'.repeat(8000), key_by_key: true },
        { timeoutMs: 1500 },
      ),
      'not_ready',
    );
    assert.equal(err.details.outcome, 'unknown');
    // The next operation on the page runs now, not after the 8,000 keys.
    const typed = (await notes()).length;
    assert.ok(Date.now() - started < 6000, `the page was held ${Date.now() - started} ms`);
    assert.ok(typed > 0 && typed < 8000, `typing stopped part way (${typed} characters)`);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await notes()).length, typed, 'no key arrives after the deadline');
  });

  test('stops when the caller aborts', async () => {
    await page.open(`${server.url}/fixtures/actions/form.html`);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 500);
    const err = await rejectsWith(
      page.act(
        { selector: '#notes' },
        { action: 'type', text: 'y'.repeat(8000), key_by_key: true },
        { timeoutMs: 60_000, signal: caller.signal },
      ),
      'not_ready',
    );
    assert.equal(err.details.aborted, true);
    const typed = (await notes()).length;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await notes()).length, typed);
  });
});

describe('HTTP press_key / send_keys', async () => {
  const { h, id } = await doorTestEnv();

  test('text over 500 characters is refused before anything is sent', async () => {
    await h.ok(id, 'go_to_url', { url: `${server.url}/fixtures/actions/form.html` });
    for (const [method, field] of [
      ['press_key', 'key'],
      ['press_key', 'keys'],
      ['send_keys', 'keys'],
    ] as const) {
      const r = await h.fails(id, method, { [field]: 'z'.repeat(501) });
      assert.equal(r.status, 400);
      assert.equal(r.json.data.invalidArgument, true);
      assert.equal(r.json.data.field, field);
      assert.match(r.json.msg, /最多 500 个字符.*input_text 或 type_text/);
    }
  });

  test('500 characters are typed in one reply, and the task goes on', async () => {
    await h.ok(id, 'click_element_by_selector', { selector: '#notes' });
    const d = await h.ok(id, 'press_key', { key: 'a'.repeat(500) });
    assert.equal(d.mode, 'type');
    const v = await h.ok(id, 'execute_js', { body: 'document.getElementById("notes").value.length' });
    assert.equal(v.result, 500);
  });
});
