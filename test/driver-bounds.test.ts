import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import type { ChromiumPage } from '../src/backends/chromium/chromium-page.js';
import { driverDefaultArgs } from '../src/backends/chromium/default-args.js';
import { DISABLED_FEATURES } from '../src/backends/chromium/flags.js';
import { setRequestObjectLimitForTest } from '../src/backends/chromium/request-objects.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { startFixtureServer } from './helpers/fixture-server.js';

// playwright-core keeps an object per request (with its route and response, ≈ 15 KB of heap) until
// the page closes or 10,000 are held in the process; the Chromium backend lowers that to
// MAX_REQUEST_OBJECTS (request-objects.ts). A request whose object the driver dropped while it was
// in flight still finishes in the engine's records (its later events come on a new object).

/** The bound in this test (the real one is MAX_REQUEST_OBJECTS, 500): the same trimming, fewer requests. */
const LIMIT = 100;
setRequestObjectLimitForTest(LIMIT);
const home = tempHome();
const server = await startFixtureServer();
const engine = newEngine(home.dir);
after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

/** Request objects the driver's client side holds now (a narrow look at playwright-core's private table). */
function driverRequests(page: ChromiumPage): number {
  const connection = (
    page.pw.context() as unknown as { _connection: { _objects: Map<string, { _type: string }> } }
  )._connection;
  let n = 0;
  for (const o of connection._objects.values()) if (o._type === 'Request') n++;
  return n;
}

test('the driver keeps a bounded number of requests of a long-lived page, and a request in flight meanwhile still finishes', async () => {
  const session = await engine.startSession(
    { policy: { allowed_origins: [server.url] } },
    { timeoutMs: 30_000 },
  );
  const page = session.page();
  await page.open(`${server.url}/fixtures/actions/form.html`);
  const total = LIMIT + 200;
  // One slow request starts first (the oldest object, dropped while in flight), then many quick ones.
  const settled = await page.evaluateScript(
    `async () => {
      const slow = fetch('/slow?ms=2500').then((r) => r.text());
      for (let i = 0; i < ${total}; i += 50)
        await Promise.all(Array.from({ length: 50 }, (_, k) => fetch('/status?code=204&i=' + (i + k))));
      await slow;
      return true;
    }`,
    { timeoutMs: 60_000 },
  );
  assert.equal(settled.value, true);
  const held = driverRequests(page.backend as unknown as ChromiumPage);
  assert.ok(
    held > 0,
    'the look at the driver sees its request objects (else the bound below proves nothing)',
  );
  assert.ok(held <= LIMIT, `the driver holds ${held} request objects`);
  // The slow request's finish arrived on a new driver object: the engine still matched it.
  for (let i = 0; i < 50 && page.network.inflightCount() > 0; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal(page.network.inflightCount(), 0, 'nothing left in flight');
  await engine.closeSession(session.id);
});

test('a launched Chromium gets one --disable-features: the driver’s list and ours', async () => {
  const session = await engine.startSession({}, { timeoutMs: 30_000 });
  const pid = await engine.sharedBrowserPid();
  assert.ok(pid, 'the shared browser has a pid');
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const switches = args.filter((a) => a.startsWith('--disable-features='));
  // Chromium keeps only the last of a switch given twice: a second one would drop the other's names.
  assert.equal(switches.length, 1, switches.join('\n'));
  const names = switches[0]!.slice('--disable-features='.length).split(',');
  for (const f of DISABLED_FEATURES) assert.ok(names.includes(f), `${f} not disabled`);
  const driverSwitch = driverDefaultArgs().find((a) => a.startsWith('--disable-features='));
  assert.ok(driverSwitch, 'the driver has a default --disable-features');
  for (const f of driverSwitch.slice('--disable-features='.length).split(','))
    assert.ok(names.includes(f), `the driver's ${f} was dropped`);
  await engine.closeSession(session.id);
});
