import { type ChildProcess, spawn } from 'node:child_process';
import { log } from '../../engine/log.js';
import type { GridEndpoint } from './webdriver.js';

/**
 * The reaper's program (plain JavaScript, run with `node -e`, so it works from src under tsx and
 * from dist alike). Its stdin is a pipe from us: the first line is the Grid endpoint, then
 * `+<id>` / `-<id>` lines as Grid sessions are created and deleted. When the pipe ends (we exited,
 * crashed or were killed with SIGKILL) it deletes the sessions still listed and exits.
 */
const REAPER_SOURCE = `
const live = new Set(); let grid; let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d; let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!grid) grid = JSON.parse(line);
    else if (line[0] === '+') live.add(line.slice(1));
    else if (line[0] === '-') live.delete(line.slice(1));
  }
});
process.stdin.on('close', async () => {
  await Promise.allSettled([...live].map((id) => fetch(grid.base + '/session/' + id, {
    method: 'DELETE', headers: grid.headers, signal: AbortSignal.timeout(60000) })));
  process.exit(0);
});
`;

/**
 * Deletes our Grid sessions when this process is gone, however it ended: a small detached Node
 * process watching a pipe from us (a SIGKILL runs no handler of ours). A session the Grid still
 * holds after its client died would keep a slot until the node's --session-timeout.
 */
export class GridReaper {
  private child: ChildProcess | undefined;

  constructor(private readonly grid: GridEndpoint) {}

  private send(line: string): void {
    if (!this.child) {
      this.child = spawn(process.execPath, ['-e', REAPER_SOURCE], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
        env: { PATH: process.env.PATH ?? '' },
      });
      this.child.on('error', (err) => log.warn({ err: String(err) }, 'Grid session reaper did not start'));
      this.child.stdin?.on('error', () => {});
      this.child.unref();
      (this.child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      // Headers may carry credentials: over the pipe, never on the command line.
      this.child.stdin?.write(`${JSON.stringify(this.grid)}\n`);
    }
    this.child.stdin?.write(`${line}\n`);
  }

  created(id: string): void {
    this.send(`+${id}`);
  }

  deleted(id: string): void {
    if (this.child) this.send(`-${id}`);
  }

  /** Ends the reaper (after every session was deleted): it exits with nothing left to do. */
  stop(): void {
    this.child?.stdin?.end();
    this.child = undefined;
  }
}
