import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { driverDefaultArgs } from '../src/backends/chromium/default-args.js';
import { requireChromium } from '../src/backends/chromium/discovery.js';
import { launchArgs } from '../src/backends/chromium/flags.js';
import { type DoorHarness, doorHarness } from './helpers/http.js';

let h: DoorHarness;
let browser: Browser;
let id: string;

before(async () => {
  h = await doorHarness();
  id = await h.start();
  await h.ok(id, 'go_to_url', { url: `${h.fixtures.url}/fixtures/dashboard/login.html` });
  // The human's browser gets our launch flags too, or it resolves Google's hosts during the suite.
  browser = await chromium.launch({
    executablePath: requireChromium().path,
    headless: true,
    ...launchArgs([], driverDefaultArgs()),
  });
});
after(async () => {
  await browser?.close().catch(() => {});
  await h?.close();
});

test('the dashboard is served at GET / with the API guard (foreign Origin refused), assets from the package', async () => {
  const res = await fetch(`${h.server.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(await res.text(), /\/dashboard\/assets\/app\.js/);
  const js = await fetch(`${h.server.url}/dashboard/assets/app.js`);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  const bad = await fetch(`${h.server.url}/dashboard/assets/..%2Findex.ts`);
  assert.equal(bad.status, 404);
  const cross = await fetch(`${h.server.url}/dashboard/api/answer`, {
    method: 'POST',
    headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
    body: '{"requestId":"x","answer":"y"}',
  });
  assert.equal(cross.status, 403);
  const state = (await (await fetch(`${h.server.url}/dashboard/api/state`)).json()) as {
    tasks: { id: string; url: string; headless: boolean }[];
  };
  assert.equal(state.tasks[0]!.id, id);
  assert.match(state.tasks[0]!.url, /login\.html/);
  assert.equal(state.tasks[0]!.headless, true);
  const shot = await fetch(`${h.server.url}/dashboard/api/tasks/${id}/screenshot`);
  assert.equal(shot.headers.get('content-type'), 'image/jpeg');
  const json = { 'content-type': 'application/json' };
  const front = await fetch(`${h.server.url}/dashboard/api/tasks/${id}/front`, {
    method: 'POST',
    headers: json,
    body: '{}',
  });
  assert.deepEqual(await front.json(), { ok: true, headless: true });
  const nope = await fetch(`${h.server.url}/dashboard/api/tasks/999/front`, {
    method: 'POST',
    headers: json,
    body: '{}',
  });
  assert.equal(nope.status, 404);
  const badInput = await fetch(`${h.server.url}/dashboard/api/tasks/${id}/input`, {
    method: 'POST',
    headers: json,
    body: '{"type":"key","key":"F13"}',
  });
  assert.equal(badInput.status, 400);
  const badAnswer = await fetch(`${h.server.url}/dashboard/api/answer`, {
    method: 'POST',
    headers: json,
    body: '{"requestId":"hr-x-1"}',
  });
  assert.equal(badAnswer.status, 400);
});

test('a pending request appears live; the person answers in the dashboard; the agent long-poll returns it', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${h.server.url}/`);
  await page.locator('#conn[data-state="live"]').waitFor({ timeout: 10_000 });
  await page.locator(`[data-task-id="${id}"] img.shot`).waitFor({ timeout: 10_000 });
  // The request is made after the page loaded: it arrives over the event stream, no reload.
  const r = await h.ok(id, 'request_human_input', {
    prompt: 'Type the code shown in the yellow box',
    selector: '#captcha',
  });
  const card = page.locator(`article[data-request-id="${r.requestId}"]`);
  await card.waitFor({ timeout: 10_000 });
  assert.match((await card.locator('.prompt').textContent()) ?? '', /yellow box/);
  await card.locator('img.target').waitFor();
  assert.ok(
    await card
      .locator('img.target')
      .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
  );
  assert.equal(await page.locator('#req-count').textContent(), '1');
  if (process.env.TABWRIGHT_DOCS_SHOT) await docsShot();
  const poll = h.ok(id, 'get_human_input', { requestId: r.requestId, timeoutSeconds: 30 });
  await card.locator('input[name="answer"]').fill('X7Q2');
  await card.locator('button[type="submit"]').click();
  const got = await poll;
  assert.equal(got.status, 'answered');
  assert.equal(got.answer, 'X7Q2');
  // The card leaves the open list and shows under "recently closed".
  await page
    .locator(`#closed [data-request-id="${r.requestId}"][data-status="answered"]`)
    .waitFor({ timeout: 5_000 });
  assert.equal(await card.count(), 0);

  // ask_user with options, and "done in browser" for an action request.
  const q = await h.ok(id, 'ask_user', {
    questions: [{ id: 'who', question: 'Who types the card number?', options: ['me', 'the agent'] }],
  });
  const qc = page.locator(`article[data-request-id="${q.requestId}"]`);
  await qc.waitFor({ timeout: 10_000 });
  await qc.getByLabel('me').check();
  await qc.locator('button[type="submit"]').click();
  const qa = await h.ok(id, 'get_human_input', { requestId: q.requestId, timeoutSeconds: 10 });
  assert.deepEqual(qa.answers, [{ id: 'who', selected: ['me'] }]);
  const d = await h.ok(id, 'request_human_input', { prompt: 'Log in, please' });
  const dc = page.locator(`article[data-request-id="${d.requestId}"]`);
  await dc.waitFor({ timeout: 10_000 });
  await dc.getByRole('button', { name: 'Done in browser' }).click();
  const da = await h.ok(id, 'get_human_input', { requestId: d.requestId, timeoutSeconds: 10 });
  assert.equal(da.status, 'answered');
  assert.equal(da.markedDone, true);
  await page.close();
});

test('a person whose browser asks for Chinese gets the dashboard in Chinese; others in English', async () => {
  const zh = await browser.newPage({ locale: 'zh-CN' });
  const en = await browser.newPage({ locale: 'en-US' });
  try {
    for (const p of [zh, en]) {
      await p.goto(`${h.server.url}/`);
      await p.locator('#conn[data-state="live"]').waitFor({ timeout: 10_000 });
    }
    const r = await h.ok(id, 'request_human_input', { prompt: '请登录' });
    const button = (p: typeof zh) =>
      p.locator(`article[data-request-id="${r.requestId}"] button[type="submit"]`).textContent();
    await zh.locator(`article[data-request-id="${r.requestId}"]`).waitFor({ timeout: 10_000 });
    await en.locator(`article[data-request-id="${r.requestId}"]`).waitFor({ timeout: 10_000 });
    assert.equal(await button(zh), '提交回答');
    assert.equal(await button(en), 'Send answer');
    assert.equal(await zh.locator('#tasks-h span').first().textContent(), '运行中的任务');
    assert.equal(await zh.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal(await en.locator('#conn').textContent(), 'live');
    assert.equal(await zh.locator('#conn').textContent(), '已连接');
    await zh
      .locator(`article[data-request-id="${r.requestId}"] button`, { hasText: '已在浏览器里完成' })
      .click();
    assert.equal(
      (await h.ok(id, 'get_human_input', { requestId: r.requestId, timeoutSeconds: 10 })).status,
      'answered',
    );
  } finally {
    await Promise.all([zh.close(), en.close()]);
  }
});

test('live view: the person clicks and types into a headless task page through screencast frames', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(`${h.server.url}/`);
  await page.locator(`[data-task-id="${id}"] button`, { hasText: 'Live view' }).click();
  const img = page.locator('#live-img');
  await page.waitForFunction(
    () => Number(document.querySelector<HTMLImageElement>('#live-img')?.dataset.frames ?? 0) > 0,
    null,
    {
      timeout: 10_000,
    },
  );
  // Click where the input is on the task's page (CSS px 20+100, 160+18), scaled to the picture.
  const box = (await img.boundingBox())!;
  const natural = await page.evaluate(() => {
    const status = document.querySelector('#live-status')!.textContent!;
    const [w, hgt] = status.split(' ')[0]!.split('×').map(Number);
    return { w: w!, h: hgt! };
  });
  await page.mouse.click(box.x + (120 / natural.w) * box.width, box.y + (178 / natural.h) * box.height);
  await page.keyboard.type('hello');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  const session = h.engine.sessions().find((s) => s.page().url().includes('login.html'))!;
  const read = async () =>
    (
      await session
        .page()
        .evaluateScript(
          `[document.getElementById('code').value, document.getElementById('keys').textContent]`,
          {
            timeoutMs: 5_000,
          },
        )
    ).value as [string, string];
  const end = Date.now() + 10_000;
  let got = await read();
  while (!got[1].includes('Enter') && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    got = await read();
  }
  assert.equal(got[0], 'hell');
  assert.match(got[1], /h e l l o Backspace Enter/);
  // Frames keep coming as the page changes.
  const before = Number(await img.getAttribute('data-frames'));
  assert.ok(before >= 1);
  await page.locator('#live-close').click();
  await page.close();
});

/** docs/dashboard.png: the dashboard with a pending request, taken with the engine's own screenshot. */
async function docsShot(): Promise<void> {
  const s = await h.engine.startSession({});
  try {
    const p = s.page();
    await p.open(`${h.server.url}/`, 'load', { timeoutMs: 10_000 });
    // Let the event stream deliver the state and the images load.
    await new Promise((r) => setTimeout(r, 1500));
    const shot = await p.screenshot({ format: 'png' }, { timeoutMs: 10_000 });
    writeFileSync(new URL('../docs/dashboard.png', import.meta.url), shot.data);
  } finally {
    await h.engine.closeSession(s.id);
  }
}
