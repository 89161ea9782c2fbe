import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Json } from './http.js';

/** The built `tabwright serve` on a free port (run `npm run build` first). */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  get alive(): boolean;
  /** POST /playwright/command with this body; the reply's JSON. */
  command(body: Json): Promise<Json>;
  close(): Promise<void>;
}

export async function spawnServe(
  home: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  /** What starts the CLI (default `node bin/tabwright.js`; `['bin/tabwright.js']` runs it as a program). */
  cli: string[] = [process.execPath, 'bin/tabwright.js'],
): Promise<ServeProcess> {
  const child = spawn(cli[0]!, [...cli.slice(1), 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TABWRIGHT_HOME: home, TABWRIGHT_LOG: process.env.TABWRIGHT_LOG ?? 'warn', ...env },
  });
  child.stderr?.resume();
  let out = '';
  child.stdout?.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`tabwright serve exited early (${code}): ${out}`)));
  });
  return {
    url,
    child,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    async command(body) {
      const res = await fetch(`${url}/playwright/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return res.json();
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}
