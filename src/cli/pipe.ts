import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { splitCommandLine } from '../doors/pipe/host/argv.js';
import { HandshakeError, PipeHost } from '../doors/pipe/host/host.js';
import { DEFAULT_RULES, loadRules, MacPolicy, type Rules } from '../doors/pipe/protocol/rules.js';
import { log } from '../engine/log.js';
import { browserOrExit, createEngine, SHUTDOWN_GRACE_MS } from './compose.js';

export interface PipeCliOptions {
  agent: string;
  rules?: string;
  browser?: string;
  headed?: boolean;
  handshakeTimeout?: number;
  actionTimeout?: number;
  /** Passed to the engine; the pipe's navigate takes http(s) URLs only, so file: stays unreachable. */
  allowFileUrls?: boolean;
}

/** A host pattern that matches nothing: an empty domain list must not mean "any origin" in the engine. */
const NO_HOST = 'no-domain-allowed.invalid';

/**
 * `tabwright pipe --agent "<cmd>"`: the browser side of the sgClaw pipe.
 * Starts a session whose origin policy is the rules' domain whitelist,
 * spawns the agent (stdin/stdout: protocol; its stderr passed through with
 * a prefix), runs the handshake and serves commands until the agent exits;
 * exits with the agent's exit code.
 */
export async function runPipe(opts: PipeCliOptions): Promise<void> {
  const fail = (message: string, code = 2): never => {
    process.stderr.write(`tabwright pipe: ${message}\n`);
    process.exit(code);
  };
  const browser = browserOrExit('pipe', opts.browser);
  let argv: string[] = [];
  try {
    argv = splitCommandLine(opts.agent ?? '');
  } catch (err) {
    fail((err as Error).message);
  }
  if (argv.length === 0) fail('--agent needs a command line, e.g. --agent "node agent.js".');
  if (!findExecutable(argv[0]!)) {
    fail(`cannot start the agent "${argv[0]}": not found (give a path or a command on PATH).`, 1);
  }
  let rules: Rules = DEFAULT_RULES;
  const rulesPath = opts.rules ? resolve(opts.rules) : undefined;
  if (rulesPath) {
    try {
      rules = loadRules(rulesPath);
    } catch (err) {
      fail((err as Error).message);
    }
  } else {
    log.warn(
      { domains: DEFAULT_RULES.domains.allowed },
      'pipe: no --rules given; using the default rules (loopback hosts only, all 14 actions, storage keys "sgclaw_…")',
    );
  }
  const policy = new MacPolicy(rules, (until) =>
    log.warn({ open_until: new Date(until).toISOString() }, 'pipe: circuit breaker open'),
  );
  if (opts.allowFileUrls) {
    log.warn(
      'pipe: --allow-file-urls has no effect here: the pipe protocol only carries http(s) URLs and the rules whitelist hosts',
    );
  }
  const engine = createEngine({
    headless: !opts.headed,
    allowFileUrls: opts.allowFileUrls === true,
    browser,
  });
  const patterns = policy.hostPatterns.length ? policy.hostPatterns : [NO_HOST];
  const startSession = () =>
    engine.startSession({ policy: { allowed_host_patterns: patterns } }, { timeoutMs: 60_000 });
  const session = await startSession().catch(async (err) => {
    await engine.close({ graceMs: SHUTDOWN_GRACE_MS }).catch(() => {});
    return fail(`cannot start the browser: ${(err as Error).message}`, 1);
  });

  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...agentEnv(), ...(rulesPath ? { TABWRIGHT_PIPE_RULES: rulesPath } : {}) },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => {
    child.once('exit', (code, signal) => r({ code, signal }));
  });
  const spawnError = new Promise<Error>((r) => child.once('error', r));
  child.stdin.on('error', (err) => log.debug({ err: err.message }, 'pipe: agent stdin closed'));
  // The agent's stderr, line by line with a prefix.
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const l of lines) process.stderr.write(`[agent] ${l}\n`);
  });
  child.stderr.on('end', () => {
    if (pending) process.stderr.write(`[agent] ${pending}\n`);
  });

  let host: PipeHost | undefined;
  const shutdown = async (code: number) => {
    await host?.close().catch(() => {});
    await engine.close({ graceMs: SHUTDOWN_GRACE_MS }).catch(() => {});
    process.exit(code);
  };
  const killAgent = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(t);
  };
  process.on('SIGINT', () => void killAgent().then(() => shutdown(130)));
  process.on('SIGTERM', () => void killAgent().then(() => shutdown(143)));

  host = new PipeHost({
    session,
    policy,
    toAgent: child.stdin,
    fromAgent: child.stdout,
    handshakeTimeoutMs: opts.handshakeTimeout ?? 15_000,
    actionTimeoutMs: opts.actionTimeout,
    // After the browser dies: a new session (the engine launches a new browser) with the same policy.
    relaunch: async (dead) => {
      await engine.closeSession(dead.id).catch(() => {});
      return startSession();
    },
  });
  const started = await Promise.race([host.handshake(), spawnError]).catch((err: unknown) => err as Error);
  if (started instanceof Error) {
    const reason =
      started instanceof HandshakeError
        ? `handshake failed (${started.code}): ${started.message}`
        : `cannot start the agent "${argv[0]}": ${started.message}`;
    log.error({ reason }, 'pipe: handshake failed');
    process.stderr.write(`tabwright pipe: ${reason}\n`);
    await killAgent();
    await shutdown(1);
    return;
  }
  const { code, signal } = await exited;
  await Promise.race([host.done, new Promise((r) => setTimeout(r, 1_000))]);
  log.info({ code, signal }, 'pipe: agent exited');
  await shutdown(code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : 1));
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal];
}

/** The command as a path, or found on PATH; null when there is no such executable file. */
function findExecutable(cmd: string): string | null {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (cmd.includes('/')) {
    const p = isAbsolute(cmd) ? cmd : resolve(cmd);
    return ok(p) ? p : null;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && ok(join(dir, cmd))) return join(dir, cmd);
  }
  return null;
}

/** Our environment for the agent, without the Grid's credentials (they are the browser side's). */
function agentEnv(): NodeJS.ProcessEnv {
  const { TABWRIGHT_GRID_HEADER: _credentials, ...env } = process.env;
  return env;
}
