import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fetchImage, fetchUrl } from '../src/engine/resources.js';
import type { Engine } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

/** The engine's one scheme rule (src/engine/url-schemes.ts): file: off by default, browser pages never. */

let server: FixtureServer;
let engine: Engine;
let fileEngine: Engine;
const home = tempHome();

before(async () => {
  server = await startFixtureServer();
  engine = newEngine(home.dir);
  fileEngine = newEngine(home.dir, { allowFileUrls: true });
});
after(async () => {
  await engine.close();
  await fileEngine.close();
  await server.close();
  home.cleanup();
});

test('file: is refused by default on every way the engine opens a URL', async () => {
  const s = await engine.startSession();
  try {
    const page = s.page();
    const err = await rejectsWith(page.open('file:///etc/hostname'), 'permission_denied');
    assert.equal(err.details.reason, 'file_url_refused');
    assert.match(err.message, /--allow-file-urls/);
    assert.equal(page.url(), 'about:blank', 'nothing was loaded');
    // tab.new with a URL refuses before a tab is opened for it.
    const before = s.pages().length;
    await rejectsWith(s.newPage({ url: 'file:///etc/hostname' }), 'permission_denied');
    assert.equal(s.pages().length, before);
    // Fetches through the context (upload_file's url source) and image downloads.
    await rejectsWith(fetchUrl(page, 'file:///etc/hostname', { maxBytes: 1e6 }), 'permission_denied');
    await page.open(`data:text/html,<img id="pic" src="file:///etc/hostname">`);
    const img = await rejectsWith(fetchImage(page, { selector: '#pic' }), 'permission_denied');
    assert.equal(img.details.reason, 'file_url_refused');
    // A redirect to file: is refused like the first URL.
    const viaRedirect = `${server.url}/redirect?to=${encodeURIComponent('file:///etc/hostname')}`;
    await rejectsWith(fetchUrl(page, viaRedirect, { maxBytes: 1e6 }), 'permission_denied');
  } finally {
    await engine.closeSession(s.id);
  }
});

test('browser-internal and script schemes are refused whatever the flag; http(s), about:blank, data: open', async () => {
  for (const e of [engine, fileEngine]) {
    const s = await e.startSession();
    try {
      const page = s.page();
      for (const url of [
        'chrome://version',
        'chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html',
        'view-source:http://127.0.0.1/',
        'devtools://devtools/bundled/inspector.html',
        'javascript:alert(1)',
        'about:version',
        'chrome-untrusted://terminal/',
      ]) {
        const err = await rejectsWith(page.open(url), 'permission_denied');
        assert.equal(err.details.reason, 'scheme_refused', url);
      }
      await rejectsWith(page.open('ftp://example.com/'), 'invalid_request');
      assert.equal((await page.open(`${server.url}/fixtures/nav/a.html`)).title, 'Page A');
      assert.equal((await page.open('data:text/html,<title>D</title>')).title, 'D');
      assert.equal((await page.open('about:blank')).url, 'about:blank');
    } finally {
      await e.closeSession(s.id);
    }
  }
});

test('an engine created with allowFileUrls opens file: (a restricted origin policy still refuses it)', async () => {
  const s = await fileEngine.startSession();
  try {
    await s.page().open('file:///etc/hostname');
    const text = await s.page().evaluateScript('document.body.innerText', { timeoutMs: 5_000 });
    assert.equal(String(text.value).trim(), readFileSync('/etc/hostname', 'utf8').trim());
  } finally {
    await fileEngine.closeSession(s.id);
  }
  const restricted = await fileEngine.startSession({ policy: { allowed_origins: [server.url] } });
  try {
    await rejectsWith(restricted.page().open('file:///etc/hostname'), 'permission_denied');
  } finally {
    await fileEngine.closeSession(restricted.id);
  }
});
