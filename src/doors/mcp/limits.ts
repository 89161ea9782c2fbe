/** Largest message (a stdio line, a `/mcp` body), in bytes (here, not in jsonrpc.ts: http.ts needs it without the MCP SDK). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
