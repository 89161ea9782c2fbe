import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
