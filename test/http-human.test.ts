import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { resolveDeadline } from '../src/engine/human-input.js';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';

let h: DoorHarness;
let id: string;

before(async () => {
  h = await doorHarness();
  id = await h.start();
  await h.ok(id, 'go_to_url', { url: `${h.fixtures.url}/fixtures/http-human/index.html` });
});
after(async () => h?.close());

test('request_human_input: element image by selector, GET-able imageUrl, steps, defaults', async () => {
  const r = await h.ok(id, 'request_human_input', { prompt: 'Solve the captcha', selector: '#captcha' });
  assert.match(r.requestId, new RegExp(`^hr-${id}-\\d+$`));
  assert.equal(r.prompt, 'Solve the captcha');
  assert.equal(r.status, 'pending');
  assert.ok(Math.abs(r.expiresInSeconds - 300) <= 1, String(r.expiresInSeconds));
  assert.match(r.url, /http-human/);
  assert.equal(r.base64Omitted, true);
  assert.equal(r.imageBase64, undefined);
  assert.equal(r.imageTarget, 'selector=#captcha');
  const img = await fetch(`${h.server.url}${r.imageUrl}`);
  assert.equal(img.status, 200);
  assert.equal(img.headers.get('content-type'), 'image/png');
  assert.equal((await img.arrayBuffer()).byteLength, r.imageSize);
  const inl = await h.ok(id, 'request_human_input', { prompt: 'again', selector: '#captcha', inline: true });
  assert.equal(Buffer.from(inl.imageBase64, 'base64').subarray(1, 4).toString(), 'PNG');
  const missing = await h.ok(id, 'request_human_input', { prompt: 'no such element', selector: '#nope' });
  assert.equal(missing.imageUrl, '');
  const steps = await h.ok(id, 'request_human_input', {
    steps: [{ prompt: 'Scan the QR code' }, { prompt: 'Type the SMS code', selector: '#code' }],
  });
  assert.deepEqual(
    steps.steps.map((s: Json) => [s.stepId, s.status]),
    [
      ['s1', 'pending'],
      ['s2', 'pending'],
    ],
  );
  assert.equal(steps.steps[1].selector, '#code');
  assert.equal(steps.steps[0].imageUrl, undefined);
  const stepImg = await fetch(`${h.server.url}${steps.steps[1].imageUrl}`);
  assert.equal(stepImg.headers.get('content-type'), 'image/png');
  const none = await h.fails(id, 'request_human_input', {});
  assert.equal(none.status, 400);
  assert.match(none.json.msg, /缺少参数 prompt/);
});

test('deadline precedence: expiresAt > expiresInSeconds > timeoutSeconds > 300 s; non-positive values ignored', async () => {
  const now = Date.now();
  const at = now + 42_000;
  const a = await h.ok(id, 'request_human_input', {
    prompt: 'p',
    expiresAt: at,
    expiresInSeconds: 100,
    timeoutSeconds: 200,
  });
  assert.equal(a.expiresAt, at);
  const b = await h.ok(id, 'request_human_input', {
    prompt: 'p',
    expiresInSeconds: 100,
    timeoutSeconds: 200,
  });
  assert.ok(Math.abs(b.expiresInSeconds - 100) <= 1);
  const c = await h.ok(id, 'request_human_input', { prompt: 'p', timeoutSeconds: 200 });
  assert.ok(Math.abs(c.expiresInSeconds - 200) <= 1);
  const d = await h.ok(id, 'ask_user', {
    questions: [{ question: 'q' }],
    expiresInSeconds: 0,
    timeoutSeconds: -5,
  });
  assert.ok(Math.abs(d.expiresInSeconds - 300) <= 1);
  const e = await h.ok(id, 'ask_user', { questions: [{ question: 'q' }], expiresAt: 0, timeoutSeconds: 7 });
  assert.ok(Math.abs(e.expiresInSeconds - 7) <= 1);
  // Echoing expiresInSeconds back works (synonym of timeoutSeconds).
  const f = await h.ok(id, 'request_human_input', { prompt: 'p', expiresInSeconds: b.expiresInSeconds });
  assert.ok(Math.abs(f.expiresInSeconds - b.expiresInSeconds) <= 1);
  // The rule itself, on arbitrary inputs.
  const vals = [undefined, -1, 0, 0.5, 1, 30, Number.NaN, Number.POSITIVE_INFINITY];
  for (const x of vals)
    for (const y of vals)
      for (const z of vals) {
        const t = 1_000_000;
        const got = resolveDeadline(
          {
            expires_at: x === undefined ? undefined : t + x * 1000,
            expires_in_seconds: y,
            timeout_seconds: z,
          },
          t,
        );
        const ok = (v: number | undefined) => typeof v === 'number' && Number.isFinite(v) && v > 0;
        const want = ok(x)
          ? Math.round(t + x! * 1000)
          : ok(y)
            ? t + Math.round(y! * 1000)
            : ok(z)
              ? t + Math.round(z! * 1000)
              : t + 300_000;
        assert.equal(got, want, JSON.stringify({ x, y, z }));
      }
});

test('get_human_input long-poll: returns the answer when submitted; times out to the current state', async () => {
  const r = await h.ok(id, 'request_human_input', { prompt: 'Enter the code' });
  const t0 = Date.now();
  const timedOut = await h.ok(id, 'get_human_input', { requestId: r.requestId, timeoutSeconds: 1 });
  assert.ok(Date.now() - t0 >= 950, 'waited');
  assert.equal(timedOut.status, 'pending');
  assert.equal(timedOut.prompt, 'Enter the code');
  // The long-poll holds no task lock: other commands of the task and the answer still run.
  const poll = h.ok(id, 'get_human_input', { requestId: r.requestId, timeoutSeconds: 20 });
  await new Promise((res) => setTimeout(res, 300));
  await h.ok(id, 'get_url');
  const sub = await h.ok(id, 'submit_human_input', { requestId: r.requestId, answer: '' });
  assert.equal(sub.status, 'answered');
  const t1 = Date.now();
  const got = await poll;
  assert.ok(Date.now() - t1 < 2000);
  assert.equal(got.status, 'answered');
  assert.equal(got.answer, '', 'an empty string is a valid answer');
  const again = await h.fails(id, 'submit_human_input', { requestId: r.requestId, answer: 'x' });
  assert.match(again.json.msg, /已经回答过了，不能再提交/);
});

test('multi-step: partial with pendingSteps, then answered; answers map', async () => {
  const r = await h.ok(id, 'request_human_input', {
    steps: [{ prompt: 'one' }, { prompt: 'two' }, { prompt: 'three' }],
  });
  const p1 = await h.ok(id, 'submit_human_input', { requestId: r.requestId, stepId: 's2', answer: 'B' });
  assert.equal(p1.status, 'partial');
  assert.deepEqual(p1.pendingSteps, ['s1', 's3']);
  const g = await h.ok(id, 'get_human_input', { requestId: r.requestId });
  assert.equal(g.status, 'partial');
  assert.equal(g.steps[1].answer, 'B');
  const bad = await h.fails(id, 'submit_human_input', { requestId: r.requestId, stepId: 's9', answer: 'x' });
  assert.match(bad.json.msg, /s9/);
  const done = await h.ok(id, 'submit_human_input', {
    requestId: r.requestId,
    answers: { s1: 'A', s3: 'C' },
  });
  assert.equal(done.status, 'answered');
  assert.deepEqual(
    done.steps.map((s: Json) => s.answer),
    ['A', 'B', 'C'],
  );
  assert.equal(done.pendingSteps, undefined);
  const missing = await h.fails(id, 'submit_human_input', { requestId: r.requestId });
  assert.equal(missing.status, 400);
});

test('ask_user: questions as steps; selected vs custom; unanswered questions appear with selected []', async () => {
  const q = await h.ok(id, 'ask_user', {
    questions: [
      {
        id: 'card',
        question: 'Card number?',
        header: 'Card',
        options: [{ label: 'Type it here', description: 'in the answer' }, 'I will type it on the page'],
      },
      {
        id: 'scope',
        question: 'Pick up to 3',
        multiSelect: true,
        options: [{ label: 'edu' }, { label: 'it' }],
      },
      { id: 'note', question: 'Anything else?' },
    ],
  });
  assert.match(q.requestId, /^aq-/);
  assert.deepEqual(q.questionIds, ['card', 'scope', 'note']);
  assert.deepEqual(q.questions[0].options[1], { label: 'I will type it on the page' });
  await h.ok(id, 'submit_human_input', {
    requestId: q.requestId,
    answers: { card: '4111 1111', scope: ['edu', 'it'] },
  });
  const g = await h.ok(id, 'get_human_input', { requestId: q.requestId });
  assert.equal(g.status, 'partial');
  assert.deepEqual(g.answers, [
    { id: 'card', selected: [], custom: '4111 1111' },
    { id: 'scope', selected: ['edu', 'it'] },
    { id: 'note', selected: [] },
  ]);
  await h.ok(id, 'submit_human_input', { requestId: q.requestId, stepId: 'note', answer: 'Type it here' });
  const g2 = await h.ok(id, 'get_human_input', { requestId: q.requestId });
  assert.equal(g2.status, 'answered');
  assert.deepEqual(g2.answers[2], { id: 'note', selected: [], custom: 'Type it here' });
  const empty = await h.fails(id, 'ask_user', { questions: [] });
  assert.equal(empty.status, 400);
});

test('expiry: a short deadline expires; a waiting long-poll wakes up with expired; submit refused', async () => {
  const r = await h.ok(id, 'request_human_input', { prompt: 'quick', expiresAt: Date.now() + 800 });
  const g = await h.ok(id, 'get_human_input', { requestId: r.requestId, timeoutSeconds: 10 });
  assert.equal(g.status, 'expired');
  assert.equal(g.expired, true);
  assert.ok(g.hint);
  assert.ok(g.waitedMs < 5000);
  const s = await h.fails(id, 'submit_human_input', { requestId: r.requestId, answer: 'late' });
  assert.match(s.json.msg, /已过期：请重新调用 request_human_input/);
  const unknown = await h.fails(id, 'get_human_input', { requestId: 'hr-nope-1' });
  assert.match(unknown.json.msg, /hr-nope-1/);
});
