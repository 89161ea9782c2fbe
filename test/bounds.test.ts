import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailSignal } from '../src/engine/fail-signal.js';
import type { Session } from '../src/engine/session.js';
import { MAX_REFS, registryOf } from '../src/snapshot/refs.js';

// Bounds on what the engine keeps for a long-lived session (docs/ARCHITECTURE.md, "Bounds"): narrow
// unit tests of the two structures that grew with every call; the soak test watches the rest.

test('a death/crash guard keeps nothing for calls that settled, and fails the ones in flight', async () => {
  const signal = new FailSignal();
  for (let i = 0; i < 1000; i++) await signal.race(Promise.resolve(i));
  await assert.rejects(signal.race(Promise.reject(new Error('own failure'))), /own failure/);
  assert.equal(signal.size, 0, 'settled calls must not stay registered');
  const pending = signal.race(new Promise(() => {}));
  assert.equal(signal.size, 1);
  signal.fail(new Error('browser gone'));
  await assert.rejects(pending, /browser gone/);
  assert.equal(signal.size, 0);
  await assert.rejects(
    signal.race(Promise.resolve(1)),
    /browser gone/,
    'after the failure, every call fails at once',
  );
});

test('the ref table of a session is bounded; a forgotten ref was still issued (so it is reported stale)', () => {
  const session = {} as Session;
  const registry = registryOf(session);
  let last = '';
  for (let i = 0; i < MAX_REFS + 500; i++) last = registry.refFor('page_1', 'frame_1', 'doc_1', i);
  assert.equal(registry.size, MAX_REFS);
  assert.equal(registry.lookup('e1'), undefined, 'the oldest refs are forgotten');
  assert.equal(registry.issued('e1'), true);
  assert.equal(registry.issued(`e${MAX_REFS + 501}`), false);
  assert.ok(registry.lookup(last), 'the newest refs are kept');
  // A forgotten element gets a new ref when it is seen again: refs are never recycled.
  assert.equal(registry.refFor('page_1', 'frame_1', 'doc_1', 0), `e${MAX_REFS + 501}`);
});

test('refs of a replaced document stay known as stale; eviction keeps the newest documents able to hand out refs', () => {
  const registry = registryOf({} as Session);
  const old = registry.refFor('page_1', 'frame_1', 'doc_a', 1);
  assert.equal(registry.refFor('page_1', 'frame_1', 'doc_a', 1), old, 'one element, one ref');
  const other = registry.refFor('page_1', 'frame_2', 'doc_b', 1);
  registry.forgetDocuments('page_1', 'frame_1', 'doc_c');
  assert.equal(registry.lookup(old)?.doc, 'gone:doc_a', 'a replaced document leaves a tombstone');
  assert.equal(registry.lookup(other)?.doc, 'doc_b', 'other frames keep their refs');
  assert.notEqual(registry.refFor('page_1', 'frame_1', 'doc_a', 1), old, 'never re-aimed');
  // Fill past the bound with another document: the first refs go, the table stays bounded.
  for (let i = 0; i < MAX_REFS; i++) registry.refFor('page_1', 'frame_1', 'doc_c', i);
  assert.equal(registry.size, MAX_REFS);
  assert.equal(registry.lookup(other), undefined);
  assert.equal(registry.issued(other), true);
  assert.equal(registry.refFor('page_1', 'frame_1', 'doc_c', MAX_REFS - 1), `e${MAX_REFS + 3}`);
});
