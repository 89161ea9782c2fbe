import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Engine, Session } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

let server: FixtureServer;
let engine: Engine;
let session: Session;
const home = tempHome();

before(async () => {
  server = await startFixtureServer();
  engine = newEngine(home.dir);
  session = await engine.startSession();
});

after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

describe('navigation', () => {
  for (const waitUntil of ['load', 'domcontentloaded', 'networkidle'] as const) {
    test(`open with wait_until ${waitUntil} returns url, title and status`, async () => {
      const page = session.page();
      const r = await page.open(`${server.url}/fixtures/nav/a.html`, waitUntil);
      assert.equal(r.url, `${server.url}/fixtures/nav/a.html`);
      assert.equal(r.title, 'Page A');
      assert.equal(r.status, 200);
      assert.equal(r.page_id, page.id);
    });
  }

  test('an HTTP error status is a result, not a failure', async () => {
    const r = await session.page().open(`${server.url}/status?code=404`);
    assert.equal(r.status, 404);
  });

  test('back, forward and reload move through history', async () => {
    const page = session.page();
    await page.open(`${server.url}/fixtures/nav/a.html`);
    await page.open(`${server.url}/fixtures/nav/b.html`);
    const back = await page.back();
    assert.equal(back.title, 'Page A');
    const fwd = await page.forward();
    assert.equal(fwd.title, 'Page B');
    const again = await page.reload();
    assert.equal(again.url, `${server.url}/fixtures/nav/b.html`);
    assert.equal(await page.title(), 'Page B');
  });

  test('back without history is refused with a reason', async () => {
    const page = await session.newPage();
    const err = await rejectsWith(page.back(), 'invalid_request');
    assert.equal(err.details.reason, 'no_history');
    await page.close();
  });

  test('bad URLs and unreachable servers give normalized errors', async () => {
    const page = session.page();
    await rejectsWith(page.open('not a url'), 'invalid_request');
    await rejectsWith(page.open('ftp://example.com/'), 'invalid_request');
    // A port nobody listens on: the fixture server's port + a closed one.
    const err = await rejectsWith(page.open('http://127.0.0.1:9/'), 'not_ready');
    assert.equal(err.details.reason, 'network_error');
    assert.match(String(err.details.net_error), /^ERR_/);
  });

  test('a slow navigation past its deadline is navigation_timeout with an unknown outcome', async () => {
    const page = await session.newPage();
    const err = await rejectsWith(
      page.open(`${server.url}/slow?ms=4000`, 'load', { timeoutMs: 500 }),
      'navigation_timeout',
    );
    assert.equal(err.details.outcome, 'unknown');
    assert.equal(err.retryable, true);
    await page.close();
  });

  test('timeouts outside 1..60000 ms are refused', async () => {
    await rejectsWith(() => session.page().title({ timeoutMs: 60_001 }), 'invalid_request');
    await rejectsWith(() => session.page().title({ timeoutMs: 0 }), 'invalid_request');
  });
});

describe('tabs and popups', () => {
  test('new, list, activate and close tabs', async () => {
    const s = await engine.startSession();
    const first = s.page();
    const second = await s.newPage({ url: `${server.url}/fixtures/nav/b.html` });
    assert.notEqual(first.id, second.id);
    assert.equal(s.activePageId, second.id);
    assert.deepEqual(
      s.listPages().map((p) => p.page_id),
      [first.id, second.id],
    );
    await s.activate(first.id);
    assert.equal(s.activePageId, first.id);
    await s.closePage(second.id);
    assert.equal(s.listPages().length, 1);
    await rejectsWith(async () => s.page(second.id), 'page_not_found');
    await rejectsWith(async () => engine.page(second.id), 'page_not_found');
    await engine.closeSession(s.id);
    await rejectsWith(async () => engine.session(s.id), 'session_not_found');
  });

  test('window.open and target=_blank popups become tracked pages with their opener', async () => {
    const s = await engine.startSession();
    const page = s.page();
    await page.open(`${server.url}/fixtures/nav/popups.html`);
    await page.evaluate('test', () => (document.getElementById('blank') as HTMLAnchorElement).click(), null);
    await page.evaluate('test', () => void window.open('/fixtures/nav/b.html', '_blank'), null);
    const deadline = Date.now() + 5000;
    while (s.listPages().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const pages = s.listPages();
    assert.equal(pages.length, 3, JSON.stringify(pages));
    const popups = pages.filter((p) => p.page_id !== page.id);
    for (const p of popups) {
      assert.equal(p.opener_page_id, page.id);
      const tracked = s.page(p.page_id);
      assert.match(await tracked.title(), /Page [AB]/);
    }
    const ids = new Set(pages.map((p) => p.page_id));
    assert.equal(ids.size, 3, 'page ids are unique');
    await engine.closeSession(s.id);
  });
});

describe('deadlines and queues', () => {
  test('an operation queued behind a slow one expires without running', async () => {
    const s = await engine.startSession();
    const page = s.page();
    const slow = page.open(`${server.url}/slow?ms=2500`, 'load', { timeoutMs: 10_000 });
    const queued = page.title({ timeoutMs: 300 });
    const err = await rejectsWith(queued, 'not_ready');
    assert.equal(err.details.outcome, 'not_started');
    assert.equal(err.retryable, true);
    assert.equal((await slow).title, 'slow 2500', 'the slow operation still completes');
    await engine.closeSession(s.id);
  });

  test('pages of one session run in parallel', async () => {
    const s = await engine.startSession();
    const busy = s.page();
    const other = await s.newPage({ url: `${server.url}/fixtures/nav/a.html`, activate: false });
    let slowDone = false;
    const slow = busy.open(`${server.url}/slow?ms=2000`).then(() => {
      slowDone = true;
    });
    // The other page is not queued behind the busy one.
    assert.equal(await other.title({ timeoutMs: 1500 }), 'Page A');
    assert.equal(slowDone, false);
    await slow;
    await engine.closeSession(s.id);
  });

  test('operations on one page keep their order', async () => {
    const s = await engine.startSession();
    const page = s.page();
    const order: string[] = [];
    await Promise.all([
      page.open(`${server.url}/slow?ms=300`).then(() => order.push('open-slow')),
      page.title().then((t) => order.push(`title:${t}`)),
      page.open(`${server.url}/fixtures/nav/a.html`).then(() => order.push('open-a')),
      page.title().then((t) => order.push(`title:${t}`)),
    ]);
    assert.deepEqual(order, ['open-slow', 'title:slow 300', 'open-a', 'title:Page A']);
    await engine.closeSession(s.id);
  });

  test('a dispatched operation past its deadline reports an unknown outcome', async () => {
    const page = session.page();
    const err = await rejectsWith(
      page.evaluate('test.hang', () => new Promise(() => {}), null, { timeoutMs: 300 }),
      'not_ready',
    );
    assert.equal(err.details.outcome, 'unknown');
    assert.equal(err.retryable, false);
  });

  test('an AbortSignal cancels a queued operation', async () => {
    const page = session.page();
    const ac = new AbortController();
    const slow = page.open(`${server.url}/slow?ms=800`);
    const queued = page.title({ signal: ac.signal });
    ac.abort();
    const err = await rejectsWith(queued, 'not_ready');
    assert.equal(err.details.aborted, true);
    assert.equal(err.details.outcome, 'not_started');
    await slow;
  });
});
