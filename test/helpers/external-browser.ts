import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { requireChromium } from '../../src/backends/chromium/discovery.js';
import { chromiumFlags, withDisabledFeatures } from '../../src/backends/chromium/flags.js';

/** Liveness as the engine judges it (a zombie is gone). */
export { isAlive } from '../../src/backends/process-tree.js';

/**
 * Browsers started by tests the way a user would start them, outside the
 * engine: a Chromium with --remote-debugging-port (for attach) and a
 * Playwright browser server (for remote). Tests may use playwright-core
 * directly; the engine code may not.
 */
export interface DebuggableChromium {
  process: ChildProcess;
  httpEndpoint: string;
  stop(): Promise<void>;
}

export async function startDebuggableChromium(): Promise<DebuggableChromium> {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-attach-'));
  // Its temporary folders (the profile's singleton socket among them) inside the profile folder,
  // which stop() removes: a browser killed with SIGKILL leaves them behind in TMPDIR.
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const proc = spawn(
    requireChromium().path,
    // Our disabled features too: without a driver's list this browser would resolve Google's hosts
    // (network time, autofill, optimization hints) during the suite.
    withDisabledFeatures([
      ...chromiumFlags(),
      '--headless=new',
      '--remote-debugging-port=0',
      `--user-data-dir=${dir}`,
      'about:blank',
    ]),
    // Its own process group, so stop() ends the helpers (renderer, GPU, crashpad) with the browser.
    { stdio: 'ignore', detached: true, env: { ...process.env, TMPDIR: tmp } },
  );
  const portFile = join(dir, 'DevToolsActivePort');
  const deadline = Date.now() + 15_000;
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8').split('\n').length < 2) {
    if (Date.now() > deadline) throw new Error('debuggable chromium did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = readFileSync(portFile, 'utf8').split('\n')[0];
  return {
    process: proc,
    httpEndpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        try {
          process.kill(-proc.pid!, 'SIGKILL');
        } catch {
          proc.kill('SIGKILL');
        }
        await exited;
      }
      // Helpers may still be writing to the profile for a moment after the kill; a leftover
      // temporary folder is not a test failure.
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      } catch {}
    },
  };
}

export async function startBrowserServer(): Promise<{ wsEndpoint: string; stop(): Promise<void> }> {
  const server = await chromium.launchServer({
    executablePath: requireChromium().path,
    args: chromiumFlags(),
    host: '127.0.0.1',
    headless: true,
  });
  return { wsEndpoint: server.wsEndpoint(), stop: () => server.close() };
}
