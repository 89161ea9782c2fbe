import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockedReporter } from '../src/doors/pipe/host/blocked.js';
import { NetworkPolicy } from '../src/engine/network-policy.js';
import { OriginPolicy } from '../src/engine/policy.js';
import type { Session } from '../src/engine/session.js';

// The pipe host's report of refused requests (data.blocked_requests), on a real NetworkPolicy.

function fakeSession(): { session: Session; network: NetworkPolicy } {
  const network = new NetworkPolicy(
    OriginPolicy.parse({ allowed_origins: ['http://127.0.0.1:1'] }),
    () => undefined,
  );
  const session = {
    network,
    blockedRequests: (f: { since_seq?: number }) => network.blocked(f),
  } as unknown as Session;
  return { session, network };
}

const beacon = (n: NetworkPolicy, path: string) =>
  n.judgeProxied({ via: 'http', url: `http://127.0.0.2/${path}`, method: 'POST', headers: {} });

test('each record is reported once, oldest first, at most 20 per response; long URLs are cut and marked', async () => {
  const { session, network } = fakeSession();
  const r = new BlockedReporter();
  assert.deepEqual(await r.take(session), []);
  for (let i = 0; i < 25; i++) beacon(network, `b${i}`);
  beacon(network, `long?${'x'.repeat(3000)}`);
  const first = await r.take(session);
  assert.equal(first.length, 20);
  assert.equal(first[0]!.url, 'http://127.0.0.2/b0');
  const second = await r.take(session);
  assert.deepEqual(
    second.map((b) => b.seq),
    [21, 22, 23, 24, 25, 26],
  );
  const long = second.at(-1)!;
  assert.equal(long.url.length, 2048);
  assert.equal(long.url_truncated, true);
  assert.deepEqual(
    { kind: long.kind, method: long.method, page_id: long.page_id },
    { kind: 'background', method: 'POST', page_id: null },
  );
  assert.deepEqual(await r.take(session), []);
  // A new session (the host relaunched its browser) is reported from its first record on.
  const other = fakeSession();
  beacon(other.network, 'again');
  assert.deepEqual(
    (await r.take(other.session)).map((b) => b.url),
    ['http://127.0.0.2/again'],
  );
});

test('the engine keeps at most 8192 characters of a refused URL, and says so', () => {
  const { network } = fakeSession();
  beacon(network, `x?${'y'.repeat(10_000)}`);
  const [rec] = network.blocked();
  assert.equal(rec!.url.length, 8192);
  assert.equal(rec!.url_truncated, true);
});
