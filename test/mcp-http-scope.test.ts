import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer } from '../src/cli/serve.js';
import type { Engine } from '../src/index.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { httpClient } from './helpers/mcp.js';

// In process: an MCP session over HTTP owns engine sessions, and ending it (DELETE) or closing the server closes them.
let fixtures: FixtureServer;
let engine: Engine;
const home = tempHome();
before(async () => {
  fixtures = await startFixtureServer();
  engine = newEngine(home.dir);
});
after(async () => {
  await engine.close();
  await fixtures.close();
  home.cleanup();
});

test('DELETE /mcp and server close end the MCP session and its browser sessions', async () => {
  const server = await startServer(engine, { port: 0 });
  try {
    const a = await httpClient(`${server.url}/mcp`);
    const b = await httpClient(`${server.url}/mcp`);
    await Promise.all([
      a.call('navigate', { url: `${fixtures.url}/corpus/apps/todomvc-react/index.html` }),
      b.call('navigate', { url: `${fixtures.url}/corpus/apps/todomvc-vue/index.html` }),
    ]);
    assert.equal(engine.sessions().length, 2, 'one engine session per MCP session');
    const transport = a.client.transport as unknown as { terminateSession(): Promise<void> };
    await transport.terminateSession();
    await a.close();
    for (let i = 0; i < 50 && engine.sessions().length > 1; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(engine.sessions().length, 1, 'DELETE closed that client’s session only');
    await server.close();
    assert.equal(engine.sessions().length, 0, 'closing the server closed the rest');
    await b.close().catch(() => {});
  } finally {
    await server.close();
  }
});
