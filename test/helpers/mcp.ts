import assert from 'node:assert/strict';
import { after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome } from './engine.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';

export interface ToolReply {
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  isError?: boolean;
}

export function textOf(r: ToolReply): string {
  return (r.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}

/** An MCP SDK client with helpers: `call` fails on tool errors, `fail` expects one. */
export class McpTestClient {
  constructor(readonly client: Client) {}

  async raw(name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
    return (await this.client.callTool({ name, arguments: args })) as ToolReply;
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const r = await this.raw(name, args);
    assert.ok(!r.isError, `${name} failed: ${textOf(r)}`);
    return textOf(r);
  }

  async fail(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const r = await this.raw(name, args);
    assert.equal(r.isError, true, `${name} should fail, got: ${textOf(r)}`);
    return textOf(r);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Spawns the built `tabwright mcp` (run `npm run build` first) and connects over stdio. */
export async function stdioClient(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ mcp: McpTestClient; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/tabwright.js', 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), TABWRIGHT_LOG: 'warn', ...env },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'tabwright-test', version: '0' });
  await client.connect(transport);
  return { mcp: new McpTestClient(client), transport };
}

export async function httpClient(url: string): Promise<McpTestClient> {
  const client = new Client({ name: 'tabwright-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return new McpTestClient(client);
}

/** The ref on the first snapshot line matching `pred`. */
export function refIn(snapshot: string, pred: (line: string) => boolean): string {
  const line = snapshot.split('\n').find(pred);
  const m = line && /\[ref=(e\d+)\]/.exec(line);
  assert.ok(m, `no matching ref in:\n${snapshot}`);
  return m[1]!;
}

/**
 * The usual stdio setup at the top of a test file: a fixture server and the built `tabwright mcp` in a
 * temporary home, driven by the MCP SDK client; all closed after the file's tests.
 */
export async function mcpStdioTestEnv(): Promise<{
  server: FixtureServer;
  mcp: McpTestClient;
  home: string;
}> {
  const home = tempHome();
  const server = await startFixtureServer();
  const { mcp } = await stdioClient([], { TABWRIGHT_HOME: home.dir });
  after(async () => {
    await mcp.close();
    await server.close();
    home.cleanup();
  });
  return { server, mcp, home: home.dir };
}
