import { serveMcpStdio } from '../doors/mcp/stdio.js';
import { browserOrExit, createEngine, warmUp } from './compose.js';

export interface McpCliOptions {
  headed?: boolean;
  /** chromium or firefox (--browser, $TABWRIGHT_BROWSER). */
  browser?: string;
  tools?: string;
  allowOrigin?: string[];
  uploadDir?: string[];
  /** Let the client open and fetch file: URLs (EngineOptions.allowFileUrls). */
  allowFileUrls?: boolean;
}

/** `tabwright mcp`: the MCP door on stdio for one client; exits when the client or the parent goes away. */
export async function runMcp(opts: McpCliOptions): Promise<void> {
  const browser = browserOrExit('mcp', opts.browser);
  const engine = createEngine({
    headless: !opts.headed,
    allowFileUrls: opts.allowFileUrls === true,
    browser,
  });
  warmUp(engine, browser);
  const tools =
    !opts.tools || opts.tools === 'all' || opts.tools === 'core'
      ? ((opts.tools ?? 'all') as 'all' | 'core')
      : opts.tools
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  const policy = opts.allowOrigin?.length ? { allowed_origins: opts.allowOrigin } : undefined;
  const uploadRoots = opts.uploadDir?.length ? opts.uploadDir : undefined;
  const mcp = await serveMcpStdio(engine, { tools, policy, uploadRoots });
  await mcp.done;
  process.exit(0);
}
