import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ElementResolver } from '../src/engine/waits.js';
import type { Page } from '../src/index.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, session } = await engineTestEnv();

/** Opens the waits fixture and runs `script` there (it schedules the changes the wait sees). */
async function fixture(script = ''): Promise<Page> {
  const page = session.page();
  await page.open(`${server.url}/fixtures/waits/index.html`);
  if (script) await page.backend.evaluateExpression(script, 2000);
  return page;
}

describe('waits: one test per condition', () => {
  test('text_present waits for text to appear', async () => {
    const page = await fixture("setStatus('all  done', 300)");
    const r = await page.wait({ text_present: 'all done' });
    assert.equal(r.satisfied, true);
    assert.equal(r.matched_condition, 'text_present');
    assert.ok(r.waited_ms >= 0 && r.waited_ms < 10_000);
    assert.equal(r.url, `${server.url}/fixtures/waits/index.html`);
  });

  test('text_absent waits for text to go', async () => {
    const page = await fixture('removeStatus(300)');
    const r = await page.wait({ text_absent: 'loading' });
    assert.equal(r.matched_condition, 'text_absent');
    assert.equal(await page.backend.evaluateExpression("document.getElementById('status')", 1000), null);
  });

  test('selector_present and selector_absent', async () => {
    const page = await fixture('addItems(1, 200); removeStatus(400)');
    const a = await page.wait({ selector_present: 'li:nth-child(2)' });
    assert.equal(a.matched_condition, 'selector_present');
    const b = await page.wait({ selector_absent: '#status' });
    assert.equal(b.matched_condition, 'selector_absent');
  });

  test('selector_present with visible: true ignores hidden matches', async () => {
    const page = await fixture(
      "const s = document.createElement('span'); s.id = 'later'; s.style.display = 'none'; s.textContent = 'x'; document.body.append(s); after(300, () => { s.style.display = 'inline'; })",
    );
    await page.wait({ selector_present: { selector: '#later', visible: true } });
    // It returned only once the element was shown.
    assert.equal(
      await page.backend.evaluateExpression("document.getElementById('later').style.display", 1000),
      'inline',
    );
  });

  test('element_ref_present uses the pluggable resolver', async () => {
    const page = await fixture('addItems(1, 300)');
    const asked: string[] = [];
    // A stub: ref "e2" names the second list item.
    const resolveElement: ElementResolver = async (ref, ctx) => {
      asked.push(ref);
      const present = await ctx.page.backend.evaluate(
        () => document.querySelectorAll('li').length >= 2,
        null,
        ctx.timeoutMs,
      );
      return present ? { box: { x: 0, y: 0, width: 1, height: 1 } } : null;
    };
    const r = await page.wait({ element_ref_present: 'e2' }, { resolveElement });
    assert.equal(r.matched_condition, 'element_ref_present');
    assert.ok(asked.length >= 2 && asked.every((x) => x === 'e2'));
  });

  test('element_ref_present with a snapshot ref (the default resolver)', async () => {
    const page = await fixture();
    const snap = await page.snapshot();
    const ref = snap.elements.find((e) => e.role === 'button' && e.name === 'Go')?.element_ref;
    assert.ok(ref, 'the snapshot names the Go button');
    const r = await page.wait({ element_ref_present: ref });
    assert.equal(r.matched_condition, 'element_ref_present');
    await page.backend.evaluateExpression("document.getElementById('go').remove()", 1000);
    const err = await rejectsWith(
      page.wait({ element_ref_present: ref }, {}, { timeoutMs: 1500 }),
      'not_ready',
    );
    const observed = (err.details.conditions as { observed: { ref: string; present: boolean } }[])[0]!
      .observed;
    assert.equal(observed.ref, ref);
    assert.equal(observed.present, false);
    await rejectsWith(page.wait({ element_ref_present: 'e999999' }), 'element_not_found');
    await rejectsWith(page.wait({ element_ref_present: 'go' }), 'invalid_request');
  });

  test('url_matches with a glob', async () => {
    const page = await fixture("pushUrl('/fixtures/waits/done?step=2', 200)");
    const r = await page.wait({ url_matches: '**/waits/done?step=*' });
    assert.equal(r.url, `${server.url}/fixtures/waits/done?step=2`);
  });

  test('url_matches with a /regex/', async () => {
    const page = await fixture("pushUrl('/fixtures/waits/item/42', 200)");
    const r = await page.wait({ url_matches: '/item\\/\\d+$/' });
    assert.match(r.url, /item\/42$/);
  });

  test('navigation_complete waits for the load event', async () => {
    const page = session.page();
    await page.open(`${server.url}/fixtures/waits/slow-image.html`, 'domcontentloaded');
    const r = await page.wait({ navigation_complete: true });
    assert.equal(r.matched_condition, 'navigation_complete');
    assert.equal(await page.backend.evaluateExpression('document.readyState', 1000), 'complete');
  });

  test('network_idle waits for requests in flight', async () => {
    const page = await fixture("void fetch('/slow?ms=600')");
    await page.wait({ network_idle: { idle_ms: 200 } });
    // It returned only after the slow request had finished.
    const done = await page.backend.evaluateExpression(
      "performance.getEntriesByType('resource').some((e) => e.name.includes('/slow') && e.responseEnd > 0)",
      1000,
    );
    assert.equal(done, true);
  });

  test('dom_stable waits for mutations to stop', async () => {
    const page = await fixture('churn(600)');
    await page.wait({ dom_stable: 300 });
    // The churn had stopped at least 300 ms before the wait returned (by the page's clock).
    const quiet = (await page.backend.evaluateExpression('Date.now() - window.lastTick', 1000)) as number;
    assert.ok(quiet >= 290, String(quiet));
  });

  test('js_predicate: an expression and a function expression', async () => {
    const page = await fixture('flag(300)');
    const a = await page.wait({ js_predicate: 'window.ready === true' });
    assert.equal(a.matched_condition, 'js_predicate');
    const b = await page.wait({ js_predicate: '() => document.querySelectorAll("li").length === 1' });
    assert.equal(b.matched_condition, 'js_predicate');
  });

  test('selector_count with min, max and equals', async () => {
    const page = await fixture('addItems(3, 200)');
    await page.wait({ selector_count: { selector: 'li', equals: 4 } });
    await page.wait({ selector_count: { selector: 'li', min: 2, max: 5 } });
    const err = await rejectsWith(
      page.wait({ selector_count: { selector: 'li', max: 1 } }, {}, { timeoutMs: 1500 }),
      'not_ready',
    );
    assert.equal((err.details.conditions as { observed: { count: number } }[])[0]!.observed.count, 4);
  });
});

describe('waits: combinations, timeouts and errors', () => {
  test('mode all needs every condition', async () => {
    const page = await fixture("setStatus('ready', 150); addItems(1, 400)");
    const r = await page.wait({ text_present: 'ready', selector_count: { selector: 'li', min: 2 } });
    assert.deepEqual(r.matched_conditions.sort(), ['selector_count', 'text_present']);
  });

  test('mode any returns the first condition that holds', async () => {
    const page = await fixture("setStatus('ready', 200)");
    const r = await page.wait({ text_present: 'ready', selector_present: '#never' }, { mode: 'any' });
    assert.equal(r.matched_condition, 'text_present');
    assert.deepEqual(r.matched_conditions, ['text_present']);
  });

  test('unsatisfied at the deadline: not_ready, retryable, with each condition and its last value', async () => {
    const page = await fixture();
    const err = await rejectsWith(
      page.wait({ text_present: 'never', selector_present: 'li' }, {}, { timeoutMs: 1500 }),
      'not_ready',
    );
    assert.equal(err.retryable, true);
    assert.equal(err.details.reason, 'wait_timeout');
    assert.deepEqual(err.details.failed, ['text_present']);
    const conds = err.details.conditions as { condition: string; satisfied: boolean; observed: unknown }[];
    assert.deepEqual(
      conds.map((c) => [c.condition, c.satisfied]),
      [
        ['text_present', false],
        ['selector_present', true],
      ],
    );
    assert.equal((conds[1]!.observed as { count: number }).count, 1);
    assert.equal(err.details.url, page.url());
  });

  test('an invalid selector is invalid_selector at once', async () => {
    const page = await fixture();
    const started = Date.now();
    await rejectsWith(page.wait({ selector_present: 'li[' }), 'invalid_selector');
    assert.ok(Date.now() - started < 2000);
  });

  test('bad requests are invalid_request', async () => {
    const page = await fixture();
    await rejectsWith(page.wait({}), 'invalid_request');
    await rejectsWith(page.wait({ text_shown: 'x' } as never), 'invalid_request');
    await rejectsWith(page.wait({ url_matches: '/(/' }), 'invalid_request');
    await rejectsWith(page.wait({ selector_count: { selector: 'li' } }), 'invalid_request');
    await rejectsWith(page.wait({ js_predicate: 'window.(' }), 'invalid_request');
    await rejectsWith(page.wait({ text_present: 'x' }, { mode: 'some' as 'any' }), 'invalid_request');
    await rejectsWith(page.wait({ text_present: 'x' }, {}, { timeoutMs: 61_000 }), 'invalid_request');
  });

  test('the caller can abort a wait', async () => {
    const page = await fixture();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const err = await rejectsWith(
      page.wait({ text_present: 'never' }, {}, { signal: ac.signal }),
      'not_ready',
    );
    assert.equal(err.details.aborted, true);
  });
});
