import type { FuzzDoor } from '../runner.js';
import { HttpCommandFuzz } from './http.js';
import { JsDaemonFuzz } from './js.js';
import { McpHttpFuzz } from './mcp-http.js';
import { McpStdioFuzz } from './mcp-stdio.js';
import { PipeFuzz } from './pipe.js';
import { ProviderFuzz } from './provider.js';

/** Every fuzzed door by name (the `--door` of `npm run fuzz`), each through its real transport. */
export const FUZZ_DOORS: Record<string, () => FuzzDoor> = {
  http: () => new HttpCommandFuzz(),
  'mcp-stdio': () => new McpStdioFuzz(),
  'mcp-http': () => new McpHttpFuzz(),
  provider: () => new ProviderFuzz(),
  pipe: () => new PipeFuzz(),
  js: () => new JsDaemonFuzz(),
};
