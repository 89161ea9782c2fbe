import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { PIPE_TABLE } from '../src/doors/pipe/host/table.js';
import { ACTION_PARAMS, PIPE_ACTIONS } from '../src/doors/pipe/protocol/index.js';

// The pipe's action table (host/table.ts) against the protocol and against its documentation: a
// newcomer finds each action's row and its engine operations in docs/pipe-protocol.md.

test('the table has exactly the 14 actions of protocol 1.0, each with the schema the SDK checks', () => {
  assert.deepEqual(PIPE_TABLE.names(), [...PIPE_ACTIONS]);
  for (const m of PIPE_TABLE.list()) {
    assert.equal(m.params, ACTION_PARAMS[m.name as keyof typeof ACTION_PARAMS], m.name);
    assert.ok(m.ops.length > 0, `${m.name} maps onto engine operations`);
  }
});

test('docs/pipe-protocol.md names the operations of every action, as the table has them', () => {
  const doc = readFileSync(new URL('../docs/pipe-protocol.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### Where each action lives'), doc.indexOf('## Error codes'));
  const documented = new Map<string, string[]>();
  for (const m of section.matchAll(/^\| `(\w+)` \| (.+) \|$/gm))
    documented.set(
      m[1]!,
      [...m[2]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!),
    );
  assert.deepEqual(
    Object.fromEntries(documented),
    Object.fromEntries(PIPE_TABLE.list().map((m) => [m.name, m.ops.map((o) => o.name)])),
  );
});
