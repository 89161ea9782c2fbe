import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ChromiumPage } from '../src/backends/chromium/chromium-page.js';
import type { Page } from '../src/index.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, engine, session, home } = await engineTestEnv();

type DialogWindow = Record<'doAlert' | 'doConfirm' | 'doPrompt', () => void>;

async function trigger(page: Page, fn: keyof DialogWindow): Promise<void> {
  await page.evaluate('trigger', (f) => (window as unknown as DialogWindow)[f](), fn);
}

async function out(page: Page, expected: string): Promise<void> {
  await page.wait({
    js_predicate: `document.getElementById('out').textContent === ${JSON.stringify(expected)}`,
  });
}

async function dialogPage(): Promise<Page> {
  const page = session.page();
  await page.open(`${server.url}/fixtures/dialogs/index.html`);
  return page;
}

describe('dialogs', () => {
  test('default policy: alert accepted, confirm and prompt dismissed, all recorded', async () => {
    session.setDialogPolicy({
      alert: 'accept',
      beforeunload: 'accept',
      confirm: 'dismiss',
      prompt: 'dismiss',
    });
    const page = await dialogPage();
    const since = page.dialogs.lastSeq;
    await trigger(page, 'doAlert');
    await out(page, 'alert:done');
    await trigger(page, 'doConfirm');
    await out(page, 'confirm:false');
    await trigger(page, 'doPrompt');
    await out(page, 'prompt:null');
    const seen = page.dialogs.list(since);
    assert.deepEqual(
      seen.map((d) => [d.type, d.state, d.handled_by]),
      [
        ['alert', 'accepted', 'policy'],
        ['confirm', 'dismissed', 'policy'],
        ['prompt', 'dismissed', 'policy'],
      ],
    );
    assert.equal(seen[1]!.message, 'Delete everything?');
    assert.equal(seen[2]!.default_value, 'Ada');
    assert.equal(page.pendingDialog(), null);
  });

  test('a fresh session uses the documented default policy', async () => {
    const s = await engine.startSession();
    try {
      assert.deepEqual(s.dialogPolicy, {
        alert: 'accept',
        beforeunload: 'accept',
        confirm: 'dismiss',
        prompt: 'dismiss',
      });
    } finally {
      await engine.closeSession(s.id);
    }
  });

  test('a session can start with a dialog policy; a bad one is refused before starting', async () => {
    const s = await engine.startSession({ dialogs: { confirm: 'hold' } });
    try {
      assert.equal(s.dialogPolicy.confirm, 'hold');
      assert.equal(s.dialogPolicy.alert, 'accept');
    } finally {
      await engine.closeSession(s.id);
    }
    await rejectsWith(engine.startSession({ dialogs: 'sometimes' as 'hold' }), 'invalid_request');
  });

  test('policy accept: confirm returns true and prompt its default value', async () => {
    session.setDialogPolicy('accept');
    const page = await dialogPage();
    await trigger(page, 'doConfirm');
    await out(page, 'confirm:true');
    await trigger(page, 'doPrompt');
    await out(page, 'prompt:Ada');
  });

  test('policy hold: the confirm waits for the caller, blocks waits, then is accepted', async () => {
    session.setDialogPolicy({ confirm: 'hold' });
    const page = await dialogPage();
    await trigger(page, 'doConfirm');
    const deadline = Date.now() + 5000;
    while (!page.pendingDialog() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const pending = page.pendingDialog();
    assert.equal(pending?.type, 'confirm');
    assert.equal(pending?.state, 'pending');
    const err = await rejectsWith(page.wait({ text_present: 'confirm:' }), 'not_ready');
    assert.equal(err.details.reason, 'dialog_open');
    const done = await page.handleDialog({ accept: true });
    assert.equal(done.state, 'accepted');
    assert.equal(done.handled_by, 'caller');
    await out(page, 'confirm:true');
    assert.equal(page.pendingDialog(), null);
  });

  test('policy hold: a prompt is answered with the caller’s text', async () => {
    session.setDialogPolicy({ prompt: 'hold' });
    const page = await dialogPage();
    await trigger(page, 'doPrompt');
    const deadline = Date.now() + 5000;
    while (!page.pendingDialog() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const done = await page.handleDialog({ accept: true, prompt_text: 'Grace' });
    assert.equal(done.prompt_text, 'Grace');
    await out(page, 'prompt:Grace');
  });

  test('policy hold: dismissing a held dialog', async () => {
    session.setDialogPolicy({ alert: 'hold' });
    const page = await dialogPage();
    await trigger(page, 'doAlert');
    const deadline = Date.now() + 5000;
    while (!page.pendingDialog() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(page.pendingDialog()?.message, 'Hello');
    const done = await page.handleDialog({ accept: false });
    assert.equal(done.state, 'dismissed');
    await out(page, 'alert:done');
  });

  test('policy hold: a dialog during a page load holds the load until it is answered', async () => {
    session.setDialogPolicy({ alert: 'hold' });
    const page = session.page();
    const nav = page.open(`${server.url}/fixtures/dialogs/onload-alert.html`, 'load', { timeoutMs: 10_000 });
    const deadline = Date.now() + 5000;
    while (!page.pendingDialog() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(page.pendingDialog()?.message, 'welcome');
    await page.handleDialog({ accept: true });
    const r = await nav;
    assert.equal(r.title, 'Welcome');
    session.setDialogPolicy({ alert: 'accept' });
  });

  test('beforeunload is captured and accepted by default, so navigation proceeds', async () => {
    session.setDialogPolicy({ beforeunload: 'accept' });
    const page = await dialogPage();
    // beforeunload needs a real user gesture on the page first.
    await (page.backend as ChromiumPage).pw.click('#activate');
    const since = page.dialogs.lastSeq;
    const r = await page.open(`${server.url}/fixtures/nav/a.html`);
    assert.equal(r.title, 'Page A');
    const seen = page.dialogs.list(since);
    assert.equal(seen[0]?.type, 'beforeunload');
    assert.equal(seen[0]?.state, 'accepted');
  });

  test('handleDialog without a pending dialog and bad policies are invalid_request', async () => {
    const page = await dialogPage();
    await rejectsWith(page.handleDialog({ accept: true }), 'invalid_request');
    assert.throws(() => session.setDialogPolicy('maybe' as 'accept'), { code: 'invalid_request' });
    assert.throws(() => session.setDialogPolicy({ popup: 'accept' } as never), { code: 'invalid_request' });
  });
});

type DownloadWindow = Record<'downloadFile' | 'downloadBlob', () => void>;

async function download(page: Page, fn: keyof DownloadWindow): Promise<void> {
  await page.evaluate('download', (f) => (window as unknown as DownloadWindow)[f](), fn);
}

describe('downloads', () => {
  test('a link download is saved in the session folder with an id, size and state', async () => {
    const page = session.page();
    await page.open(`${server.url}/fixtures/downloads/index.html`);
    await download(page, 'downloadFile');
    const d = await session.waitForDownload({}, { timeoutMs: 10_000 });
    assert.equal(d.state, 'completed');
    assert.match(d.download_id, /^dl_/);
    assert.equal(d.suggested_filename, 'report.txt');
    assert.equal(d.url, `${server.url}/fixtures/downloads/file.txt`);
    assert.equal(d.path, join(home, 'downloads', session.id, 'report.txt'));
    assert.equal(readFileSync(d.path, 'utf8'), 'hello download\n');
    assert.equal(d.size, 15);
    assert.equal(d.page_id, page.id);
    assert.ok(session.listDownloads().some((x) => x.download_id === d.download_id));
    // Waiting for a finished download by id answers at once.
    const again = await session.waitForDownload({ download_id: d.download_id });
    assert.equal(again.state, 'completed');
  });

  test('a second download of the same name gets its own file', async () => {
    const page = session.page();
    await page.open(`${server.url}/fixtures/downloads/index.html`);
    const since = session.downloads.lastSeq;
    await download(page, 'downloadFile');
    const d = await session.waitForDownload({}, { timeoutMs: 10_000 });
    assert.equal(d.path, join(home, 'downloads', session.id, 'report (1).txt'));
    assert.ok(existsSync(d.path));
    assert.equal(session.listDownloads(since).length, 1);
  });

  test('a blob download made by the page is saved too', async () => {
    const page = session.page();
    await page.open(`${server.url}/fixtures/downloads/index.html`);
    await download(page, 'downloadBlob');
    const d = await session.waitForDownload({}, { timeoutMs: 10_000 });
    assert.equal(d.suggested_filename, 'blob.txt');
    assert.equal(readFileSync(d.path, 'utf8'), 'made in the page');
  });

  test('opening a URL that is a file reports the download instead of failing', async () => {
    const page = session.page();
    const r = await page.open(`${server.url}/fixtures/downloads/data.bin`);
    assert.equal(r.status, null);
    assert.equal(r.download?.suggested_filename, 'data.bin');
    const d = await session.waitForDownload({ download_id: r.download!.download_id });
    assert.equal(d.state, 'completed');
    assert.equal(d.size, 12);
  });

  test('waiting with no download is not_ready (retryable); an unknown id is invalid_request', async () => {
    const err = await rejectsWith(session.waitForDownload({}, { timeoutMs: 300 }), 'not_ready');
    assert.equal(err.retryable, true);
    await rejectsWith(session.waitForDownload({ download_id: 'dl_nope' }), 'invalid_request');
  });
});
