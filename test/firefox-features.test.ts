import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { requireFirefox } from '../src/backends/firefox/discovery.js';
import { type StartedFirefox, startFirefox } from '../src/backends/firefox/launch.js';
import { ops } from '../src/engine/api.js';
import type { Engine, Page, Session } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { isAlive } from './helpers/external-browser.js';
import { FIXTURE_ROOT, type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { spawnProvider } from './helpers/provider.js';

// Issue 21: the Firefox backend's paths that the matrix (test/firefox-matrix.test.ts) does not run:
// downloads, file inputs and choosers, dialogs, console, the request log with a POST body and the
// secret rule, persistent profiles, and attaching to a Firefox started with --remote-debugging-port.
// The ephemeral tests share one Firefox (the engine's shared browser, one session each); a persistent
// profile and an attached browser are Firefox processes of their own by nature, started side by side.

let server: FixtureServer;
let engine: Engine;
let session: Session;
const home = tempHome();

before(async () => {
  server = await startFixtureServer();
  engine = newEngine(home.dir, { browser: 'firefox' });
  session = await engine.startSession({}, { timeoutMs: 60_000 });
});

after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

/** Polls `check` until it returns something truthy (10 s at most: the machine is shared). */
async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const text = (page: Page, id: string) =>
  page.evaluate('test', (i) => document.getElementById(i)?.textContent ?? null, id);

describe('Firefox: one page at a time per tab, tabs side by side', { concurrency: true }, () => {
  test('every refusal the Firefox backend declares (family_limits) is a real unsupported_method', async () => {
    // A valid input per declared operation: a limit declared without one fails here, so the list the
    // doors render can never name an operation that is not refused, or drift from what is.
    const inputs: Record<string, unknown> = {
      'page.raw_session': {},
      'page.raw_send': { method: 'Browser.getVersion' },
      'session.raw_session': {},
      'session.trace_start': {},
      'session.trace_stop': { path: join(home.dir, 'trace.zip') },
      'page.set_color_scheme': { scheme: 'dark' },
    };
    const declared = Object.keys(engine.browserLimits().firefox!.unsupportedOps);
    assert.deepEqual(declared.sort(), Object.keys(inputs).sort(), 'a sample input for every declared limit');
    const page = await session.newPage();
    const all = Object.values(ops) as {
      name: string;
      scope: string;
      call(s: unknown, i: unknown): Promise<unknown>;
    }[];
    for (const name of declared) {
      const op = all.find((o) => o.name === name);
      assert.ok(op, `${name} is an engine operation`);
      const subject = op.scope === 'page' ? page : session;
      await rejectsWith(() => op.call(subject, inputs[name]), 'unsupported_method');
    }
    await page.close();
  });

  test('a link download is saved in the session folder and recorded', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/downloads/index.html` });
    await page.evaluate(
      'download',
      () => (window as unknown as { downloadFile(): void }).downloadFile(),
      null,
    );
    const d = await session.waitForDownload({}, { timeoutMs: 15_000 });
    assert.equal(d.state, 'completed', JSON.stringify(d));
    assert.equal(d.suggested_filename, 'report.txt');
    assert.equal(d.url, `${server.url}/fixtures/downloads/file.txt`);
    assert.equal(d.path, join(home.dir, 'downloads', session.id, 'report.txt'));
    assert.equal(readFileSync(d.path!, 'utf8'), 'hello download\n');
    assert.ok(session.listDownloads().some((x) => x.download_id === d.download_id));
    // A blob the page made.
    await page.evaluate(
      'download',
      () => (window as unknown as { downloadBlob(): void }).downloadBlob(),
      null,
    );
    const blob = await session.waitForDownload({}, { timeoutMs: 15_000 });
    assert.equal(blob.state, 'completed', JSON.stringify(blob));
    assert.equal(readFileSync(blob.path!, 'utf8'), 'made in the page');
    // Opening a URL that is a file ends the navigation with the download, as on Chromium.
    const r = await page.open(`${server.url}/fixtures/downloads/data.bin`);
    assert.equal(r.download?.suggested_filename, 'data.bin');
    const bin = await session.waitForDownload(
      { download_id: r.download!.download_id },
      { timeoutMs: 15_000 },
    );
    assert.equal(bin.state, 'completed', JSON.stringify(bin));
    assert.deepEqual(readFileSync(bin.path!), readFileSync(join(FIXTURE_ROOT, 'downloads', 'data.bin')));
    await page.close();
  });

  test('page.upload sets a file input and its receipt says what the page got', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/actions/form.html` });
    const file = join(home.dir, 'upload.txt');
    writeFileSync(file, 'hello from firefox');
    const u = await ops.upload.call(page, { target: { selector: '#file' }, files: [file] });
    assert.equal(u.receipt.action, 'set_files');
    assert.equal(u.filesLength, 1);
    assert.deepEqual(u.fileNames, ['upload.txt']);
    assert.equal(await text(page, 'status'), 'files 1 upload.txt');
    assert.equal(u.pageChanged, true);
    // No CDP to ask for event listeners: the inline onchange is found by the heuristic, and it says so.
    assert.equal(u.listenerDetection, 'heuristic');
    assert.equal(u.consumed, 'listened');
    await page.close();
  });

  test('a click that opens a file chooser is reported on the receipt; nothing is chosen', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/js/signals.html` });
    const before = page.fileChoosers.lastSeq;
    const receipt = await page.act({ selector: '#choose' }, { action: 'click' });
    assert.deepEqual(receipt.file_chooser, {
      multiple: true,
      accept: '.pdf,image/*',
      input: { id: 'files', name: null, label: 'Attachments', selector: '#files' },
    });
    assert.equal(page.fileChoosers.list(before)[0]?.input.selector, '#files');
    const chosen = await page.evaluate(
      'files',
      () => (document.getElementById('files') as HTMLInputElement).files?.length,
      null,
    );
    assert.equal(chosen, 0);
    await page.close();
  });

  test('console messages and uncaught errors, with levels', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/engine/console.html` });
    await until('the page error', () => page.console.list().some((e) => e.type === 'pageerror'));
    assert.deepEqual(
      page.console.list().map((e) => [e.type, e.level, e.text]),
      [
        ['console', 'log', 'hello 42'],
        ['console', 'warning', 'careful'],
        ['console', 'error', 'broken thing'],
        ['pageerror', 'error', 'boom from a timer'],
      ],
    );
    await page.close();
  });

  test("elements made in another realm (an iframe's document) are in the snapshot and take actions; a password stays redacted", async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/snapshot/realms.html` });
    const s = await page.snapshot();
    const ref = (line: string) => {
      const m = new RegExp(`${line} \\[ref=(e\\d+)\\]`).exec(s.text);
      assert.ok(m, `no ${line} in:\n${s.text}`);
      return { element_ref: m[1]! };
    };
    const button = ref('button "Adopted button"');
    const click = await page.act(button, { action: 'click' });
    assert.deepEqual([click.status, click.changed], ['executed', true]);
    assert.equal(await text(page, 'status'), 'Adopted clicked');
    const canary = 'QZXffrealm9';
    const fill = await page.act(ref('textbox "Foreign password"'), { action: 'fill', value: canary });
    assert.equal(fill.verified, true);
    assert.equal(fill.changes.value?.after, '[redacted]');
    const select = await page.act(ref('combobox "Foreign color"'), { action: 'select', labels: ['Blue'] });
    assert.deepEqual(select.changes.value, { before: 'Red', after: 'Blue' });
    const after = await page.snapshot();
    assert.match(after.text, /textbox "Foreign password" .*\[ref=e\d+\] value="\[redacted\]"/);
    assert.ok(!JSON.stringify([fill, after]).includes(canary), 'the password leaked');
    await page.close();
  });

  test('the request log keeps a form POST body, the password field’s value masked', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/secrets/canary.html#d=ff` });
    const canary = 'FFPWcanary7731';
    // An agent reads the page first: the snapshot learns the page's own saved password (a value attribute).
    await page.snapshot();
    await page.act({ selector: '#user' }, { action: 'type', text: 'ada' });
    await page.act({ selector: '#pw' }, { action: 'type', text: canary });
    const since = session.requests.lastSeq;
    await page.act({ selector: '#go' }, { action: 'click' });
    const entry = await until('the POST to /echo', () =>
      session.requests
        .list({ filter: '/echo', since_seq: since })
        .find((e) => e.method === 'POST' && e.state === 'finished'),
    );
    assert.equal(entry.status, 200);
    assert.equal(entry.resource_type, 'document');
    assert.match(entry.post_data ?? '', /(?:^|&)user=ada(?:&|$)/, entry.post_data ?? 'no post_data');
    assert.match(entry.post_data ?? '', /(?:^|&)pw=[^&]+/);
    assert.ok(!(entry.post_data ?? '').includes(canary), `the password leaked: ${entry.post_data}`);
    assert.match(entry.post_data ?? '', /(?:^|&)saved=[^&]+/);
    assert.ok(
      !(entry.post_data ?? '').includes('PAGEOWNsavedQ7'),
      `the saved password leaked: ${entry.post_data}`,
    );
    assert.ok(!JSON.stringify(session.requests.list()).includes(canary));
    // A page fetch resends the typed password: its request and response bodies come from Firefox's
    // data collector (the log keeps response bodies of fetch/XHR), the known secret masked in both.
    await page.evaluateScript(
      `(pw) => fetch('/echo?again=1', { method: 'POST', body: 'user=ada&pw=' + pw })`,
      { args: [canary] },
    );
    const again = await until('the fetch POST to /echo', () =>
      session.requests.list({ filter: '/echo?again=1' }).find((e) => e.state === 'finished'),
    );
    assert.equal(again.resource_type, 'fetch');
    assert.match(again.post_data ?? '', /^user=ada&pw=/);
    assert.ok(!(again.post_data ?? '').includes(canary), `the password leaked: ${again.post_data}`);
    const withBody = session.requests.body(again.request_id).body ?? '';
    assert.match(withBody, /<pre id="body">user=ada&amp;pw=/);
    assert.ok(!withBody.includes(canary), `the password leaked in the response body: ${withBody}`);
    // The page did get the password: masking is in what we report, not in what the page sent.
    assert.match((await text(page, 'body')) ?? '', new RegExp(`pw=${canary}`));
    await page.close();
  });

  test('a confirm accepted by the dialog policy: the page receives true', async () => {
    const s = await engine.startSession({ dialogs: { confirm: 'accept' } }, { timeoutMs: 30_000 });
    try {
      const page = s.page();
      await page.open(`${server.url}/fixtures/dialogs/index.html`);
      const since = page.dialogs.lastSeq;
      await page.evaluate('confirm', () => (window as unknown as { doConfirm(): void }).doConfirm(), null);
      await page.wait({ js_predicate: `document.getElementById('out').textContent === 'confirm:true'` });
      const [d] = page.dialogs.list(since);
      assert.deepEqual(
        [d?.type, d?.state, d?.handled_by, d?.message],
        ['confirm', 'accepted', 'policy', 'Delete everything?'],
      );
    } finally {
      await engine.closeSession(s.id);
    }
  });

  test('a persistent profile keeps cookies across a restart; a second session on it is refused', async () => {
    const h = tempHome();
    const first = newEngine(h.dir, { browser: 'firefox' });
    const second = newEngine(h.dir, { browser: 'firefox' });
    try {
      const s1 = await first.startSession({ kind: 'persistent', profile: 'work' }, { timeoutMs: 60_000 });
      assert.equal(s1.kind, 'persistent');
      const p1 = s1.page();
      await p1.open(`${server.url}/fixtures/nav/a.html`);
      await p1.evaluate(
        'cookie',
        () => {
          // biome-ignore lint/suspicious/noDocumentCookie: the test needs a plain cookie to survive a restart.
          document.cookie = 'canary=kept-in-cookie; max-age=3600; path=/';
        },
        null,
      );
      // The same engine knows the profile is taken; another engine finds Firefox's lock on it.
      await rejectsWith(first.startSession({ kind: 'persistent', profile: 'work' }), 'permission_denied');
      await rejectsWith(
        second.startSession({ kind: 'persistent', profile: 'work' }, { timeoutMs: 30_000 }),
        'permission_denied',
      );
      await first.closeSession(s1.id);

      const s2 = await second.startSession({ kind: 'persistent', profile: 'work' }, { timeoutMs: 60_000 });
      const p2 = s2.page();
      await p2.open(`${server.url}/fixtures/nav/a.html`);
      const cookie = await p2.evaluate('cookie', () => document.cookie, null);
      assert.match(cookie, /canary=kept-in-cookie/);
    } finally {
      await Promise.all([first.close(), second.close()]);
      h.cleanup();
    }
  });

  test('the provider door over stdio, a Firefox session: download, console, upload; cdp.send refused', async () => {
    const h = tempHome();
    // A Chromium provider with raw CDP allowed, and a Firefox session in it (the draft's
    // browser_preference): cdp.send is listed, and refused on that session by the Firefox backend.
    const p = spawnProvider(h.dir, ['--allow-raw-cdp']);
    try {
      const d = await p.call('provider.describe');
      assert.match(d.family_limits.firefox.unsupported_methods['cdp.send'], /Chrome DevTools Protocol/);
      // Firefox starts 6-8× slower than Chromium: on a busy machine more than the default 10 s.
      const sid = (
        await p.call('session.ensure', { browser_preference: 'firefox', timeout_ms: 45_000 }, 60_000)
      ).session_id as string;
      await p.call('page.open', { session_id: sid, url: `${server.url}/fixtures/provider/index.html` });
      await p.call('page.click', { session_id: sid, selector: '#dl' });
      const done = await p.call('download.wait', { session_id: sid, timeout_ms: 15_000 });
      assert.equal(done.download.state, 'completed');
      assert.equal(readFileSync(done.download.path, 'utf8'), 'some notes\n');
      await p.call('page.click', { session_id: sid, selector: '#log' });
      const con = await p.call('console.list', { session_id: sid });
      assert.ok(
        con.entries.some((e: { text: string }) => e.text === 'hello console'),
        JSON.stringify(con),
      );
      const file = join(h.dir, 'upload.txt');
      writeFileSync(file, 'hi');
      const up = await p.call('upload.set_files', { session_id: sid, selector: '#upload', files: [file] });
      assert.deepEqual([up.set, up.files, up.receipt.upload.listener_detection], [true, 1, 'heuristic']);
      const cdp = await p.request('cdp.send', { session_id: sid, method: 'Runtime.evaluate', params: {} });
      assert.ok(!cdp.ok, JSON.stringify(cdp));
      assert.equal(cdp.error.code, 'unsupported_method', JSON.stringify(cdp.error));
      assert.match(cdp.error.message, /not available on Firefox.*Use a Chromium session/);
      // The Firefox session's shared browser stays after it closes: status counts it as running
      // although the default family (Chromium) never launched one.
      await p.call('session.close', { session_id: sid });
      const status = await p.call('provider.status');
      assert.equal(status.sessions, 0);
      assert.equal(status.browser_running, true, JSON.stringify(status.shared_browsers));
      assert.deepEqual(
        status.shared_browsers.map((b: { family: string; product: string | null }) => [b.family, b.product]),
        [['firefox', null]],
      );
    } finally {
      await p.close();
      h.cleanup();
    }
  });

  test('attach to a Firefox started with --remote-debugging-port; closing detaches and leaves it running', async () => {
    // Started the way a user would, with a temporary profile holding the backend's quiet preferences.
    const profile = join(home.dir, 'attach-profile');
    mkdirSync(profile);
    let external: StartedFirefox | undefined;
    const h = tempHome();
    const other = newEngine(h.dir, { browser: 'firefox' });
    try {
      external = await startFirefox({
        executablePath: requireFirefox(),
        headless: true,
        profileDir: profile,
        workDir: join(home.dir, 'attach-work'),
      });
      const endpoint = external.endpoint.replace(/^ws:/, 'http:');
      const s = await other.startSession({ kind: 'attach', endpoint }, { timeoutMs: 30_000 });
      assert.equal(s.info().attached_to_existing_browser, true);
      const r = await s.page().open(`${server.url}/fixtures/nav/a.html`);
      assert.equal(r.title, 'Page A');
      await other.closeSession(s.id);
      assert.equal(external.child.exitCode, null, 'the attached Firefox exited');
      assert.ok(isAlive(external.child.pid!), 'the attached Firefox still runs');
      // Detached for real: Firefox takes one BiDi session at a time, so attaching again shows ours ended.
      const again = await other.startSession({ kind: 'attach', endpoint }, { timeoutMs: 30_000 });
      const urls = again.pages().map((p) => p.url());
      assert.ok(urls.includes(`${server.url}/fixtures/nav/a.html`), JSON.stringify(urls));
      await other.close();
      assert.ok(isAlive(external.child.pid!), 'engine.close() leaves an attached Firefox running');
    } finally {
      await other.close();
      if (external?.child.pid)
        try {
          process.kill(-external.child.pid, 'SIGKILL');
        } catch {}
      h.cleanup();
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});
