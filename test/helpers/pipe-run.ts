import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PIPE_ACTIONS } from '../../src/doors/pipe/protocol/constants.js';

/** Runs the built `tabwright pipe` in tests: rules files, the process, and its stderr split by origin. */

const BIN = 'bin/tabwright.js';

/** Every action of protocol 1.0 (the protocol's own list). */
export const ALL_ACTIONS = [...PIPE_ACTIONS];

export interface PipeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** JSON lines the agent wrote to its stderr (passed through by the host as "[agent] …"). */
  agent: Record<string, unknown>[];
  /** The host's own stderr lines. */
  hostLines: string[];
}

/** Helpers bound to one test home folder (rules files and TABWRIGHT_HOME live there). */
const HAND_AGENT = fileURLToPath(new URL('../fixtures/agents/hand-agent.mjs', import.meta.url));

export function pipeHarness(homeDir: string, defaultTimeoutMs = 80_000) {
  function writeJson(name: string, value: unknown): string {
    const path = join(homeDir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  }

  function rules(over: Record<string, unknown> = {}): string {
    return writeJson(`rules-${Math.random().toString(36).slice(2)}.json`, {
      version: '1.0',
      domains: { allowed: ['127.0.0.1', 'other.example'] },
      pipe_actions: { allowed: ALL_ACTIONS, blocked: ['eval', 'executeJsInPage'] },
      storage: { key_prefixes: ['sgclaw_'] },
      circuit_breaker: { max_failures: 50, window_ms: 60_000, cooldown_ms: 60_000 },
      ...over,
    });
  }

  /** The command line of the hand-written agent (test/fixtures/agents/hand-agent.mjs) running `script`. */
  function handAgent(script: unknown[], mode = 'ok', exitCode = 0): string {
    const scriptFile = writeJson(`script-${Math.random().toString(36).slice(2)}.json`, script);
    return `node ${HAND_AGENT} ${scriptFile} ${mode} ${exitCode} ${ALL_ACTIONS.join(',')}`;
  }

  function runPipe(args: string[], timeoutMs = defaultTimeoutMs): Promise<PipeRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'pipe', '--handshake-timeout', '30000', ...args], {
        env: { ...process.env, TABWRIGHT_HOME: homeDir, TABWRIGHT_LOG: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`tabwright pipe did not exit within ${timeoutMs} ms\n${stderr.slice(-3000)}`));
      }, timeoutMs);
      child.on('exit', (code) => {
        clearTimeout(timer);
        const lines = stderr.split('\n').filter(Boolean);
        const agent: Record<string, unknown>[] = [];
        const hostLines: string[] = [];
        for (const l of lines) {
          if (l.startsWith('[agent] ')) {
            try {
              agent.push(JSON.parse(l.slice(8)));
            } catch {
              agent.push({ raw: l.slice(8) });
            }
          } else hostLines.push(l);
        }
        resolve({ code, stdout, stderr, agent, hostLines });
      });
    });
  }
  return { writeJson, rules, runPipe, handAgent };
}

const RELAY_AGENT = fileURLToPath(new URL('../fixtures/agents/relay-agent.mjs', import.meta.url));

/** A running `tabwright pipe` whose agent is a relay to a socket this process serves: the test is the agent. */
export interface RelayedPipe {
  host: ChildProcess;
  /** The agent's end of the pipe: read the host's messages, write the agent's. */
  conn: Socket;
  /** The host's stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function relayedPipe(
  homeDir: string,
  rulesFile: string,
  args: string[] = [],
): Promise<RelayedPipe> {
  const dir = mkdtempSync(join(tmpdir(), 'twpipe-'));
  const sockPath = join(dir, 'agent.sock');
  const server = createServer();
  await new Promise<void>((r) => server.listen(sockPath, r));
  const connected = new Promise<Socket>((r) => server.once('connection', r));
  const host = spawn(
    process.execPath,
    [
      BIN,
      'pipe',
      '--handshake-timeout',
      '60000',
      '--rules',
      rulesFile,
      ...args,
      '--agent',
      `node ${RELAY_AGENT} ${sockPath}`,
    ],
    {
      env: { ...process.env, TABWRIGHT_HOME: homeDir, TABWRIGHT_LOG: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  host.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr = (stderr + c).slice(-50_000);
  });
  const exitedEarly = new Promise<never>((_, reject) =>
    host.once('exit', (code) =>
      reject(new Error(`tabwright pipe exited (${code}) before the agent connected\n${stderr}`)),
    ),
  );
  const conn = await Promise.race([connected, exitedEarly]);
  return {
    host,
    conn,
    stderr: () => stderr,
    async close() {
      conn.destroy();
      server.close();
      if (host.exitCode === null && host.signalCode === null) {
        const exited = new Promise((r) => host.once('exit', r));
        const t = setTimeout(() => host.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The processes below `pid` (children, grandchildren, …), from /proc. */
export function processesBelow(pid: number): { pid: number; ppid: number; name: string }[] {
  const all = new Map<number, { pid: number; ppid: number; name: string }>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      all.set(Number(e), { pid: Number(e), ppid, name: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {}
  }
  const below = (p: number): boolean => {
    for (let q = all.get(p)?.ppid; q !== undefined && q > 1; q = all.get(q)?.ppid) if (q === pid) return true;
    return false;
  };
  return [...all.values()].filter((p) => below(p.pid));
}
