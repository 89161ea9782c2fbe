import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { substitute } from '../src/doors/http/recipes.js';
import { doorTestEnv, type Json } from './helpers/http.js';
import { seededRandom } from './helpers/random.js';

const { h, id } = await doorTestEnv();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(jobId: string, status: string, ms = 20_000): Promise<Json> {
  const end = Date.now() + ms;
  for (;;) {
    const j = await h.ok(undefined, 'get_job', { jobId });
    if (j.status === status) return j;
    assert.ok(Date.now() < end, `job ${jobId} still ${j.status}`);
    await sleep(100);
  }
}

test('commands async:true returns a jobId at once; get_job while running, then the batch reply', async () => {
  const t0 = Date.now();
  const r = await h.ok(id, 'commands', {
    async: true,
    commands: [{ go_to_url: { url: h.page('form.html') } }, { wait: { seconds: 0.8 } }, { get_title: {} }],
  });
  assert.ok(Date.now() - t0 < 2000, 'answered at once');
  assert.match(r.jobId, /^job-/);
  assert.equal(r.status, 'running');
  assert.equal(r.browserId, id);
  assert.ok(r.hint);
  const running = await h.ok(undefined, 'get_job', { jobId: r.jobId });
  assert.equal(running.status, 'running');
  assert.ok(running.hint);
  // Other commands of the task run between the job's steps.
  const url = await h.ok(id, 'get_url');
  assert.equal(typeof url.url, 'string');
  const done = await until(r.jobId, 'done');
  assert.equal(done.ok, true);
  assert.equal(done.data.count, 3);
  assert.equal(done.data.succeeded, 3);
  assert.equal(done.data.results[2].data.title, 'Form page');
  assert.equal(done.hint, undefined);
  const slim = await h.ok(undefined, 'get_job', { jobId: r.jobId, includeResult: false });
  assert.equal(slim.data, undefined);
  assert.equal(slim.steps, 3);
});

test('a failing async batch ends failed with the results and the first failure', async () => {
  const r = await h.ok(id, 'commands', {
    async: true,
    commands: [{ get_title: {} }, { no_such_method: {} }],
  });
  const j = await until(r.jobId, 'failed');
  assert.equal(j.ok, false);
  assert.match(j.msg, /第 1 条命令 no_such_method/);
  assert.equal(j.data.failed, 1);
  // Structure errors are refused before a job exists.
  const bad = await h.fails(id, 'commands', { async: true, commands: [] });
  assert.equal(bad.status, 400);
});

test('cancel_job: takes effect before the next step; the running step is not interrupted', async () => {
  const r = await h.ok(id, 'commands', {
    async: true,
    commands: [
      { wait: { seconds: 0.6 } },
      { wait: { seconds: 0.6 } },
      { wait: { seconds: 0.6 } },
      { get_url: {} },
    ],
  });
  await sleep(250);
  const c = await h.ok(undefined, 'cancel_job', { jobId: r.jobId });
  assert.equal(c.cancelRequested, true);
  assert.equal(c.status, 'running');
  assert.ok(c.note);
  const j = await until(r.jobId, 'cancelled');
  assert.equal(j.data.stopReason, 'cancelled');
  assert.equal(j.data.stopped, true);
  assert.equal(j.data.count, 1, 'the first step finished, nothing after it ran');
  assert.equal(j.data.results[0].ok, true);
  assert.equal(j.data.failed, 0);
  const again = await h.ok(undefined, 'cancel_job', { jobId: r.jobId });
  assert.equal(again.status, 'cancelled');
  const unknown = await h.fails(undefined, 'get_job', { jobId: 'job-nope' });
  assert.match(unknown.json.msg, /job-nope/);
  await h.fails(undefined, 'cancel_job', { jobId: 'job-nope' });
});

test('list_jobs: newest first, default 20, only the last 50 kept', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 52; i++) {
    const r = await h.ok(id, 'commands', { async: true, commands: [{ get_url: {} }] });
    ids.push(r.jobId);
  }
  await until(ids.at(-1)!, 'done');
  const l = await h.ok(undefined, 'list_jobs', {});
  assert.equal(l.count, 20);
  assert.equal(l.jobs[0].jobId, ids.at(-1));
  assert.equal(l.jobs[0].data, undefined);
  const all = await h.ok(undefined, 'list_jobs', { limit: 500 });
  assert.equal(all.count, 50);
  await h.fails(undefined, 'get_job', { jobId: ids[0] });
});

test('recipes: list_recipes and run_recipe with {{vars}} (defaults merged, JSON-encoded in scripts)', async () => {
  const dir = join(h.home, 'recipes');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'open-and-read.json'),
    JSON.stringify({
      name: 'open-and-read',
      description: 'Open a page and read its title',
      params: ['page', 'sel'],
      defaults: { sel: 'h1' },
      commands: [
        { go_to_url: { url: '{{base}}/fixtures/http/{{page}}' } },
        { execute_js: { body: 'document.querySelectorAll("{{sel}}").length >= 0' } },
        { get_title: {} },
      ],
    }),
  );
  writeFileSync(join(dir, 'broken.json'), '{ not json');
  const l = await h.ok(undefined, 'list_recipes', {});
  assert.equal(l.count, 1);
  assert.equal(l.dir, dir);
  assert.deepEqual(l.recipes[0], {
    name: 'open-and-read',
    description: 'Open a page and read its title',
    params: ['page', 'sel'],
    defaults: { sel: 'h1' },
    stepCount: 3,
  });
  assert.equal(l.errors.length, 1);
  const r = await h.ok(id, 'run_recipe', {
    name: 'open-and-read',
    vars: { base: h.fixtures.url, page: 'form.html' },
  });
  assert.equal(r.recipe, 'open-and-read');
  assert.equal(r.recipeDescription, 'Open a page and read its title');
  assert.equal(r.count, 3);
  assert.equal(r.results[1].data.result, true);
  assert.equal(r.results[2].data.title, 'Form page');
  const missing = await h.fails(id, 'run_recipe', { name: 'open-and-read', vars: { page: 'x' } });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.json.data.missingVars, ['base']);
  const none = await h.fails(id, 'run_recipe', { name: 'nope' });
  assert.match(none.json.msg, /没有这个配方/);
  const evil = await h.fails(id, 'run_recipe', { name: '../x' });
  assert.equal(evil.status, 400);
  // A failing step: batch failure reply plus the recipe fields.
  writeFileSync(
    join(dir, 'fails.json'),
    JSON.stringify({ commands: [{ get_title: {} }, { nope_method: {} }] }),
  );
  const f = await h.fails(id, 'run_recipe', { name: 'fails' });
  assert.equal(f.json.data.recipe, 'fails');
  assert.equal(f.json.data.failed, 1);
});

test('substitute: typed whole values, quoted placeholders JSON-encoded, missing names collected (fuzz)', () => {
  const vars = { s: 'a"b\\c', n: 3, o: { k: [1, 'x'] }, b: false };
  assert.deepEqual(substitute({ a: '{{n}}', b: '{{ o }}', c: ['{{b}}'] }, vars), {
    a: 3,
    b: { k: [1, 'x'] },
    c: [false],
  });
  assert.equal(substitute('q("{{s}}")', vars), `q(${JSON.stringify(vars.s)})`);
  assert.equal(substitute("q('{{s}}')", vars), `q(${JSON.stringify(vars.s)})`);
  assert.equal(substitute('n={{n}};o={{o}};s={{s}}', vars), `n=3;o={"k":[1,"x"]};s=a"b\\c`);
  const missing = new Set<string>();
  assert.equal(substitute('x {{nope}} y', vars, missing), 'x {{nope}} y');
  assert.deepEqual([...missing], ['nope']);
  // Random strings with random placeholders: a quoted placeholder always yields a parseable JS string literal.
  const alphabet = ['a', '"', "'", '\\', '{', '}', '{{', '}}', ' ', '\n', '\u2028', '中', '$&', '$1'];
  const random = seededRandom(7);
  const rnd = (n: number) => Math.floor(random() * n);
  for (let i = 0; i < 500; i++) {
    let value = '';
    for (let j = rnd(12); j > 0; j--) value += alphabet[rnd(alphabet.length)];
    const out = substitute('f("{{v}}")', { v: value }) as string;
    assert.equal(JSON.parse(out.slice(2, -1)), value);
    // Never throws, whatever the template.
    let tpl = '';
    for (let j = rnd(16); j > 0; j--) tpl += alphabet[rnd(alphabet.length)] + (rnd(3) === 0 ? '{{v}}' : '');
    const res = substitute(tpl, { v: value });
    assert.equal(typeof res, 'string');
  }
});
