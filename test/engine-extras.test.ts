import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, session } = await engineTestEnv();
const page = session.page();

describe('console', () => {
  test('messages and uncaught errors with levels, seq and filters', async () => {
    await page.open(`${server.url}/fixtures/engine/console.html`);
    await page.wait({ js_predicate: 'true' });
    const deadline = Date.now() + 3000;
    while (!page.console.list().some((e) => e.type === 'pageerror') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const all = page.console.list();
    assert.deepEqual(
      all.map((e) => [e.type, e.level, e.text]),
      [
        ['console', 'log', 'hello 42'],
        ['console', 'warning', 'careful'],
        ['console', 'error', 'broken thing'],
        ['pageerror', 'error', 'boom from a timer'],
      ],
    );
    assert.equal(page.console.list({ level: 'error' }).length, 2);
    assert.equal(page.console.list({ since_seq: all[1]!.seq }).length, 2);
    assert.equal(page.console.list({ limit: 1 })[0]!.text, 'boom from a timer');
    page.console.clear();
    assert.equal(page.console.list().length, 0);
  });
});

describe('cookies and storage', () => {
  test('cookies: set, read per URL, clear', async () => {
    await page.open(`${server.url}/fixtures/nav/a.html`);
    await session.setCookies([{ name: 'flavour', value: 'oat', url: server.url }]);
    const got = await session.cookies({ urls: [server.url] });
    assert.equal(got.find((c) => c.name === 'flavour')?.value, 'oat');
    assert.equal(await page.evaluateScript('document.cookie').then((r) => r.value), 'flavour=oat');
    await rejectsWith(session.setCookies([{ name: 'x', value: 'y' }]), 'invalid_request');
    await session.clearCookies();
    assert.equal((await session.cookies()).length, 0);
  });

  test('localStorage and sessionStorage: set, get one and all, remove, clear', async () => {
    await page.open(`${server.url}/fixtures/nav/a.html`);
    await page.storageSet('local', 'a', '1');
    await page.storageSet('local', 'b', '2');
    await page.storageSet('session', 's', 'x');
    assert.equal(await page.storageGet('local', 'a'), '1');
    assert.equal(await page.storageGet('local', 'missing'), null);
    assert.deepEqual(await page.storageGet('local'), { a: '1', b: '2' });
    assert.deepEqual(await page.storageGet('session'), { s: 'x' });
    await page.storageRemove('local', 'a');
    assert.deepEqual(await page.storageGet('local'), { b: '2' });
    await page.storageRemove('local');
    assert.deepEqual(await page.storageGet('local'), {});
    await rejectsWith(page.storageGet('cookie' as never), 'invalid_request');
  });

  test('a document without storage says so', async () => {
    await page.open('about:blank');
    const err = await rejectsWith(page.storageGet('local'), 'unsupported_target');
    assert.equal(err.details.reason, 'no_storage');
  });
});

describe('evaluateScript', () => {
  before(async () => {
    await page.open(`${server.url}/fixtures/nav/a.html`);
  });

  test('expression, function with args, statement body, promises', async () => {
    assert.deepEqual(await page.evaluateScript('document.title'), { value: 'Page A', type: 'string' });
    assert.deepEqual(await page.evaluateScript('(a, b) => a + b', { args: [2, 3] }), {
      value: 5,
      type: 'number',
    });
    assert.deepEqual(await page.evaluateScript('const x = [1, 2]; return x.map((n) => n * 2);'), {
      value: [2, 4],
      type: 'array',
    });
    assert.deepEqual(await page.evaluateScript('new Promise((r) => setTimeout(() => r({ ok: true }), 20))'), {
      value: { ok: true },
      type: 'object',
    });
    assert.deepEqual(await page.evaluateScript('await Promise.resolve(1); return null;'), {
      value: null,
      type: 'null',
    });
    assert.equal((await page.evaluateScript('undefined')).type, 'undefined');
  });

  test('page exceptions and syntax errors are invalid_request with a reason', async () => {
    const thrown = await rejectsWith(page.evaluateScript('throw new TypeError("nope")'), 'invalid_request');
    assert.equal(thrown.details.reason, 'script_error');
    assert.match(String(thrown.details.exception), /nope/);
    const syntax = await rejectsWith(page.evaluateScript('return ) ('), 'invalid_request');
    assert.equal(syntax.details.reason, 'script_syntax');
    await rejectsWith(page.evaluateScript('   '), 'invalid_request');
  });

  test('works on a page whose CSP forbids eval', async () => {
    await page.open(`${server.url}/fixtures/engine/csp.html`);
    assert.equal(
      (await page.evaluateScript('() => document.getElementById("p").textContent')).value,
      'locked down',
    );
  });
});
