import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PIPE_ACTIONS } from '../src/doors/pipe/protocol/constants.js';
import { parseRules } from '../src/doors/pipe/protocol/rules.js';
import { PipeAgent, PipeToolError } from '../src/doors/pipe/sdk/index.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';
import { type JsCli, jsCli } from './helpers/js-cli.js';
import { type McpTestClient, stdioClient } from './helpers/mcp.js';
import { pipeHarness, type RelayedPipe, relayedPipe } from './helpers/pipe-run.js';
import { spawnProvider } from './helpers/provider.js';

// The cross-door equivalence suite (issue 16): the same fixture pages through all five doors, each by
// its real transport, must tell the same truth: the same interactive elements (role and name), the
// same origin-policy verdict for reads and actions, and the same normalized error for the same
// failure (each door in its own vocabulary: the mapping is the door's documented one), a file set on a
// wrong element kind included, in the three doors that upload (HTTP, provider, MCP). Secret fields
// have their own cross-door suite (equivalence-secrets). Run `npm run -s build` first.

/** One interactive element as a door reports it: role and accessible name (whitespace collapsed). */
type El = string;
/** With whether the door says it is usable (null: the door does not say). */
interface Listed {
  el: El;
  enabled: boolean | null;
}

interface Door {
  name: string;
  open(url: string): Promise<void>;
  /** Interactive elements of the current page. */
  elements(): Promise<Listed[]>;
  /** The door's report of a click on a CSS selector, mapped to the engine code it stands for. */
  clickSelector(selector: string): Promise<string>;
  /** The door's report of opening a URL the session's allowlist refuses, as an engine code. */
  openRefused(url: string): Promise<string>;
  /**
   * The door's report of setting a file on an element that is not a file input, as engine code and
   * `reason` (absent: the door has no upload; the pipe and the JS harness have none).
   */
  uploadOnto?(selector: string, file: string): Promise<string>;
  /** Only enabled elements are listed (the HTTP door's indexed elements, as upstream). */
  enabledOnly?: boolean;
  close(): Promise<void>;
}

const el = (role: string, name: string | undefined | null) =>
  `${role} "${(name ?? '').replace(/\s+/g, ' ').trim().slice(0, 100)}"`;

/** `role "name" [states] [ref=…]` lines of an agent text (MCP, JS harness). */
function fromText(text: string): Listed[] {
  const out: Listed[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([a-z]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)$/.exec(
      line.replace(/ value=".*$/, ''),
    );
    // An iframe line carries a ref as a scope handle (snapshot it), not as an interactive element.
    if (!m || !/\[ref=/.test(m[3] ?? '') || m[1] === 'iframe') continue;
    const name = (m[2] ?? '').replace(/\\(.)/g, '$1');
    out.push({ el: el(m[1]!, name), enabled: !/\[disabled\]/.test(m[3]!) });
  }
  return out;
}

let fx: FixtureServer;
const home = tempHome();
const doors: Door[] = [];

function httpDoor(h: DoorHarness, id: string): Door {
  const code = (r: { json: Json }) => String(r.json.data?.engineError ?? r.json.data?.errorCode);
  return {
    name: 'http',
    enabledOnly: true,
    open: async (url) => void (await h.ok(id, 'go_to_url', { url })),
    elements: async () => {
      const d = await h.ok(id, 'get_browser_state', {
        includeElements: true,
        maxElements: 10_000,
        // The whole page, as the other doors' snapshots (upstream's default is the viewport).
        viewportExpansion: -1,
      });
      return (d.elements as Json[]).map((e) => ({ el: el(e.role, e.name), enabled: true }));
    },
    clickSelector: async (selector) => code(await h.fails(id, 'click_element_by_selector', { selector })),
    openRefused: async (url) => code(await h.fails(id, 'go_to_url', { url })),
    uploadOnto: async (selector, path) => {
      const r = await h.fails(id, 'upload_file', { path, selector });
      return `${code(r)}/${r.json.data?.reason}`;
    },
    close: () => h.close(),
  };
}

before(async () => {
  fx = await startFixtureServer();
  const allowed = [fx.url];

  const h = await doorHarness();
  doors.push(httpDoor(h, await h.start({ allowedOrigins: allowed })));

  const p = spawnProvider(home.dir);
  const sid = (await p.call('session.ensure', { allowed_origins: allowed })).session_id as string;
  const providerCode = async (call: Promise<unknown>, withReason = false) => {
    try {
      await call;
    } catch (err) {
      const e = (err as { error?: { code?: string; details?: { reason?: string } } }).error;
      return withReason ? `${e?.code}/${e?.details?.reason}` : String(e?.code ?? err);
    }
    assert.fail('the provider call should have failed');
  };
  doors.push({
    name: 'provider',
    open: async (url) => void (await p.call('page.open', { session_id: sid, url })),
    elements: async () => {
      const s = await p.call('page.snapshot', { session_id: sid, interactive_only: true });
      return (s.elements as Json[]).map((e) => ({ el: el(e.role, e.name), enabled: e.enabled !== false }));
    },
    clickSelector: (selector) => providerCode(p.call('page.click', { session_id: sid, selector })),
    openRefused: (url) => providerCode(p.call('page.open', { session_id: sid, url })),
    uploadOnto: (selector, file) =>
      providerCode(p.call('upload.set_files', { session_id: sid, selector, files: [file] }), true),
    close: async () => void (await p.close()),
  });

  const { mcp } = await stdioClient(['--allow-origin', ...allowed], { TABWRIGHT_HOME: home.dir });
  const mcpCode = async (m: McpTestClient, tool: string, args: Json) =>
    /^Error ([a-z_]+)/.exec(await m.fail(tool, args))?.[1] ?? 'unparsed';
  doors.push({
    name: 'mcp',
    open: async (url) => void (await mcp.call('navigate', { url })),
    elements: async () => fromText(await mcp.call('snapshot', { interactive_only: true })),
    clickSelector: (selector) => mcpCode(mcp, 'click', { selector }),
    openRefused: (url) => mcpCode(mcp, 'navigate', { url }),
    uploadOnto: async (selector, file) => {
      const text = await mcp.fail('upload', { selector, files: [file] });
      const m = /^Error ([a-z_]+)\/([a-z_]+):/.exec(text);
      return m ? `${m[1]}/${m[2]}` : `unparsed: ${text}`;
    },
    close: () => mcp.close(),
  });

  const rules = {
    version: '1.0',
    domains: { allowed: ['127.0.0.1'] },
    pipe_actions: { allowed: [...PIPE_ACTIONS], blocked: [] },
    storage: { key_prefixes: ['sgclaw_'] },
  };
  const pipe: RelayedPipe = await relayedPipe(home.dir, pipeHarness(home.dir).writeJson('rules.json', rules));
  const agent = await PipeAgent.connect({
    input: pipe.conn,
    output: pipe.conn,
    rules: parseRules(rules),
    handshakeTimeoutMs: 60_000,
    actionTimeoutMs: 60_000,
    logger: () => {},
  });
  // The pipe's codes are coarser than the engine's (docs/pipe-protocol.md): the engine code each stands for.
  const PIPE_CODES: Record<string, string> = {
    element_not_found: 'element_not_found',
    domain_not_allowed: 'permission_denied',
    invalid_params: 'invalid_request|invalid_selector',
  };
  const pipeCode = async (call: Promise<unknown>) => {
    try {
      await call;
    } catch (err) {
      if (err instanceof PipeToolError) return PIPE_CODES[err.code] ?? err.code;
      throw err;
    }
    assert.fail('the pipe command should have failed');
  };
  doors.push({
    name: 'pipe',
    open: async (url) => void (await agent.tool.run('navigate', { url })),
    elements: async () => {
      const r = (await agent.tool.run('getAomSnapshot', { interactive_only: true })) as {
        aom_snapshot?: { role: string; name: string; states?: { disabled?: boolean } }[];
      };
      return (r.aom_snapshot ?? []).map((n) => ({
        el: el(n.role, n.name),
        enabled: n.states?.disabled !== true,
      }));
    },
    clickSelector: (selector) => pipeCode(agent.tool.run('click', { selector })),
    openRefused: (url) => pipeCode(agent.tool.run('navigate', { url })),
    close: async () => {
      await pipe.close();
    },
  });

  const js: JsCli = jsCli(`equivalence-${process.pid}`);
  await js.json(`await browser.launch(); globalThis.page = null; return true;`);
  const jsCode = async (snippet: string) => {
    const r = await js.json<{ status?: string; reason?: string; code?: string }>(snippet);
    // The harness reports a refusal as a result (seed: status + reason); errors carry the engine code.
    if (r.code) return r.code;
    if (r.reason === 'origin_denied') return 'permission_denied';
    if (r.reason === 'no_match') return 'element_not_found';
    return `${r.status}/${r.reason}`;
  };
  doors.push({
    name: 'js',
    open: async (url) =>
      void (await js.json(`
        if (!globalThis.page) globalThis.page = await browser.open(${JSON.stringify(url)}, { allowedOrigins: ${JSON.stringify(allowed)} });
        else await page.goto(${JSON.stringify(url)});
        return true;`)),
    elements: async () =>
      fromText(
        await js.json<string>(`return JSON.stringify((await page.snapshot({ interactive: true })).tree);`),
      ),
    clickSelector: (selector) =>
      jsCode(`try { return await page.locator(${JSON.stringify(selector)}).click(); }
              catch (e) { return { code: e.code ?? String(e) }; }`),
    openRefused: (url) =>
      jsCode(
        `try { return await page.goto(${JSON.stringify(url)}); } catch (e) { return { code: e.code ?? String(e) }; }`,
      ),
    close: () => js.stop(),
  });
});

after(async () => {
  for (const d of doors) await d.close().catch(() => {});
  await fx?.close();
  home.cleanup();
});

/** Every door's interactive elements on `url`, compared with the provider's (the engine's own list). */
async function sameElements(url: string): Promise<void> {
  const lists = new Map<string, Listed[]>();
  for (const d of doors) {
    await d.open(url);
    lists.set(d.name, await d.elements());
  }
  const reference = lists.get('provider')!;
  assert.ok(reference.length > 5, `the page has interactive elements (${reference.length})`);
  const sorted = (l: Listed[]) => l.map((x) => x.el).sort();
  for (const [name, list] of lists) {
    // The HTTP door indexes only usable elements (upstream's contract): it is compared with those.
    const want = doors.find((d) => d.name === name)!.enabledOnly
      ? reference.filter((x) => x.enabled)
      : reference;
    assert.deepEqual(sorted(list), sorted(want), `${name} on ${url}: the same interactive elements`);
    if (name !== 'http') {
      const disabled = (l: Listed[]) => sorted(l.filter((x) => x.enabled === false));
      assert.deepEqual(disabled(list), disabled(reference), `${name} on ${url}: the same disabled elements`);
    }
  }
}

describe('every door tells the same truth', () => {
  test('the same interactive elements (role, name, disabled) on a form and on a real news page', async () => {
    for (const page of ['/fixtures/actions/form.html', '/corpus/pages/bbc-1/index.html'])
      await sameElements(`${fx.url}${page}`);
  });

  test('the same origin-policy verdict: a refused URL is refused by every door, a refused frame is read by none', async () => {
    const refused = `${fx.altUrl}/fixtures/actions/form.html`;
    for (const d of doors) assert.equal(await d.openRefused(refused), 'permission_denied', `${d.name}`);
    // A frame from a refused origin: its document never loads, so no door reads anything of it, while
    // the same document in an allowed frame is read by every door.
    const framed = `${fx.url}/fixtures/policy/iframes.html?alt=${encodeURIComponent(fx.altUrl)}`;
    for (const d of doors) {
      await d.open(framed);
      const deadline = Date.now() + 10_000;
      let els = await d.elements();
      while (!els.some((e) => /Framed button/.test(e.el)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        els = await d.elements();
      }
      const hits = els.filter((e) => /Framed button/.test(e.el)).length;
      assert.equal(hits, 1, `${d.name}: the allowed frame is read, the refused one is not (${hits})`);
    }
  });

  test('the same failure gives the same normalized error in every door', async () => {
    for (const d of doors) await d.open(`${fx.url}/fixtures/actions/form.html`);
    for (const d of doors) {
      const none = await d.clickSelector('#no-such-element');
      assert.equal(none, 'element_not_found', `${d.name}: a selector that matches nothing`);
      const bad = await d.clickSelector('div[');
      assert.ok(['invalid_selector', 'invalid_request|invalid_selector'].includes(bad), `${d.name}: ${bad}`);
    }
  });

  test('a file set on an element that is not a file input is the same refusal in every door that uploads', async () => {
    const file = join(home.dir, 'equivalence-upload.txt');
    writeFileSync(file, 'a file for an element that takes none\n');
    const uploading = doors.filter((d) => d.uploadOnto);
    assert.deepEqual(
      uploading.map((d) => d.name),
      ['http', 'provider', 'mcp'],
    );
    for (const d of uploading) {
      await d.open(`${fx.url}/fixtures/actions/form.html`);
      assert.equal(await d.uploadOnto!('#change', file), 'unsupported_target/not_file_input', d.name);
    }
  });
});
