import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EFFECTS, OPERATIONS, ops, toJsonSchema } from '../src/engine/api.js';
import { Deadline } from '../src/engine/deadline.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, engine, session } = await engineTestEnv();

describe('engine operations', () => {
  test('every operation is declared completely and advertises a JSON Schema', () => {
    assert.ok(OPERATIONS.size >= 80, `only ${OPERATIONS.size} operations`);
    for (const op of OPERATIONS.values()) {
      assert.match(op.name, /^(engine|session|tab|page|human)\.[a-z_]+$/, op.name);
      assert.ok(op.effect in EFFECTS, `${op.name}: effect ${op.effect}`);
      assert.ok(op.summary.length > 10 && op.summary.endsWith('.'), `${op.name}: summary "${op.summary}"`);
      const schema = toJsonSchema(op.input);
      assert.equal(typeof schema, 'object', op.name);
    }
  });

  test("a page operation's deadline is settled once its work settles: its timer does not fire later", async () => {
    const page = session.page();
    await ops.open.call(page, { url: `${server.url}/fixtures/actions/form.html` });
    const settled: Deadline[] = [];
    const cleared = new Set<unknown>();
    const original = Deadline.prototype.settle;
    const clear = globalThis.clearTimeout;
    Deadline.prototype.settle = function (this: Deadline) {
      settled.push(this);
      original.call(this);
    };
    globalThis.clearTimeout = ((t?: Parameters<typeof clearTimeout>[0]) => {
      cleared.add(t);
      clear(t);
    }) as typeof clearTimeout;
    try {
      await ops.snapshot.call(page, {}, { timeoutMs: 2000 });
    } finally {
      Deadline.prototype.settle = original;
      globalThis.clearTimeout = clear;
    }
    assert.equal(settled.length, 1, 'the snapshot settled its deadline');
    // The deadline's own timer was cleared (checked on the object, not by sleeping past it).
    const timer = (settled[0] as unknown as { timer: unknown }).timer;
    assert.ok(timer && cleared.has(timer), "the deadline's timer was cleared");
    assert.equal(settled[0]!.signal.aborted, false, 'the deadline had not fired');
  });

  test('bad input is invalid_request naming the field, and nothing runs', async () => {
    const page = session.page();
    await ops.open.call(page, { url: `${server.url}/fixtures/actions/form.html` });
    const err = await rejectsWith(
      ops.click.call(page, { target: { element_ref: 'e1' }, click_count: 7 }),
      'invalid_request',
    );
    assert.match(err.message, /click_count must be 1, 2 or 3/);
    assert.equal(err.details.field, 'click_count');
    const several = await rejectsWith(
      ops.click.call(page, { target: { element_ref: 'e1', selector: 'button' } as never }),
      'invalid_request',
    );
    assert.match(several.message, /exactly one of/);
    await rejectsWith(ops.type.call(page, { target: { selector: 'input' } } as never), 'invalid_request');
  });

  test('operations reach the page: open, snapshot, click with a receipt, wait, read', async () => {
    const page = session.page();
    const nav = await ops.open.call(page, { url: `${server.url}/fixtures/actions/form.html` });
    assert.equal(nav.status, 200);
    const snap = await ops.snapshot.call(page, { interactive_only: true });
    const button = snap.elements.find((e) => e.role === 'button');
    assert.ok(button, 'a button in the snapshot');
    const receipt = await ops.click.call(page, { target: { element_ref: button.element_ref } });
    assert.equal(receipt.action, 'click');
    assert.equal(receipt.status, 'executed');
    const tabs = await ops.listTabs.call(session, {});
    assert.ok(tabs.some((t) => t.page_id === page.id));
    const sessions = await ops.listSessions.call(engine, {});
    assert.ok(sessions.some((s) => s.session_id === session.id));
  });
});
