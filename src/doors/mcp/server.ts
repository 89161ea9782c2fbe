import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../../version.js';
import type { Engine } from '../../engine/engine.js';
import { TabwrightError } from '../../engine/errors.js';
import { log } from '../../engine/log.js';
import { parseParams, toJsonSchema } from '../../engine/schemas.js';
import { renderError } from './render.js';
import { ClientScope, type ScopeOptions } from './scope.js';
import { ALL_TOOLS } from './table.js';
import type { ToolContent, ToolDef } from './tools.js';

export interface McpDoorOptions extends ScopeOptions {
  /** "all" (default), "core" (the ten everyday tools), or a list of tool names. */
  tools?: 'all' | 'core' | string[];
}

export const INSTRUCTIONS =
  'Drive a real browser. Typical loop: navigate, snapshot (refs like e12), act with ref, read the reply (what changed + snapshot diff). ' +
  'Refs stay valid until the element goes away; a stale ref is an error: take a new snapshot. ' +
  'page_id is optional everywhere (default: active tab). Each MCP connection has its own browser session.';

export function selectTools(choice: McpDoorOptions['tools'] = 'all'): ToolDef[] {
  if (choice === 'all') return ALL_TOOLS;
  if (choice === 'core') return ALL_TOOLS.filter((t) => t.core);
  const names = new Set(choice);
  const unknown = [...names].filter((n) => !ALL_TOOLS.some((t) => t.name === n));
  if (unknown.length) {
    throw new TabwrightError(
      'invalid_request',
      `Unknown tool(s) ${unknown.join(', ')}; choose from ${ALL_TOOLS.map((t) => t.name).join(', ')}, or "core"/"all".`,
      { details: { field: 'tools' } },
    );
  }
  return ALL_TOOLS.filter((t) => names.has(t.name));
}

/** The tools/list entries of a tool set. */
export function toolListing(tools: ToolDef[]) {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: toJsonSchema(t.schema) as { type: 'object'; [k: string]: unknown },
  }));
}

export interface McpDoor {
  server: Server;
  scope: ClientScope;
  /** Closes the MCP server and every session this client started. */
  close(): Promise<void>;
}

/**
 * One MCP server for one client: its own tool set and its own ClientScope
 * (sessions and pages). Connect it to a transport (stdio, streamable HTTP).
 */
export function createMcpDoor(engine: Engine, opts: McpDoorOptions = {}): McpDoor {
  const tools = selectTools(opts.tools);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listing = toolListing(tools);
  const scope = new ClientScope(engine, opts);
  const server = new Server(
    { name: 'tabwright', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args } = req.params;
    const tool = byName.get(name);
    const t0 = Date.now();
    try {
      if (!tool) {
        throw new TabwrightError(
          'unsupported_method',
          `No tool "${name}". Tools: ${[...byName.keys()].join(', ')}.`,
          { details: { tool: name } },
        );
      }
      const parsed = parseParams(tool.schema, args ?? {}, name);
      const out = await tool.run({ scope, signal: extra.signal }, parsed as never);
      const content: ToolContent[] = typeof out === 'string' ? [{ type: 'text', text: out }] : out;
      log.debug({ tool: name, ms: Date.now() - t0 }, 'mcp tool');
      return { content };
    } catch (err) {
      log.debug({ tool: name, ms: Date.now() - t0, err: String(err) }, 'mcp tool failed');
      return { isError: true, content: [{ type: 'text', text: renderError(err) }] };
    }
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    scope,
    close() {
      closing ??= (async () => {
        await scope.close();
        await server.close().catch(() => {});
      })();
      return closing;
    },
  };
}
