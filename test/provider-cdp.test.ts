import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProviderClient } from '../src/conformance/client.js';
import { tempHome } from './helpers/engine.js';
import { startDebuggableChromium } from './helpers/external-browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { spawnProvider } from './helpers/provider.js';

describe('provider --allow-raw-cdp', () => {
  let home: ReturnType<typeof tempHome>;
  let server: FixtureServer;
  let p: ProviderClient;

  before(async () => {
    home = tempHome();
    server = await startFixtureServer();
    p = spawnProvider(home.dir, ['--allow-raw-cdp']);
  });
  after(async () => {
    await p.close();
    await server.close();
    home.cleanup();
  });

  it('declares cdp.send as experimental and runs raw commands', async () => {
    const d = await p.call('provider.describe');
    const cdp = d.capabilities.custom_methods.find((m: { name: string }) => m.name === 'cdp.send');
    assert.equal(cdp?.stability, 'experimental');
    assert.ok(cdp.input_schema.properties.method);
    const s = await p.call('session.ensure', { events: true });
    await p.call('page.open', {
      session_id: s.session_id,
      url: `${server.url}/fixtures/provider/index.html`,
    });
    const r = await p.call('cdp.send', {
      session_id: s.session_id,
      method: 'Runtime.evaluate',
      params: { expression: '6 * 7', returnByValue: true },
    });
    assert.equal(r.result.result.value, 42);
    const bad = await p.request('cdp.send', { session_id: s.session_id, method: 'Nope.nothing' });
    assert.ok(!bad.ok && bad.error.code === 'invalid_request');
  });

  it('a crashed page sends page.crashed and the page is gone', async () => {
    const s = await p.call('session.ensure', { events: true });
    const o = await p.call('page.open', {
      session_id: s.session_id,
      url: `${server.url}/fixtures/provider/second.html`,
    });
    await p.request('cdp.send', { session_id: s.session_id, method: 'Page.crash', timeout_ms: 3000 });
    const ev = await p.waitEvent(
      (e) => e.event === 'page.crashed' && e.payload.page_id === o.page_id,
      10_000,
    );
    assert.ok(ev, 'page.crashed event');
    assert.equal(ev.payload.session_id, s.session_id);
    const after = await p.request('page.snapshot', { session_id: s.session_id, page_id: o.page_id });
    assert.ok(!after.ok && after.error.code === 'page_not_found');
    // The session lives on: a new tab works.
    const t = await p.call('tab.new', {
      session_id: s.session_id,
      url: `${server.url}/fixtures/provider/second.html`,
    });
    assert.equal(t.title, 'Second');
  });

  it('session kinds through session.ensure: persistent profile, attach, attach prefer fallback', async () => {
    const per = await p.call('session.ensure', { profile: 'work', client_session_id: 'per' });
    assert.equal(per.kind, 'persistent');
    assert.equal(per.profile, 'work');
    assert.equal(per.isolation, 'shared_profile');
    const closedPer = await p.call('session.close', { session_id: per.session_id });
    assert.equal(closedPer.detached, false);

    const need = await p.request('session.ensure', { attach: 'require' });
    assert.ok(
      !need.ok && need.error.code === 'invalid_request' && need.error.details.field === 'cdp_endpoint',
    );
    const fallback = await p.request('session.ensure', {
      attach: 'prefer',
      cdp_endpoint: 'http://127.0.0.1:9',
      timeout_ms: 5000,
    });
    assert.ok(fallback.ok, JSON.stringify(fallback));
    assert.equal(fallback.result.kind, 'ephemeral');
    assert.equal((fallback.warnings[0] as { code: string }).code, 'attach_failed');
    await p.call('session.close', { session_id: fallback.result.session_id });

    const ext = await startDebuggableChromium();
    try {
      const att = await p.call('session.ensure', { cdp_endpoint: ext.httpEndpoint, attach: 'require' });
      assert.equal(att.kind, 'attach');
      assert.equal(att.attached_to_existing_browser, true);
      const o = await p.call('page.open', {
        session_id: att.session_id,
        url: `${server.url}/fixtures/provider/second.html`,
      });
      assert.equal(o.title, 'Second');
      const closed = await p.call('session.close', { session_id: att.session_id });
      assert.equal(closed.detached, true);
      assert.equal(ext.process.exitCode, null, "the user's browser keeps running");
    } finally {
      await ext.stop();
    }
  });
});
