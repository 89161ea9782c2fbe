import assert from 'node:assert/strict';
import { maskUrl } from '../../src/engine/api.js';
import type { Attacker } from './attacker.js';
import type { FixtureServer } from './fixture-server.js';

/**
 * The five ways a page sends data outside page request routing (test/fixtures/pages/policy/
 * background-leaks.html): a SharedWorker's fetch, a Worker's WebSocket, a keepalive fetch and a
 * beacon from pagehide, and WebRTC TURN/STUN. A door test opens the page in a restricted session,
 * leaves it (pagehide), waits until the door lists every refused attempt, then checks that the
 * attacker received nothing.
 */
export function leakPageUrl(fx: FixtureServer, attacker: Attacker): string {
  return `${fx.url}/fixtures/policy/background-leaks.html?attacker=${encodeURIComponent(attacker.url)}`;
}

/** A page to leave to (same allowed origin), so pagehide fires. */
export function leavePageUrl(fx: FixtureServer): string {
  return `${fx.url}/fixtures/policy/framed.html`;
}

const pagehideUrls = (a: Attacker) => [`${a.url}/keepalive-fetch?secret=S3`, `${a.url}/beacon?secret=S4`];

/** Doors list refused URLs through the secret rule, so `secret=` values arrive masked. */
const listedAs = (url: string) => maskUrl(url);

/**
 * What is not listed yet. While the page lives: the SharedWorker's fetch and at least two refused
 * tunnels to the attacker's host:port (the Worker's WebSocket and TURN over TCP, which the browser
 * tries again and again); after pagehide also the keepalive fetch and the beacon.
 */
export function missingBlocked(
  records: { url: string }[],
  attacker: Attacker,
  afterPagehide: boolean,
): string[] {
  const wanted = [
    `${attacker.url}/shared-worker-fetch?secret=S1`,
    ...(afterPagehide ? pagehideUrls(attacker) : []),
  ];
  const missing = wanted.map(listedAs).filter((u) => !records.some((r) => r.url === u));
  const tunnels = records.filter((r) => r.url === `${attacker.host}:${attacker.port}`).length;
  if (tunnels < 2) missing.push(`2 x CONNECT ${attacker.host}:${attacker.port} (seen ${tunnels})`);
  return missing;
}

async function untilListed(
  attacker: Attacker,
  list: () => Promise<{ url: string }[]>,
  afterPagehide: boolean,
  timeoutMs: number,
): Promise<{ url: string }[]> {
  const end = Date.now() + timeoutMs;
  let records = await list();
  while (missingBlocked(records, attacker, afterPagehide).length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 200));
    records = await list();
  }
  assert.deepEqual(
    missingBlocked(records, attacker, afterPagehide),
    [],
    `listed: ${JSON.stringify(records)}`,
  );
  return records;
}

/**
 * Runs the attack through a door: `open` loads the page, `list` is the door's blocked listing,
 * `leave` navigates away. Waits until the door lists every refused attempt, then asserts that the
 * attacker received nothing at all.
 */
export async function assertLeaksBlocked(
  attacker: Attacker,
  steps: { open(): Promise<unknown>; leave(): Promise<unknown>; list(): Promise<{ url: string }[]> },
  timeoutMs = 20_000,
): Promise<{ url: string }[]> {
  await steps.open();
  await untilListed(attacker, steps.list, false, timeoutMs);
  await steps.leave();
  const records = await untilListed(attacker, steps.list, true, timeoutMs);
  assert.deepEqual(attacker.received(), [], 'the attacker received nothing');
  return records;
}
