import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProviderClient } from '../../src/conformance/client.js';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const BIN = resolve(ROOT, 'bin/tabwright.js');

/** The real `tabwright provider` process (built: npm test builds first; alone, run `npm run -s build`). */
export function spawnProvider(
  home: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  /** What starts the CLI (default `node bin/tabwright.js`; `[BIN]` runs it as a program). */
  cli: string[] = [process.execPath, BIN],
): ProviderClient {
  if (!existsSync(resolve(ROOT, 'dist/bundle/main.js')))
    throw new Error('dist/bundle/ (the CLI) is missing: run `npm run -s build` first');
  return ProviderClient.spawn([...cli, 'provider', ...args], {
    env: { TABWRIGHT_HOME: home, TABWRIGHT_LOG: process.env.TABWRIGHT_LOG ?? 'warn', ...env },
    cwd: ROOT,
  });
}

/** Resolves once `path` is a Unix socket (a `tabwright provider --socket` is listening). */
export async function waitForSocket(path: string, timeoutMs = 45_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    try {
      if (statSync(path).isSocket()) return;
    } catch {}
    if (Date.now() - t0 > timeoutMs) throw new Error(`the socket ${path} did not appear`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
