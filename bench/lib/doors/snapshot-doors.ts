import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Browser, chromium } from 'playwright-core';
import { requireChromium } from '../../../src/backends/chromium/discovery.js';
import { chromiumFlags } from '../../../src/backends/chromium/flags.js';
import type { ProviderClient } from '../../../src/conformance/client.js';
import { request as jsRequest } from '../../../src/doors/js/socket-client.js';
import { spawnProvider } from '../../../test/helpers/provider.js';
import { spawnServe } from '../../../test/helpers/serve.js';
import { httpCommand } from '../soak/doors.js';

/**
 * One side of the snapshot-doors benchmark: a door of ours through its real transport (a spawned
 * process and the client an agent would use), our engine in this process, or Playwright's
 * `ariaSnapshot({ mode: 'ai' })`, the anchor. Each side has its own Chromium (the same binary and
 * flags) and lets nothing leave the fixture server's origin.
 */
export interface Side {
  readonly name: string;
  open(url: string): Promise<void>;
  /** One snapshot of the whole page, as the door's client receives and decodes it: its size in chars. */
  snapshot(): Promise<number>;
  close(): Promise<void>;
}

/** Whole pages, like the anchor's whole page: no character budget where a door has one. */
const UNLIMITED = 10_000_000;
const T = 60_000;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BIN = join(ROOT, 'bin/tabwright.js');
/** The CLI the next spawned door runs: this tree's, or another build's (`--bin-b`, see `withBin`). */
let bin = BIN;

/** The side `make` starts with `otherBin` (another tree's bin/tabwright.js) as its CLI. */
export async function withBin<S>(otherBin: string, make: () => Promise<S>): Promise<S> {
  bin = otherBin;
  try {
    return await make();
  } finally {
    bin = BIN;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON, read field by field
type Json = Record<string, any>;

export async function playwrightSide(origin: string): Promise<Side> {
  const browser: Browser = await chromium.launch({
    executablePath: requireChromium().path,
    args: chromiumFlags(),
    headless: true,
  });
  const context = await browser.newContext();
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    return u.origin === origin || u.protocol === 'data:' || u.protocol === 'blob:'
      ? route.continue()
      : route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  return {
    name: 'playwright',
    open: async (url) => void (await page.goto(url, { waitUntil: 'load', timeout: T })),
    snapshot: async () => (await page.ariaSnapshot({ mode: 'ai', timeout: T })).length,
    close: () => browser.close(),
  };
}

/** Our engine in this process: `page.snapshot()`, the engine call every door makes. */
export async function engineSide(home: string, origin: string): Promise<Side> {
  // Imported here, after the benchmark set TABWRIGHT_LOG: the engine's logger reads it when loaded.
  const { createEngine } = await import('../../../src/index.js');
  const engine = createEngine({ home });
  const session = await engine.startSession({ policy: { allowed_origins: [origin] } });
  const page = session.page();
  return {
    name: 'engine',
    open: async (url) => void (await page.open(url, 'load', { timeoutMs: T })),
    snapshot: async () => (await page.snapshot({ max_chars: UNLIMITED }, { timeoutMs: T })).text.length,
    close: () => engine.close(),
  };
}

/** `tabwright provider` over stdio: `page.snapshot`'s default reply (nodes, elements, text). */
export async function providerSide(home: string, origin: string): Promise<Side> {
  const client: ProviderClient = spawnProvider(home, [], {}, [process.execPath, bin]);
  const { session_id } = await client
    .call('session.ensure', { allowed_origins: [origin], timeout_ms: T })
    .catch((err) => {
      throw new Error(`${err}\n${client.stderr.slice(-3000)}`);
    });
  return {
    name: 'provider',
    open: async (url) => void (await client.call('page.open', { session_id, url, timeout_ms: T }, T)),
    snapshot: async () => {
      const r = await client.call('page.snapshot', { session_id, max_chars: UNLIMITED, timeout_ms: T }, T);
      return String(r.text).length;
    },
    close: async () => void (await client.close()),
  };
}

/** `tabwright mcp` over stdio through the MCP SDK client: the `snapshot` tool. */
export async function mcpSide(home: string, origin: string): Promise<Side> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--allow-origin', origin],
    env: { ...(process.env as Record<string, string>), TABWRIGHT_HOME: home, TABWRIGHT_LOG: 'warn' },
    stderr: 'ignore',
    cwd: ROOT,
  });
  const client = new Client({ name: 'tabwright-bench', version: '0' });
  await client.connect(transport);
  const call = async (name: string, args: Json): Promise<string> => {
    const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: T })) as Json;
    const text = (r.content ?? []).map((c: Json) => c.text ?? '').join('\n');
    if (r.isError) throw new Error(`${name}: ${text.slice(0, 300)}`);
    return text;
  };
  return {
    name: 'mcp',
    open: async (url) => void (await call('navigate', { url, wait_until: 'load', timeout_ms: T })),
    snapshot: async () => (await call('snapshot', { max_chars: UNLIMITED, timeout_ms: T })).length,
    close: () => client.close(),
  };
}

/** `tabwright serve`, `POST /playwright/command` `get_browser_state` of the whole page (`viewportExpansion: -1`). */
export async function httpSide(home: string, origin: string): Promise<Side> {
  const serve = await spawnServe(home, ['--allow-origin', origin, '--min-free-mb', '0']);
  const post = httpCommand(serve.url);
  const id = String((await post({ method: 'start' })).id);
  return {
    name: 'http',
    open: async (url) => void (await post({ id, method: 'go_to_url', params: { url, timeoutMs: T } })),
    snapshot: async () =>
      String((await post({ id, method: 'get_browser_state', params: { viewportExpansion: -1 } })).text)
        .length,
    close: async () => {
      await post({ id, method: 'close', params: {} }).catch(() => {});
      await serve.close();
    },
  };
}

/**
 * `tabwright pipe` with an agent on the SDK (lib/doors/pipe-relay-agent.mjs) that relays this
 * benchmark's commands and reports how long each SDK call took: `getAomSnapshot`.
 */
export async function pipeSide(home: string): Promise<Side> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const agent = join(ROOT, 'bench/lib/doors/pipe-relay-agent.mjs');
  const host: ChildProcess = spawn(
    process.execPath,
    [
      bin,
      'pipe',
      '--handshake-timeout',
      '30000',
      '--action-timeout',
      String(T),
      '--agent',
      `${process.execPath} ${agent} ${port}`,
    ],
    {
      env: { ...process.env, TABWRIGHT_HOME: home, TABWRIGHT_LOG: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: ROOT,
    },
  );
  let stderr = '';
  host.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-3000);
  });
  const socket = await new Promise<Socket>((resolve, reject) => {
    server.once('connection', resolve);
    host.once('exit', (code) => reject(new Error(`tabwright pipe exited (${code}): ${stderr}`)));
  });
  socket.setEncoding('utf8');
  socket.setNoDelay(true);
  const pending = new Map<number, (r: Json) => void>();
  let buf = '';
  socket.on('data', (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const r = JSON.parse(buf.slice(0, i)) as Json;
      buf = buf.slice(i + 1);
      pending.get(r.id)?.(r);
      pending.delete(r.id);
    }
  });
  let seq = 0;
  const run = (action: string, params: Json): Promise<Json> =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, (r) => (r.ok ? resolve(r) : reject(new Error(`${action}: ${r.error}`))));
      socket.write(`${JSON.stringify({ id, action, params, expected_domain: '127.0.0.1' })}\n`);
    });
  return {
    name: 'pipe',
    open: async (url) => void (await run('navigate', { url })),
    // The agent's own measure of the SDK call is the door's time; the relay hop is left out.
    snapshot: async () => {
      const r = await run('getAomSnapshot', {});
      lastPipeMs = r.ms;
      return r.chars;
    },
    close: async () => {
      socket.end();
      server.close();
      if (host.exitCode === null) {
        const exited = once(host, 'exit');
        const t = setTimeout(() => host.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
    },
  };
}

/** The pipe agent's own time of its last `getAomSnapshot` (the relay's hop to this process excluded). */
export let lastPipeMs = 0;

/** The `tabwright js` daemon over its Unix socket (what the CLI sends): `page.snapshot()` and its tree. */
let jsDaemons = 0;

export async function jsSide(home: string, runtimeDir: string, origin: string): Promise<Side> {
  const env = { ...process.env, TABWRIGHT_HOME: home, XDG_RUNTIME_DIR: runtimeDir, TABWRIGHT_LOG: 'warn' };
  const jsBin = bin;
  const name = `bench-${process.pid}-${++jsDaemons}`;
  const cli = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [jsBin, 'js', '--name', name, ...args], { env, cwd: ROOT });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      child.stderr.resume();
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`tabwright js ${args.join(' ')}: ${code} ${out}`)),
      );
      child.stdin.end('');
    });
  const status = JSON.parse(await cli(['--start'])) as { socket: string };
  const evaluate = async (code: string): Promise<string> => {
    const r = await jsRequest(status.socket, { op: 'eval', code, timeoutMs: T }, T + 5000);
    if (!r.ok || r.op !== 'eval') throw new Error(`tabwright js: ${JSON.stringify(r).slice(0, 300)}`);
    return (r as { output: string | null }).output ?? '';
  };
  await evaluate(
    `await browser.launch(); globalThis.page = await browser.open('about:blank', { allowedOrigins: [${JSON.stringify(origin)}] }); return 1;`,
  );
  return {
    name: 'js',
    open: async (url) => void (await evaluate(`await page.goto(${JSON.stringify(url)}); return 1;`)),
    snapshot: async () =>
      (await evaluate(`return (await page.snapshot({ maxChars: ${UNLIMITED} })).tree;`)).length,
    close: async () => void (await cli(['--stop']).catch(() => '')),
  };
}
