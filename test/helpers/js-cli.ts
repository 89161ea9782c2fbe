import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs the real `tabwright js` CLI (bin/tabwright.js, built) the way the
 * seed's examples do: code on stdin, as from a quoted heredoc. Each harness
 * has its own daemon name and runtime dir, so tests never collide.
 */
export interface JsRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface JsCli {
  name: string;
  runtimeDir: string;
  /** The daemon's Unix socket (there once the daemon runs). */
  socket: string;
  /** Runs a snippet from stdin (a quoted heredoc). */
  run(code: string, args?: string[]): Promise<JsRun>;
  /** Runs the CLI with arguments only (flags, -e). */
  cli(args: string[], input?: string): Promise<JsRun>;
  /** Runs a snippet and parses its JSON output; throws with stderr when it fails. */
  json<T = unknown>(code: string): Promise<T>;
  /** Stops the daemon and removes the runtime dir. */
  stop(): Promise<void>;
}

/** `bin`: the CLI to run (default this tree's bin/tabwright.js; the memory benchmark's --bin-b runs another build's). */
export function jsCli(name: string, bin = 'bin/tabwright.js'): JsCli {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'twjs-'));
  const env = {
    ...process.env,
    XDG_RUNTIME_DIR: runtimeDir,
    TABWRIGHT_LOG: process.env.TABWRIGHT_LOG ?? 'info',
    // Pinned: a rebuild of dist/ by someone else mid-test must not make the daemon look stale.
    TABWRIGHT_JS_CODE_STAMP: 'test-stamp',
  };
  const cli = (args: string[], input?: string): Promise<JsRun> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'js', '--name', name, ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  const run = (code: string, args: string[] = []) => cli(args, code);
  return {
    name,
    runtimeDir,
    socket: join(runtimeDir, 'tabwright', `js-${name}.sock`),
    run,
    cli,
    async json<T>(code: string): Promise<T> {
      const r = await run(code);
      if (r.code !== 0) throw new Error(`snippet failed (${r.code}): ${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    },
    async stop() {
      await cli(['--stop']).catch(() => {});
      rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes raw bytes to the daemon's socket (one connection) and reads what
 * comes back until the daemon ends it; null when nothing ends within
 * `timeoutMs`. `end` half-closes after writing (a request without newline).
 */
export function rawDaemonRequest(
  socket: string,
  bytes: string | Buffer,
  timeoutMs = 10_000,
  end = false,
): Promise<string | null> {
  return new Promise((resolve) => {
    const conn = connect(socket);
    let out = '';
    const timer = setTimeout(() => {
      conn.destroy();
      resolve(null);
    }, timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => {
      conn.write(bytes);
      if (end) conn.end();
    });
    conn.on('data', (d: string) => {
      out += d;
    });
    conn.on('error', () => {});
    conn.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}
