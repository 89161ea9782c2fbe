import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { httpClient, refIn } from './helpers/mcp.js';

// The MCP door over streamable HTTP at /mcp on the built `tabwright serve` (`npm test` builds first).
let fixtures: FixtureServer;
let serve: ChildProcess;
let base = '';
const home = tempHome();

before(async () => {
  fixtures = await startFixtureServer();
  serve = spawn(process.execPath, ['bin/tabwright.js', 'serve', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'warn' },
  });
  let out = '';
  serve.stdout?.setEncoding('utf8');
  base = await new Promise<string>((resolve, reject) => {
    serve.stdout?.on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    serve.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
});
after(async () => {
  if (serve.exitCode === null) {
    const exited = once(serve, 'exit');
    serve.kill('SIGTERM');
    await exited;
  }
  await fixtures.close();
  home.cleanup();
});

describe('MCP over streamable HTTP (tabwright serve, /mcp)', () => {
  test('two clients at once: tools, TodoMVC flows on separate pages, a stale ref, session end', async () => {
    const [a, b] = await Promise.all([httpClient(`${base}/mcp`), httpClient(`${base}/mcp`)]);
    try {
      const { tools } = await a.client.listTools();
      assert.ok(tools.some((t) => t.name === 'snapshot'));
      assert.ok(JSON.stringify({ tools }).length / 4 < 4000);

      const flow = async (c: typeof a, app: string, todo: string) => {
        const nav = await c.call('navigate', {
          url: `${fixtures.url}/corpus/apps/todomvc-${app}/index.html`,
        });
        const pageId = /^(page_\w+):/.exec(nav)?.[1];
        await c.call('wait', { selector_present: '.new-todo' });
        const input = refIn(await c.call('snapshot'), (l) => l.includes('textbox'));
        await c.call('type', { ref: input, text: todo, submit: true });
        await c.call('type', { ref: input, text: `${todo} too`, submit: true });
        const toggle = refIn(await c.call('snapshot', { find: `${todo} too` }), (l) =>
          /checkbox \[ref/.test(l),
        );
        assert.match(await c.call('click', { ref: toggle }), /^clicked e\d+; changed/);
        await c.call('wait', { text_present: '1 item left' });
        return pageId!;
      };
      const [pa, pb] = await Promise.all([flow(a, 'react', 'Alpha'), flow(b, 'vue', 'Beta')]);
      assert.notEqual(pa, pb);
      assert.doesNotMatch(await a.call('snapshot'), /Beta/);
      assert.match(await b.fail('snapshot', { page_id: pa }), /^Error page_not_found/);

      const input = refIn(await a.call('snapshot'), (l) => l.includes('textbox'));
      await a.call('navigate', { url: `${fixtures.url}/corpus/apps/todomvc-vue/index.html` });
      assert.match(await a.fail('click', { ref: input }), /^Error element_not_found\/stale_ref/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('ending the MCP session (DELETE) closes its browser session; unknown sessions get 404', async () => {
    const c = await httpClient(`${base}/mcp`);
    await c.call('navigate', { url: `${fixtures.url}/corpus/apps/todomvc-react/index.html` });
    const transport = c.client.transport as unknown as {
      sessionId?: string;
      terminateSession(): Promise<void>;
    };
    const sid = transport.sessionId!;
    await transport.terminateSession();
    await c.close();
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
  });

  test('the server access rules apply: a foreign Origin is refused', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
      }),
    });
    assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
  });
});
