import {
  Protocol,
  type ProtocolOptions,
  type RequestHandlerExtra,
} from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  type Implementation,
  InitializedNotificationSchema,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  LATEST_PROTOCOL_VERSION,
  McpError,
  type Notification,
  type Request,
  type Result,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP server of one client: the SDK's `Protocol` (JSON-RPC requests, responses, cancellation,
 * ping, timeouts) with the part of the SDK's `Server` this door uses: `initialize` (version
 * negotiation, capabilities, server info, instructions), `notifications/initialized`, and the
 * validation of every tools/call result against the SDK's CallToolResultSchema.
 *
 * Why not the SDK's `Server`: its module imports ajv and ajv-formats at load to validate elicitation
 * replies, a request this server never sends: ≈ 1 MB of V8 heap in every `tabwright mcp` and
 * `serve` with `/mcp` (docs/benchmarks.md, memory; test/lean-loading.test.ts checks that ajv stays
 * out). The behaviour follows `Server` of @modelcontextprotocol/sdk 1.32 (server/index.js) for the
 * methods above; the tests in test/mcp-*.test.ts hold it to the protocol. A server that needs
 * sampling, elicitation, logging or tasks should go back to `Server`.
 */
export class ToolServer extends Protocol<Request, Notification, Result> {
  private clientCapabilities: unknown;

  constructor(
    private readonly serverInfo: Implementation,
    private readonly options: ProtocolOptions & { capabilities: ServerCapabilities; instructions?: string },
  ) {
    super(options);
    this.setRequestHandler(InitializeRequestSchema, (request) => this.initialize(request));
    this.setNotificationHandler(InitializedNotificationSchema, () => {});
  }

  private initialize(request: InitializeRequest): InitializeResult {
    const requested = request.params.protocolVersion;
    this.clientCapabilities = request.params.capabilities;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      capabilities: this.options.capabilities,
      serverInfo: this.serverInfo,
      ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
    };
  }

  /** The tools/call handler, its result checked as `Server` checks it (an invalid one is -32602). */
  setToolCallHandler(
    handler: (
      request: CallToolRequest,
      extra: RequestHandlerExtra<Request, Notification>,
    ) => Promise<CallToolResult>,
  ): void {
    this.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const parsed = CallToolResultSchema.safeParse(await handler(request, extra));
      if (!parsed.success)
        throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${parsed.error.message}`);
      return parsed.data;
    });
  }

  // This server sends no requests of its own (no sampling, elicitation or roots) and only the
  // notifications Protocol sends itself (cancelled, progress): nothing to check.
  protected assertCapabilityForMethod(): void {}
  protected assertNotificationCapability(): void {}
  protected assertTaskCapability(): void {}
  protected assertTaskHandlerCapability(): void {}

  protected assertRequestHandlerCapability(method: string): void {
    // Protocol's constructor registers ping before this class's fields exist.
    if (!this.options?.capabilities) return;
    if ((method === 'tools/call' || method === 'tools/list') && !this.options.capabilities.tools)
      throw new Error(`Server does not support tools (required for ${method})`);
  }

  /** The client's capabilities from its initialize request (undefined before). */
  getClientCapabilities(): unknown {
    return this.clientCapabilities;
  }
}
