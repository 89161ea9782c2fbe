import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type McpTestClient, refIn, stdioClient } from './helpers/mcp.js';

// The MCP door over stdio: the built `tabwright mcp` driven by the MCP SDK client (`npm test` builds first).
let server: FixtureServer;
let mcp: McpTestClient;
const home = tempHome();

before(async () => {
  server = await startFixtureServer();
  ({ mcp } = await stdioClient([], { TABWRIGHT_HOME: home.dir }));
});
after(async () => {
  await mcp?.close();
  await server.close();
  home.cleanup();
});

describe('tabwright mcp (stdio)', () => {
  test('tools/list: every tool, under 4,000 tokens (chars/4); the core set is smaller', async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of [
      'navigate',
      'snapshot',
      'click',
      'type',
      'fill',
      'press',
      'select',
      'wait',
      'screenshot',
      'tabs',
    ])
      assert.ok(names.includes(n), `tool ${n} listed`);
    const chars = JSON.stringify({ tools }).length;
    assert.ok(chars / 4 < 4000, `tools/list is ${chars} chars (${Math.round(chars / 4)} tokens)`);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.ok((t.description ?? '').length <= 200, `${t.name}: short description`);
    }
    const core = await stdioClient(['--tools', 'core'], { TABWRIGHT_HOME: home.dir });
    try {
      const coreTools = (await core.mcp.client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(coreTools.sort(), [
        'click',
        'fill',
        'navigate',
        'press',
        'screenshot',
        'select',
        'snapshot',
        'tabs',
        'type',
        'wait',
      ]);
    } finally {
      await core.mcp.close();
    }
  });

  for (const app of ['react', 'vue', 'javascript-es6']) {
    test(`TodoMVC ${app}: navigate, snapshot, add two todos, complete one, verify the counter`, async () => {
      const nav = await mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-${app}/index.html` });
      assert.match(nav, /^page_\w+: http:\/\/127\.0\.0\.1:\d+\/corpus\/apps\/todomvc-/);
      await mcp.call('wait', { selector_present: '.new-todo' });
      const snap = await mcp.call('snapshot');
      const input = refIn(snap, (l) => l.includes('textbox'));
      const first = await mcp.call('type', { ref: input, text: 'Buy milk', submit: true });
      assert.match(first, /^typed into e\d+; changed/);
      assert.match(first, /\+ .*listitem.*Buy milk|Buy milk/);
      await mcp.call('type', { ref: input, text: 'Walk dog', submit: true });
      const found = await mcp.call('snapshot', { find: 'Buy milk' });
      const toggle = refIn(found, (l) => /checkbox/.test(l) && !/Toggle/i.test(l));
      const done = await mcp.call('click', { ref: toggle });
      assert.match(done, /^clicked e\d+; changed/);
      assert.match(done, /checkbox \[checked/);
      assert.match(await mcp.call('wait', { text_present: '1 item left' }), /^ok: text_present/);
      assert.match(await mcp.call('snapshot', { find: 'item left' }), /1 item left/);
    });
  }

  test('a stale ref fails loudly and says to take a new snapshot', async () => {
    await mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-react/index.html` });
    const input = refIn(await mcp.call('snapshot'), (l) => l.includes('textbox'));
    await mcp.call('history', { action: 'reload' });
    const err = await mcp.fail('click', { ref: input });
    assert.match(err, /^Error element_not_found\/stale_ref: /);
    assert.match(err, /snapshot/);
    const unknown = await mcp.fail('type', { ref: 'e9999', text: 'x' });
    assert.match(unknown, /^Error element_not_found/);
  });

  test('bad arguments name the field; unknown tools and pages are errors, not crashes', async () => {
    assert.match(await mcp.fail('click', { ref: 'button' }), /^Error invalid_request: click: invalid ref/);
    assert.match(await mcp.fail('click', { ref: 'e1', bogus: 1 }), /unknown field\(s\) bogus/);
    assert.match(await mcp.fail('click', {}), /No target/);
    assert.match(await mcp.fail('snapshot', { page_id: 'page_nope' }), /^Error page_not_found/);
    assert.match(await mcp.fail('nope'), /^Error unsupported_method/);
  });

  test('two clients at once: separate sessions and pages; --allow-origin refuses other origins', async () => {
    const [a, b] = await Promise.all([
      stdioClient(['--allow-origin', server.url], { TABWRIGHT_HOME: home.dir }),
      stdioClient([], { TABWRIGHT_HOME: home.dir }),
    ]);
    try {
      const [navA, navB] = await Promise.all([
        a.mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-react/index.html` }),
        b.mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-vue/index.html` }),
      ]);
      const idA = /^(page_\w+):/.exec(navA)?.[1];
      const idB = /^(page_\w+):/.exec(navB)?.[1];
      assert.ok(idA && idB && idA !== idB, `${navA} / ${navB}`);
      const [inA, inB] = await Promise.all([
        a.mcp.call('type', { selector: '.new-todo', text: 'only in A', submit: true }),
        b.mcp.call('type', { selector: '.new-todo', text: 'only in B', submit: true }),
      ]);
      assert.match(inA, /only in A/);
      assert.match(inB, /only in B/);
      assert.doesNotMatch(await a.mcp.call('snapshot'), /only in B/);
      assert.doesNotMatch(await b.mcp.call('snapshot'), /only in A/);
      const tabsA = await a.mcp.call('tabs');
      assert.equal(tabsA.split('\n').length, 1, tabsA);
      assert.match(tabsA, new RegExp(idA));
      assert.match(await a.mcp.fail('snapshot', { page_id: idB }), /^Error page_not_found/);
      assert.match(await a.mcp.fail('navigate', { url: 'https://example.com/' }), /^Error permission_denied/);
    } finally {
      await Promise.all([a.mcp.close(), b.mcp.close()]);
    }
  });

  test('screenshot is image content (JPEG by default); tabs open, select, close', async () => {
    await mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-react/index.html` });
    const shot = await mcp.raw('screenshot');
    const img = shot.content?.find((c) => c.type === 'image');
    assert.equal(img?.mimeType, 'image/jpeg');
    assert.ok(Buffer.from(img?.data ?? '', 'base64').length > 1000);
    const opened = await mcp.call('tabs', {
      action: 'new',
      url: `${server.url}/corpus/apps/todomvc-vue/index.html`,
    });
    const newId = /^(page_\w+):/.exec(opened)?.[1];
    assert.ok(newId, opened);
    const list = await mcp.call('tabs');
    assert.equal(list.split('\n').length, 2, list);
    assert.match(list, new RegExp(`\\* ${newId} "TodoMVC: Vue"`));
    assert.match(await mcp.call('snapshot', { page_id: newId, interactive_only: true }), /textbox/);
    const closed = await mcp.call('tabs', { action: 'close', page_id: newId });
    assert.equal(closed.split('\n').length, 1, closed);
  });
  test('evaluate, console, network (with a body), storage and cookies', async () => {
    await mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-react/index.html` });
    assert.equal(await mcp.call('evaluate', { script: '1 + 1' }), '2');
    assert.equal(await mcp.call('evaluate', { script: '(a, b) => a * b', args: [6, 7] }), '42');
    assert.equal(
      await mcp.call('evaluate', { script: "console.warn('mcp-hello'); return document.title" }),
      '"TodoMVC: React"',
    );
    const thrown = await mcp.fail('evaluate', { script: "throw new Error('boom')" });
    assert.match(thrown, /^Error invalid_request\/script_error/);
    const input = refIn(await mcp.call('snapshot'), (l) => l.includes('textbox'));
    assert.equal(await mcp.call('evaluate', { ref: input, script: '(el) => el.className' }), '"new-todo"');
    assert.match(await mcp.call('console', { level: 'warning' }), /#\d+ warning mcp-hello/);
    await mcp.call('evaluate', { script: "fetch('/echo?from=mcp').then((r) => r.text())" });
    const list = await mcp.call('network', { filter: 'echo?from=mcp' });
    const id = /^(r\d+) GET 200 fetch .*\[body\]$/m.exec(list)?.[1];
    assert.ok(id, list);
    assert.match(await mcp.call('network', { request_id: id }), /from=mcp/);
    await mcp.call('storage', { area: 'local', action: 'set', key: 'k', value: 'v1' });
    assert.equal(await mcp.call('storage', { area: 'local', key: 'k' }), 'v1');
    await mcp.call('storage', { area: 'cookies', action: 'set', key: 'c1', value: 'yes' });
    assert.match(await mcp.call('storage', { area: 'cookies' }), /^c1=yes/m);
  });
});
