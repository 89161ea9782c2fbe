import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { nextSeq, taskDir } from '../src/doors/http/evidence.js';
import type { Task } from '../src/doors/http/tasks.js';
import { tempHome } from './helpers/engine.js';

// The HTTP door's evidence files (`<seq>.png` / `<seq>.txt` under data/<id>/) are bounded per task:
// taking a number removes the files `keep` numbers older; the newest (what an answer names) stay.
// Narrow: the bound is plain file handling, so no browser is needed.

const home = tempHome();
after(() => home.cleanup());

const task = (id: string): Task => ({ id, extra: {} }) as unknown as Task;

/** What get_browser_state writes for one number: a screenshot and a state file. */
async function step(dataDir: string, t: Task, keep: number): Promise<number> {
  const seq = await nextSeq(dataDir, t, keep);
  const dir = taskDir(dataDir, t.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${seq}.png`), 'png');
  writeFileSync(join(dir, `${seq}.txt`), 'txt');
  return seq;
}

const numbers = (dir: string) =>
  [...new Set(readdirSync(dir).map((n) => Number(n.split('.')[0])))].sort((a, b) => a - b);

test('the oldest evidence numbers beyond the bound are removed; the newest stay', async () => {
  const dataDir = join(home.dir, 'data');
  const t = task('1001');
  const dir = taskDir(dataDir, t.id);
  for (let i = 0; i < 7; i++) await step(dataDir, t, 3);
  assert.deepEqual(numbers(dir), [5, 6, 7]);
  // Files that are not evidence numbers (a named screenshot, shot-N) are the caller's: kept.
  writeFileSync(join(dir, 'shot-1.png'), 'x');
  writeFileSync(join(dir, 'mine.png'), 'x');
  const seq = await step(dataDir, t, 3);
  assert.equal(seq, 8);
  assert.ok(existsSync(join(dir, '8.png')) && existsSync(join(dir, '8.txt')), 'the new pair is there');
  assert.ok(existsSync(join(dir, 'shot-1.png')) && existsSync(join(dir, 'mine.png')));
  assert.equal(existsSync(join(dir, '5.png')), false);
});

test('a restarted id continues its numbers and removes what its earlier tasks left beyond the bound', async () => {
  const dataDir = join(home.dir, 'data2');
  const dir = taskDir(dataDir, '42');
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= 10; i++) writeFileSync(join(dir, `${i}.png`), 'png');
  const seq = await step(dataDir, task('42'), 4);
  assert.equal(seq, 11, 'numbers continue: an earlier file is never overwritten');
  assert.deepEqual(numbers(dir), [8, 9, 10, 11]);
});
