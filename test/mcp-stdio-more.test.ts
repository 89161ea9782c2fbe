import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mcpStdioTestEnv, refIn, stdioClient } from './helpers/mcp.js';

// The MCP door over stdio: the built `tabwright mcp` driven by the MCP SDK client (`npm test` builds first).
const { server, mcp, home } = await mcpStdioTestEnv();

describe('tabwright mcp (stdio): errors, clients, tabs, inspection tools', () => {
  test('bad arguments name the field; unknown tools and pages are errors, not crashes', async () => {
    assert.match(await mcp.fail('click', { ref: 'button' }), /^Error invalid_request: click: invalid ref/);
    assert.match(await mcp.fail('click', { ref: 'e1', bogus: 1 }), /unknown field\(s\) bogus/);
    assert.match(await mcp.fail('click', {}), /No target/);
    assert.match(await mcp.fail('snapshot', { page_id: 'page_nope' }), /^Error page_not_found/);
    assert.match(await mcp.fail('nope'), /^Error unsupported_method/);
    // Uploads only from the working directory and the temp dir unless --upload-dir says otherwise.
    const up = await mcp.fail('upload', { selector: 'input', files: ['/etc/passwd'] });
    assert.match(up, /^Error permission_denied: "\/etc\/passwd" is outside the upload directories/);
  });

  test('upload: the upload operation receipt (what the input holds, whether the page listens)', async () => {
    await mcp.call('navigate', { url: `${server.url}/fixtures/actions/form.html` });
    const file = join(home, 'mcp-upload.txt');
    writeFileSync(file, 'hi');
    const r = await mcp.call('upload', { selector: '#file', files: [file] });
    assert.match(r, /^set files on e\d+ \(input holds 1 \("mcp-upload\.txt"\); page listens\); changed/);
    assert.match(r, /files 1 mcp-upload\.txt/, 'the snapshot diff shows what the page did');
  });

  test('two clients at once: separate sessions and pages; --allow-origin refuses other origins', async () => {
    const [a, b] = await Promise.all([
      stdioClient(['--allow-origin', server.url], { TABWRIGHT_HOME: home }),
      stdioClient([], { TABWRIGHT_HOME: home }),
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
      // The server's allowlist is a ceiling for the sessions a client starts.
      const widen = await a.mcp.fail('session', {
        action: 'start',
        allowed_origins: ['https://example.com'],
      });
      assert.match(widen, /^Error permission_denied\/policy_widening: This server only allows/);
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
    // The body copy lands shortly after the response.
    let list = '';
    for (let i = 0; i < 30 && !list.includes('[body]'); i++) {
      if (i) await new Promise((r) => setTimeout(r, 100));
      list = await mcp.call('network', { filter: 'echo?from=mcp' });
    }
    const id = /^(r\d+) GET 200 fetch .*\[body\]$/m.exec(list)?.[1];
    assert.ok(id, list);
    assert.match(await mcp.call('network', { request_id: id }), /from=mcp/);
    await mcp.call('storage', { area: 'local', action: 'set', key: 'k', value: 'v1' });
    assert.equal(await mcp.call('storage', { area: 'local', key: 'k' }), 'v1');
    await mcp.call('storage', { area: 'cookies', action: 'set', key: 'c1', value: 'yes' });
    assert.match(await mcp.call('storage', { area: 'cookies' }), /^c1=yes/m);
  });
});
