import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { isAlive, startBrowserServer, startDebuggableChromium } from './helpers/external-browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

let server: FixtureServer;
before(async () => {
  server = await startFixtureServer();
});
after(async () => {
  await server.close();
});

describe('persistent profile', () => {
  test('cookies and localStorage survive a restart of the engine', async () => {
    const home = tempHome();
    try {
      const first = newEngine(home.dir);
      const s1 = await first.startSession({ kind: 'persistent', profile: 'work' });
      assert.equal(s1.kind, 'persistent');
      assert.ok(existsSync(join(home.dir, 'profiles', 'work')));
      const p1 = s1.page();
      await p1.open(`${server.url}/fixtures/nav/a.html`);
      await p1.evaluate(
        'test',
        () => {
          localStorage.setItem('canary', 'kept-in-storage');
          // biome-ignore lint/suspicious/noDocumentCookie: the test needs a plain cookie to survive a restart.
          document.cookie = 'canary=kept-in-cookie; max-age=3600; path=/';
        },
        null,
      );
      // The same profile cannot be opened twice at once.
      await rejectsWith(first.startSession({ kind: 'persistent', profile: 'work' }), 'permission_denied');
      await first.close();

      const second = newEngine(home.dir);
      const s2 = await second.startSession({ kind: 'persistent', profile: 'work' });
      const p2 = s2.page();
      await p2.open(`${server.url}/fixtures/nav/a.html`);
      const seen = await p2.evaluate(
        'test',
        () => ({ ls: localStorage.getItem('canary'), cookie: document.cookie }),
        null,
      );
      assert.equal(seen.ls, 'kept-in-storage');
      assert.match(seen.cookie, /canary=kept-in-cookie/);
      await second.close();
    } finally {
      home.cleanup();
    }
  });

  test('profile names cannot escape the profile root', async () => {
    const home = tempHome();
    const engine = newEngine(home.dir);
    await rejectsWith(engine.startSession({ kind: 'persistent', profile: '../etc' }), 'invalid_request');
    await rejectsWith(engine.startSession({ kind: 'persistent', profile: '' }), 'invalid_request');
    await engine.close();
    home.cleanup();
  });
});

describe('attach to a running Chromium', () => {
  test('attaches by CDP endpoint, sees its tabs, and detaches without killing it', async () => {
    const external = await startDebuggableChromium();
    const home = tempHome();
    const engine = newEngine(home.dir);
    try {
      const s = await engine.startSession({ kind: 'attach', endpoint: external.httpEndpoint });
      assert.equal(s.info().attached_to_existing_browser, true);
      assert.ok(s.pages().length >= 1, 'the already open tab is visible');
      const page = s.page();
      const r = await page.open(`${server.url}/fixtures/nav/a.html`);
      assert.equal(r.title, 'Page A');
      await engine.closeSession(s.id);
      // The user's browser is still running, with the tab we navigated.
      assert.ok(isAlive(external.process.pid!), 'browser process still alive');
      const targets = (await (await fetch(`${external.httpEndpoint}/json/list`)).json()) as { url: string }[];
      assert.ok(
        targets.some((t) => t.url === `${server.url}/fixtures/nav/a.html`),
        JSON.stringify(targets),
      );
      // And it can be attached again.
      const again = await engine.startSession({ kind: 'attach', endpoint: external.httpEndpoint });
      assert.ok(again.pages().length >= 1);
      await engine.close();
      assert.ok(isAlive(external.process.pid!), 'engine.close() does not kill an attached browser');
    } finally {
      await engine.close();
      await external.stop();
      home.cleanup();
    }
  });

  test('a dead endpoint is browser_not_running with a next step', async () => {
    const home = tempHome();
    const engine = newEngine(home.dir);
    const err = await rejectsWith(
      engine.startSession({ kind: 'attach', endpoint: 'http://127.0.0.1:9' }),
      'browser_not_running',
    );
    assert.match(err.message, /remote-debugging-port/);
    await rejectsWith(engine.startSession({ kind: 'attach', endpoint: 'nonsense' }), 'invalid_request');
    await engine.close();
    home.cleanup();
  });
});

describe('remote browser server', () => {
  test('connects to a Playwright browser server by ws endpoint', async () => {
    const remote = await startBrowserServer();
    const home = tempHome();
    const engine = newEngine(home.dir);
    try {
      const s = await engine.startSession({ kind: 'remote', endpoint: remote.wsEndpoint });
      assert.equal(s.kind, 'remote');
      const r = await s.page().open(`${server.url}/fixtures/nav/b.html`);
      assert.equal(r.title, 'Page B');
      await engine.closeSession(s.id);
    } finally {
      await engine.close();
      await remote.stop();
      home.cleanup();
    }
  });
});

describe('browser death', () => {
  test('a killed browser fails calls at once with browser_not_running, and the next session relaunches', async () => {
    const home = tempHome();
    const engine = newEngine(home.dir);
    try {
      const s = await engine.startSession();
      const page = s.page();
      await page.open(`${server.url}/fixtures/nav/a.html`);
      const pid = await engine.sharedBrowserPid();
      assert.ok(pid, 'shared browser pid known');
      // An operation in flight when the browser dies must not hang.
      const inFlight = page.open(`${server.url}/slow?ms=8000`, 'load', { timeoutMs: 20_000 });
      await new Promise((r) => setTimeout(r, 200));
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      await rejectsWith(inFlight, 'browser_not_running');
      assert.ok(Date.now() - killedAt < 2000, `in-flight call failed after ${Date.now() - killedAt} ms`);
      const t0 = Date.now();
      await rejectsWith(page.title(), 'browser_not_running');
      assert.ok(Date.now() - t0 < 2000);
      assert.equal(s.alive, false);

      const fresh = await engine.startSession();
      const r = await fresh.page().open(`${server.url}/fixtures/nav/b.html`);
      assert.equal(r.title, 'Page B');
      const newPid = await engine.sharedBrowserPid();
      assert.notEqual(newPid, pid);
    } finally {
      await engine.close();
      home.cleanup();
    }
  });
});
