import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { EFFECTS, log, TabwrightError, toJsonSchema } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import { VERSION } from '../../version.js';
import { dispatch, InvalidParams, invalidRequest, MethodTable } from '../kit/index.js';
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
  if (choice === 'core') return ALL_TOOLS.filter((t) => t.meta.core);
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

/**
 * The tools/list entries of a tool set. Titles are the rows'; the annotations clients use to decide
 * what needs the user's approval come from the engine operations' effects.
 */
export function toolListing(tools: ToolDef[]) {
  return tools.map((t) => ({
    name: t.name,
    title: t.meta.title,
    description: t.summary,
    inputSchema: toJsonSchema(t.params) as { type: 'object'; [k: string]: unknown },
    ...annotations(t),
  }));
}

/**
 * MCP's tool hints from the operation's effect. A hint equal to the spec's default (readOnly false,
 * destructive true, idempotent false, openWorld true) is left out: the listing is the model's
 * token budget, and a client reads an absent hint as its default.
 */
function annotations(t: ToolDef): { annotations?: Record<string, boolean> } {
  const facts = EFFECTS[t.effect];
  const hints: Record<string, boolean> = {};
  if (facts.readOnly) hints.readOnlyHint = true;
  else {
    if (!facts.destructive) hints.destructiveHint = false;
    if (facts.idempotent) hints.idempotentHint = true;
  }
  if (!facts.openWorld) hints.openWorldHint = false;
  return Object.keys(hints).length ? { annotations: hints } : {};
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
  const table = new MethodTable(tools);
  const listing = toolListing(tools);
  const scope = new ClientScope(engine, opts);
  const server = new Server(
    { name: 'tabwright', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args } = req.params;
    const t0 = Date.now();
    try {
      const { result } = await dispatch(table, name, { scope, signal: extra.signal }, args ?? {}, {
        unknownMethod: (n) =>
          new TabwrightError('unsupported_method', `No tool "${n}". Tools: ${table.names().join(', ')}.`, {
            details: { tool: n },
          }),
        failure: (err) => (err instanceof InvalidParams ? invalidRequest(err) : (err as Error)),
      });
      const content: ToolContent[] = typeof result === 'string' ? [{ type: 'text', text: result }] : result;
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
