import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { RawHttp, type RawStdio, rawStdio } from './helpers/mcp-raw.js';
import { type ServeProcess, spawnServe } from './helpers/serve.js';

// Malformed JSON-RPC on both MCP transports (built `tabwright mcp` and `tabwright serve`): the same answer on each.
type Json = Record<string, unknown>;

const home = tempHome();
let stdio: RawStdio;
let serve: ServeProcess;
let http: RawHttp;

before(async () => {
  [stdio, serve] = await Promise.all([rawStdio(home.dir), spawnServe(home.dir)]);
  http = await RawHttp.open(`${serve.url}/mcp`);
});
after(async () => {
  await http?.close();
  await Promise.all([stdio?.close(), serve?.close()]);
  home.cleanup();
});

const ping = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** Each line with the error code and id its reply must carry. */
const CASES: [string, unknown, number, string | number | null][] = [
  ['not JSON', '{"jsonrpc":', -32700, null],
  ['null', 'null', -32600, null],
  ['a number', '42', -32600, null],
  ['an empty batch', '[]', -32600, null],
  ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }, -32600, 1],
  ['no jsonrpc', { id: 'a', method: 'ping' }, -32600, 'a'],
  ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, -32600, null],
  ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, -32600, null],
  ['params a string', { jsonrpc: '2.0', id: 2, method: 'ping', params: 'x' }, -32600, 2],
  ['params an array', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: [1] }, -32600, 3],
  ['an extra top-level field', { jsonrpc: '2.0', id: 4, method: 'ping', extra: true }, -32600, 4],
  ['method a number', { jsonrpc: '2.0', id: 5, method: 7 }, -32600, 5],
  ['neither method nor result', { jsonrpc: '2.0', id: 6 }, -32600, 6],
  ['a malformed notification', { jsonrpc: '2.0', method: 'notifications/x', params: 'y' }, -32600, null],
  ['a batch with a bad member', [ping('b0'), 1], -32600, null],
  ['a batch repeating an id', [ping('b1'), ping('b1')], -32600, null],
];

const lineOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The one reply stdio gives to `line` (asserts there is exactly one, and that the server keeps serving). */
async function stdioReply(line: string | Buffer): Promise<Json> {
  const before = await stdio.exchange(line);
  assert.ok(before, 'the ping after the line got no reply: the server stopped serving');
  assert.equal(
    before.length,
    1,
    `expected one reply, got ${before.map((l) => l.raw.slice(0, 200)).join('\n')}`,
  );
  return before[0]!.json as Json;
}

describe('MCP: malformed JSON-RPC', () => {
  test('stdio and /mcp answer each malformed message with the same error, and keep serving', async () => {
    for (const [what, value, code, id] of CASES) {
      const line = lineOf(value);
      const s = await stdioReply(line);
      assert.equal((s.error as Json | undefined)?.code, code, `${what}: ${JSON.stringify(s)}`);
      assert.equal(s.id, id, what);
      assert.match(String((s.error as Json).message), /^(Parse error|Invalid Request): .+\./, what);
      const h = await http.post(line);
      assert.equal(h.status, 400, `${what}: ${h.text}`);
      assert.deepEqual(h.messages, [s], `${what}: /mcp answers as stdio does`);
    }
  });

  test('a valid notification gets nothing; a batch gets one array with a reply per request', async () => {
    const none = await stdio.exchange(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever' }));
    assert.deepEqual(none, []);
    const batch = [
      ping('p1'),
      { jsonrpc: '2.0', id: 'p2', method: 'tools/list' },
      { ...ping('x'), id: undefined },
    ];
    const [reply] = (await stdio.exchange(JSON.stringify(batch)))!;
    assert.ok(Array.isArray(reply?.json), reply?.raw.slice(0, 300));
    assert.deepEqual(
      (reply.json as Json[]).map((r) => r.id).sort(),
      ['p1', 'p2'],
      'one reply per request, none for the notification',
    );
    const h = await http.post(JSON.stringify(batch));
    assert.equal(h.status, 200);
    assert.deepEqual(h.messages.map((m) => (m as Json).id).sort(), ['p1', 'p2']);
  });

  test('a message over 8 MiB is answered (not buffered) and the server keeps serving', async () => {
    const huge = JSON.stringify({ ...ping('huge'), params: { pad: 'x'.repeat(9 * 1024 * 1024) } });
    const s = await stdioReply(huge);
    assert.equal((s.error as Json).code, -32600);
    assert.equal(s.id, null);
    assert.equal((s.error as Json & { data: Json }).data.max_bytes, 8 * 1024 * 1024);
    assert.ok(stdio.p.alive);
    const h = await http.post(huge);
    assert.equal(h.status, 413);
    assert.deepEqual(h.messages, [s]);
  });

  test('a request reusing the id of one in progress is refused; the first still gets its reply', async () => {
    const slow = {
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'wait', arguments: { text_present: 'never on this page', timeout_ms: 1500 } },
    };
    stdio.p.send(JSON.stringify(slow));
    const s = await stdioReply(JSON.stringify(ping('slow')));
    assert.equal((s.error as Json).code, -32600);
    assert.equal(s.id, null, 'not the id in use: the reply must not pass for the first request');
    assert.match(String((s.error as Json).message), /already used by a request still in progress/);
    // A malformed message with that id is answered with id null too.
    const malformed = await stdioReply(JSON.stringify({ ...ping('slow'), extra: 1 }));
    assert.equal(malformed.id, null);
    const first = await stdio.p.waitFor((l) => (l.json as Json | undefined)?.id === 'slow', 30_000);
    assert.ok(first, 'the first request got its reply');
    assert.equal(((first.json as Json).result as Json).isError, true);

    const pending = http.post(JSON.stringify(slow));
    await new Promise((r) => setTimeout(r, 300));
    const dup = await http.post(JSON.stringify(ping('slow')));
    assert.equal(dup.status, 400);
    assert.deepEqual(dup.messages, [s]);
    const bad = await http.post(JSON.stringify({ ...ping('slow'), extra: 1 }));
    assert.deepEqual(bad.messages, [malformed]);
    const done = await pending;
    assert.equal(((done.messages[0] as Json).result as Json).isError, true);
  });

  test('/mcp: a request the SDK refuses as a whole (Accept header) leaves its id free', async () => {
    const refused = await http.post(JSON.stringify(ping('refused-once')), 30_000, {
      accept: 'application/json',
    });
    assert.equal(refused.status, 406);
    const again = await http.post(JSON.stringify(ping('refused-once')));
    assert.equal(again.status, 200, again.text);
  });

  test('/mcp ends the POST of a request the client cancels', async () => {
    const slow = {
      jsonrpc: '2.0',
      id: 'to-cancel',
      method: 'tools/call',
      params: { name: 'wait', arguments: { text_present: 'never on this page', timeout_ms: 20_000 } },
    };
    const started = Date.now();
    const pending = http.post(JSON.stringify(slow));
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await http.post(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'to-cancel' },
      }),
    );
    assert.equal(cancel.status, 202);
    const done = await pending;
    assert.ok(Date.now() - started < 15_000, 'answered at the cancel, not at the wait deadline');
    assert.equal(((done.messages[0] as Json).error as Json).code, -32800);
    // The id is free again.
    const again = await http.post(JSON.stringify(ping('to-cancel')));
    assert.equal(again.status, 200);
  });
});
