import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mcpStdioTestEnv, refIn, stdioClient } from './helpers/mcp.js';

// The MCP door over stdio: the built `tabwright mcp` driven by the MCP SDK client (`npm test` builds first).
const { server, mcp, home } = await mcpStdioTestEnv();

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
    const core = await stdioClient(['--tools', 'core'], { TABWRIGHT_HOME: home });
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

  test("errors speak this door's words: its tool names and ref, never the engine's operations", async () => {
    await mcp.call('navigate', { url: `${server.url}/corpus/apps/todomvc-react/index.html` });
    const waited = await mcp.fail('wait', { text_present: 'never on this page', timeout_ms: 700 });
    assert.match(waited, /^Error not_ready\/wait_timeout/);
    assert.match(waited, /\(retryable\): wait: not all of/, waited);
    assert.match(waited, /conditions: /, 'the conditions the message points at are printed');
    const many = await mcp.fail('click', { selector: 'li, a' });
    const nothing = await mcp.fail('wait', {});
    assert.match(
      nothing,
      /^Error invalid_request: wait: give at least one condition \(text_present, /,
      nothing,
    );
    assert.doesNotMatch(nothing, /dom_stable|navigation_complete/, nothing);
    const noDrop = await mcp.fail('drag', { selector: '.new-todo' });
    assert.match(noDrop, /give one of to_ref, to_selector/, noDrop);
    for (const text of [waited, many])
      assert.doesNotMatch(text, /\b(page|tab)\.[a-z_]+\b|element_ref|details\./, text);
  });
});
