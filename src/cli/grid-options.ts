import type { Command } from 'commander';
import type { GridSettings } from '../backends/grid/grid-placement.js';
import { TabwrightError } from '../engine/errors.js';

/**
 * `--grid URL` and its companions on every door command. The flags become the environment
 * variables (TABWRIGHT_GRID_URL, TABWRIGHT_GRID_CAPABILITIES, TABWRIGHT_GRID_HEADER) that the
 * composition root reads, so processes a command starts (the JS harness's daemon) use the same Grid.
 */
export function withGridOptions(cmd: Command): Command {
  return cmd
    .option(
      '--grid <url>',
      'run sessions on this Selenium Grid 4 (hub or router) (default: $TABWRIGHT_GRID_URL)',
    )
    .option(
      '--grid-capabilities <json>',
      'capabilities merged into every Grid session request, e.g. {"platformName":"linux"} (default: $TABWRIGHT_GRID_CAPABILITIES)',
    )
    .option(
      '--grid-header <header...>',
      '"Name: value" sent with every Grid request, e.g. "Authorization: Basic …" (default: $TABWRIGHT_GRID_HEADER, one per line)',
    );
}

export function exportGridOptions(opts: {
  grid?: string;
  gridCapabilities?: string;
  gridHeader?: string[];
}): void {
  if (opts.grid) process.env.TABWRIGHT_GRID_URL = opts.grid;
  if (opts.gridCapabilities) process.env.TABWRIGHT_GRID_CAPABILITIES = opts.gridCapabilities;
  if (opts.gridHeader?.length) process.env.TABWRIGHT_GRID_HEADER = opts.gridHeader.join('\n');
}

/** The Grid this process places sessions on, from the environment; undefined for local browsers. */
export function gridFromEnv(env: NodeJS.ProcessEnv = process.env): GridSettings | undefined {
  const url = env.TABWRIGHT_GRID_URL?.trim();
  if (!url) return undefined;
  let capabilities: Record<string, unknown> | undefined;
  if (env.TABWRIGHT_GRID_CAPABILITIES) {
    try {
      capabilities = JSON.parse(env.TABWRIGHT_GRID_CAPABILITIES) as Record<string, unknown>;
    } catch {
      capabilities = undefined;
    }
    if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities))
      throw new TabwrightError(
        'invalid_request',
        '--grid-capabilities (TABWRIGHT_GRID_CAPABILITIES) must be a JSON object, e.g. {"platformName":"linux"}.',
        { details: { field: 'grid_capabilities' } },
      );
  }
  const headers: Record<string, string> = {};
  for (const line of (env.TABWRIGHT_GRID_HEADER ?? '').split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    if (at <= 0)
      throw new TabwrightError(
        'invalid_request',
        `--grid-header "${line.slice(0, 40)}" is not "Name: value"; e.g. "Authorization: Basic dXNlcjpwYXNz".`,
        { details: { field: 'grid_header' } },
      );
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return { url, capabilities, headers };
}
