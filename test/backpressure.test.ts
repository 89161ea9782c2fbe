import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAdmission } from '../src/engine/admission.js';
import { TabwrightError } from '../src/engine/errors.js';
import { tempHome } from './helpers/engine.js';
import type { Json } from './helpers/http.js';
import { type ServeProcess, spawnServe } from './helpers/serve.js';

// Back-pressure (issue 23): a process that cannot take another session refuses it with a retryable
// error that says why, and `tabwright serve` reports its sessions and memory at GET /health.
// Run `npm run -s build` first.

const home = tempHome();
let serve: ServeProcess;

before(async () => {
  serve = await spawnServe(home.dir, ['--max-sessions', '1', '--min-free-mb', '0']);
});
after(async () => {
  await serve?.close();
  home.cleanup();
});

const command = async (body: Json): Promise<Json> =>
  (await fetch(`${serve.url}/playwright/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.json())) as Json;

const health = async (): Promise<Json> => (await fetch(`${serve.url}/health`).then((r) => r.json())) as Json;

test('serve: a session past --max-sessions is refused, retryable, saying why; /health tells', async () => {
  const idle = await health();
  assert.equal(idle.ok, true);
  assert.equal(idle.sessions, 0);
  assert.equal(idle.accepting_sessions, true);
  assert.deepEqual(idle.limits, { max_sessions: 1, min_free_mb: 0 });
  for (const k of ['rss', 'heap_used', 'machine_available', 'machine_total'])
    assert.ok(idle.memory_mb[k] > 0, `memory_mb.${k}: ${JSON.stringify(idle.memory_mb)}`);

  const first = await command({ method: 'start' });
  assert.equal(first.ok, true, JSON.stringify(first));
  const second = await command({ method: 'start' });
  assert.equal(second.ok, false, JSON.stringify(second));
  assert.equal(second.data.retryable, true, JSON.stringify(second));
  // In this door's words (Chinese), with the flag that sets the limit.
  assert.match(second.msg, /服务已经有 1 个任务，达到上限（--max-sessions/, second.msg);
  assert.match(second.data.engineMessage, /holds 1 sessions, its limit/);

  const busy = await health();
  assert.equal(busy.sessions, 1);
  assert.equal(busy.pages, 1);
  assert.equal(busy.accepting_sessions, false);
  assert.equal(busy.refusing_because, 'session_limit');
  assert.equal(busy.counts.contexts, 1);

  assert.equal((await command({ id: first.data.id, method: 'close' })).ok, true);
  const again = await command({ method: 'start' });
  assert.equal(again.ok, true, `a session ended, so the next one is taken: ${JSON.stringify(again)}`);
  await command({ id: again.data.id, method: 'close' });
});

test('the free-memory floor refuses a new session with low_memory and the figures', () => {
  const mib = 2 ** 20;
  assert.doesNotThrow(() => checkAdmission({ minFreeMemoryMb: 256 }, 3, () => 300 * mib));
  assert.doesNotThrow(() => checkAdmission({ minFreeMemoryMb: 0 }, 3, () => 1));
  assert.throws(
    () => checkAdmission({ minFreeMemoryMb: 256 }, 3, () => 100 * mib),
    (err: unknown) =>
      err instanceof TabwrightError &&
      err.code === 'not_ready' &&
      err.retryable &&
      err.details.reason === 'low_memory' &&
      err.details.available_mb === 100 &&
      err.details.min_free_mb === 256 &&
      /100 MiB of memory available, below .* 256 MiB/.test(err.message),
  );
  assert.throws(
    () => checkAdmission({ maxSessions: 2 }, 2, () => 10_000 * mib),
    (err: unknown) => err instanceof TabwrightError && err.details.reason === 'session_limit',
  );
});
