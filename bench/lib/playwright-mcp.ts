import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { requireChromium } from '../../src/backends/chromium/discovery.js';
import { chromiumFlags } from '../../src/backends/chromium/flags.js';

/**
 * The anchor of the MCP and action benchmarks: Playwright MCP (@playwright/mcp,
 * a dev dependency) over stdio, on the same Chromium binary and flags as ours,
 * isolated, headless, with its output files kept in `dir`.
 */
export function playwrightMcpTransport(dir: string, extraArgs: string[] = []): StdioClientTransport {
  const config = join(dir, 'pw-mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      browser: {
        isolated: true,
        launchOptions: { executablePath: requireChromium().path, headless: true, args: chromiumFlags() },
      },
    }),
  );
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      join(process.cwd(), 'node_modules', '@playwright', 'mcp', 'cli.js'),
      '--config',
      config,
      '--headless',
      '--isolated',
      ...extraArgs,
      '--output-dir',
      join(dir, 'pw-mcp-output'),
    ],
    cwd: dir,
    stderr: 'ignore',
  });
}
