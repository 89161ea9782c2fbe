import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { createEngine } from '../src/cli/compose.js';
import { TabwrightError } from '../src/engine/errors.js';
import { tempHome } from './helpers/engine.js';

/**
 * A full Grid whose hub answers /status late while a session request waits (a loaded machine):
 * the deadline's error still says the Grid is full (from the last answer it gave), not that it is
 * slow. A stand-in hub: one node, its one slot busy, one request queued; POST /session never answers.
 */
const home = tempHome();
after(() => home.cleanup());

test('a full Grid that answers /status late is still reported full at the deadline', async () => {
  let sessionAskedAt = 0;
  const status = {
    ready: false,
    message: 'full',
    nodes: [
      { availability: 'UP', slots: [{ session: { sessionId: 'x' }, stereotype: { browserName: 'chrome' } }] },
    ],
  };
  const server = createServer((req, res) => {
    const json = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value }));
    };
    if (req.method === 'POST' && req.url?.endsWith('/session')) {
      sessionAskedAt = Date.now();
      req.resume(); // held until the client gives up
      return;
    }
    if (req.url?.endsWith('/status')) {
      const late = sessionAskedAt > 0 && Date.now() - sessionAskedAt > 500;
      setTimeout(() => json(status), late ? 2500 : 0);
      return;
    }
    if (req.url?.endsWith('/se/grid/newsessionqueue/queue')) return json([{}]);
    json({});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const e = createEngine({
    home: home.dir,
    grid: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
  });
  try {
    const err = await e.startSession({}, { timeoutMs: 3500 }).then(
      () => assert.fail('a session started on a full Grid'),
      (x: unknown) => x as TabwrightError,
    );
    assert.ok(err instanceof TabwrightError, String(err));
    assert.equal(err.code, 'not_ready');
    assert.equal(err.details.reason, 'grid_full', err.message);
  } finally {
    await e.close();
    server.closeAllConnections();
    server.close();
  }
});
