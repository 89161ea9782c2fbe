import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { jsCli } from '../../test/helpers/js-cli.js';
import { BIN, spawnProvider } from '../../test/helpers/provider.js';
import { spawnServe } from '../../test/helpers/serve.js';

/**
 * Every door command of tabwright with one page open through its own real transport, for
 * `npm run bench:memory`: what a user runs, what its Node side weighs with one page on the page.
 * `pid` is the tabwright process that holds the engine (for `js`, its daemon; for `pipe`, the host,
 * not the agent it spawned, which is the user's program).
 */
export interface OpenDoor {
  pid: number;
  stop(): Promise<void>;
}

export type DoorCommand = 'mcp' | 'provider' | 'serve' | 'serve-mcp' | 'js' | 'pipe';
export const DOOR_COMMANDS: readonly DoorCommand[] = ['mcp', 'provider', 'serve', 'serve-mcp', 'js', 'pipe'];

/** What each row runs (the table's first column explains itself). */
export const DOOR_LABELS: Record<DoorCommand, string> = {
  mcp: '`tabwright mcp` (stdio)',
  provider: '`tabwright provider` (stdio)',
  serve: '`tabwright serve`, HTTP command API',
  'serve-mcp': '`tabwright serve`, MCP at /mcp',
  js: '`tabwright js` daemon',
  pipe: '`tabwright pipe` host',
};

/**
 * How a door command is started: `bin`, the way a user or an MCP client runs it (`npx tabwright
 * mcp`, an installed `tabwright mcp`: bin/tabwright.js executed as a program, whose sh line sets
 * glibc's malloc trim threshold and execs node); `node`, as the tests do (`node bin/tabwright.js
 * mcp`: the same CLI without that variable). The `js` row is the same either way: its CLI starts
 * the daemon with the variable (src/cli/malloc-env.ts).
 */
export type Launch = 'bin' | 'node';

/** The argv prefix that starts the CLI under `launch` (`bin`: another build's bin/tabwright.js). */
export function cliArgv(launch: Launch, bin = BIN): string[] {
  return launch === 'bin' ? [bin] : [process.execPath, bin];
}

const env = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  TABWRIGHT_HOME: home,
  TABWRIGHT_LOG: 'error',
  TABWRIGHT_MIN_FREE_MB: '0',
  ...extra,
});

async function mcpNavigate(transport: Transport, url: string): Promise<Client> {
  const c = new Client({ name: 'tabwright-bench-memory', version: '0' });
  await c.connect(transport);
  const r = (await c.callTool({ name: 'navigate', arguments: { url } }, undefined, { timeout: 120_000 })) as {
    isError?: boolean;
    content?: { text?: string }[];
  };
  if (r.isError) throw new Error(`navigate: ${r.content?.map((x) => x.text).join(' ')}`);
  return c;
}

async function httpCommand(base: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/playwright/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { ok?: boolean; data?: Record<string, unknown>; msg?: string };
  if (json.ok !== true) throw new Error(`${String(body.method)}: ${json.msg ?? JSON.stringify(json)}`);
  return json.data ?? {};
}

/** The pipe agent: SDK handshake, one signed navigate, then it idles until the host ends it. */
const PIPE_AGENT = `
import { PipeAgent } from ${JSON.stringify(join(process.cwd(), 'dist/doors/pipe/sdk/index.js'))};
const agent = await PipeAgent.connect({ logger: () => {} });
await agent.tool.run('navigate', { url: process.argv[2] });
process.stderr.write('NAVIGATED\\n');
setInterval(() => {}, 60_000);
`;

/** Starts `door` with one page open on `url` (origin `origin`) and resolves once the page loaded. */
export async function openDoor(
  door: DoorCommand,
  home: string,
  url: string,
  origin: string,
  launch: Launch = 'bin',
  /** Another build's bin/tabwright.js (default this tree's). */
  bin = BIN,
): Promise<OpenDoor> {
  const [command, ...prefix] = cliArgv(launch, bin) as [string, ...string[]];
  switch (door) {
    case 'mcp': {
      const t = new StdioClientTransport({
        command,
        args: [...prefix, 'mcp', '--allow-origin', origin],
        env: env(home) as Record<string, string>,
        stderr: 'ignore',
      });
      const c = await mcpNavigate(t, url);
      return { pid: t.pid!, stop: () => c.close() };
    }
    case 'provider': {
      const p = spawnProvider(home, [], env(home), cliArgv(launch, bin));
      const ensured = await p.call('session.ensure', {
        client_session_id: 'bench-memory',
        isolation: 'per_session',
        allowed_origins: [origin],
      });
      await p.call('page.open', { session_id: ensured.session_id, url, timeout_ms: 60_000 }, 120_000);
      return { pid: p.pid!, stop: async () => void (await p.close()) };
    }
    case 'serve':
    case 'serve-mcp': {
      const s = await spawnServe(home, ['--allow-origin', origin], env(home), [command, ...prefix]);
      if (door === 'serve') {
        const { id } = await httpCommand(s.url, { method: 'start' });
        await httpCommand(s.url, { id, method: 'go_to_url', params: { url, timeoutMs: 60_000 } });
        return { pid: s.child.pid!, stop: () => s.close() };
      }
      const t = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`));
      const c = await mcpNavigate(t, url);
      return {
        pid: s.child.pid!,
        stop: async () => {
          await t.terminateSession().catch(() => {});
          await c.close();
          await s.close();
        },
      };
    }
    case 'js': {
      const js = jsCli(`bench-memory-${process.pid}`, bin);
      const code = `await browser.launch(); globalThis.benchPage = await browser.open(${JSON.stringify(url)}, { allowedOrigins: [${JSON.stringify(origin)}] }); console.log('ok');`;
      const r = await js.run(code);
      if (r.code !== 0) throw new Error(`tabwright js: ${r.stderr}`);
      const status = JSON.parse((await js.cli(['--status'])).stdout) as { pid: number };
      return { pid: status.pid, stop: () => js.stop() };
    }
    case 'pipe': {
      const agent = join(home, 'bench-memory-pipe-agent.mjs');
      writeFileSync(agent, PIPE_AGENT);
      // The default MAC rules (loopback hosts, every action) on both sides.
      const host = spawn(command, [...prefix, 'pipe', '--agent', `${process.execPath} ${agent} ${url}`], {
        env: env(home),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      host.stderr.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        host.stderr.on('data', (d: string) => {
          err += d;
          if (err.includes('NAVIGATED')) resolve();
        });
        host.once('exit', (c) => reject(new Error(`tabwright pipe exited (${c}): ${err.slice(-2000)}`)));
      });
      return {
        pid: host.pid!,
        stop: async () => {
          if (host.exitCode !== null) return;
          const exited = once(host, 'exit');
          host.kill('SIGTERM');
          await exited;
        },
      };
    }
  }
}
