import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startServer } from '../src/cli/serve.js';
import type { Engine } from '../src/index.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { httpClient, stdioClient } from './helpers/mcp.js';

// The MCP door's security rules through its real transports: the built `tabwright mcp` over stdio
// (`npm test` builds first) and /mcp on `tabwright serve`, both driven by the MCP SDK client.

let fixtures: FixtureServer;
const home = tempHome();
before(async () => {
  fixtures = await startFixtureServer();
});
after(async () => {
  await fixtures.close();
  home.cleanup();
});

const page = () => `${fixtures.url}/fixtures/nav/a.html`;
const elsewhere = () => `${fixtures.altUrl}/fixtures/nav/a.html`;

describe('tabwright mcp --allow-origin is a ceiling', () => {
  test('session start with allowed_origins: [] gets the ceiling, not "allow all"', async () => {
    const { mcp } = await stdioClient(['--allow-origin', fixtures.url], { TABWRIGHT_HOME: home.dir });
    try {
      const list = await mcp.call('session', { action: 'start', allowed_origins: [] });
      assert.match(list, new RegExp(`^\\* sess_\\w+ ephemeral tabs=1 allowed=${fixtures.url}$`), list);
      assert.match(await mcp.fail('navigate', { url: elsewhere() }), /^Error permission_denied/);
      assert.match(await mcp.call('navigate', { url: page() }), /Page A/);
      // Widening is refused; a subset is fine.
      const widen = await mcp.fail('session', { action: 'start', allowed_origins: [fixtures.altUrl] });
      assert.match(widen, /^Error permission_denied\/policy_widening: This server only allows/);
      const narrow = await mcp.call('session', { action: 'start', allowed_origins: [fixtures.url] });
      assert.equal(narrow.split('\n').length, 2, narrow);
    } finally {
      await mcp.close();
    }
  });

  test('without a ceiling an empty list is unrestricted, as no list is', async () => {
    const { mcp } = await stdioClient([], { TABWRIGHT_HOME: home.dir });
    try {
      const list = await mcp.call('session', { action: 'start', allowed_origins: [] });
      assert.doesNotMatch(list, /allowed=/);
      assert.match(await mcp.call('navigate', { url: elsewhere() }), /Page A/);
    } finally {
      await mcp.close();
    }
  });

  test('/mcp on tabwright serve --allow-origin: the same ceiling, the same empty-list rule', async () => {
    const engine: Engine = newEngine(home.dir);
    const server = await startServer(engine, { port: 0, allowedOrigins: [fixtures.url] });
    try {
      const mcp = await httpClient(`${server.url}/mcp`);
      assert.match(await mcp.fail('navigate', { url: elsewhere() }), /^Error permission_denied/);
      await mcp.call('session', { action: 'start', allowed_origins: [] });
      assert.match(await mcp.fail('navigate', { url: elsewhere() }), /^Error permission_denied/);
      assert.match(await mcp.call('navigate', { url: page() }), /Page A/);
      assert.match(
        await mcp.fail('session', { action: 'start', allowed_origins: [fixtures.altUrl] }),
        /^Error permission_denied\/policy_widening: This server only allows/,
      );
      await mcp.close();
    } finally {
      await server.close();
      await engine.close();
    }
  });
});

describe('tabwright mcp and file: URLs', () => {
  test('refused by default with what to do; --allow-file-urls opens them', async () => {
    const off = await stdioClient([], { TABWRIGHT_HOME: home.dir });
    try {
      const refused = await off.mcp.fail('navigate', { url: 'file:///etc/hostname' });
      assert.match(
        refused,
        /^Error permission_denied\/file_url_refused: file: URLs are refused .*--allow-file-urls/,
      );
      assert.match(
        await off.mcp.fail('navigate', { url: 'view-source:http://127.0.0.1/' }),
        /^Error permission_denied/,
      );
    } finally {
      await off.mcp.close();
    }
    const on = await stdioClient(['--allow-file-urls'], { TABWRIGHT_HOME: home.dir });
    try {
      await on.mcp.call('navigate', { url: 'file:///etc/hostname' });
      const text = await on.mcp.call('evaluate', { script: 'document.body.innerText.trim()' });
      assert.equal(JSON.parse(text), readFileSync('/etc/hostname', 'utf8').trim());
    } finally {
      await on.mcp.close();
    }
  });
});
