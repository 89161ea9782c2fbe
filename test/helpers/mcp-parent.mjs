// A stand-in for an MCP client process (an editor, an agent): spawns `tabwright mcp`, opens a page
// so a browser runs, prints the server's pid, then idles until it is killed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const url = process.argv[2];
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['bin/tabwright.js', 'mcp'],
  env: { ...process.env, TABWRIGHT_LOG: process.env.PARENT_LOG ?? 'warn' },
  stderr: 'inherit',
});
const client = new Client({ name: 'orphan-parent', version: '0' });
await client.connect(transport);
const r = await client.callTool({ name: 'navigate', arguments: { url, timeout_ms: 30000 } });
if (r.isError) {
  process.stderr.write(`navigate failed: ${JSON.stringify(r.content)}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ server_pid: transport.pid })}\n`);
setInterval(() => {}, 1000);
