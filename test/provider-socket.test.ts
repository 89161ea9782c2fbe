import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ProviderClient } from '../src/conformance/client.js';
import { tempHome } from './helpers/engine.js';
import { startFixtureServer } from './helpers/fixture-server.js';
import { BIN, ROOT, waitForSocket } from './helpers/provider.js';

describe('provider door over a Unix socket', () => {
  it('serves two clients at once on a 0600 socket', async () => {
    const home = tempHome();
    const sock = join(home.dir, 'provider.sock');
    const child = spawn(process.execPath, [BIN, 'provider', '--socket', sock], {
      cwd: ROOT,
      env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    const server = await startFixtureServer();
    try {
      await waitForSocket(sock);
      assert.equal(statSync(sock).mode & 0o777, 0o600);
      const a = await ProviderClient.connect(sock);
      const b = await ProviderClient.connect(sock);
      const da = await a.call('provider.describe');
      assert.equal(da.transport, 'unix-socket-json');
      const [sa, sb] = await Promise.all([
        a.call('session.ensure', { events: true }),
        b.call('session.ensure', {}),
      ]);
      assert.notEqual(sa.session_id, sb.session_id);
      const [oa, ob] = await Promise.all([
        a.call('page.open', { session_id: sa.session_id, url: `${server.url}/fixtures/provider/index.html` }),
        b.call('page.open', {
          session_id: sb.session_id,
          url: `${server.url}/fixtures/provider/second.html`,
        }),
      ]);
      assert.equal(oa.title, 'Provider test');
      assert.equal(ob.title, 'Second');
      // A session is a process-wide handle: b can read a's session.
      const tabs = await b.call('tab.list', { session_id: sa.session_id });
      assert.equal(tabs.tabs[0].title, 'Provider test');
      // Events go only to the connection that asked.
      const ev = await a.waitEvent((e) => e.event === 'page.navigated', 5000);
      assert.ok(ev);
      assert.equal(b.events.length, 0);
      await a.call('session.close', { session_id: sa.session_id });
      await b.call('session.close', { session_id: sb.session_id });
      await a.close();
      await b.close();
      assert.equal(stdout, '');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await server.close();
      home.cleanup();
    }
  });
});
