import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../backends/process-tree.js';
import { codeStamp, type DaemonPaths, daemonPaths } from '../doors/js/paths.js';
import {
  type DaemonStatus,
  DEFAULT_SNIPPET_TIMEOUT_MS,
  MAX_SNIPPET_TIMEOUT_MS,
} from '../doors/js/protocol.js';
import { ping, request } from '../doors/js/socket-client.js';
import { VERSION } from '../version.js';
import { daemonEnv } from './malloc-env.js';

const HELP = `Usage: tabwright js [options] [CODE]
Runs JavaScript in a persistent daemon with the Browser / Page / Locator API (docs/js-harness.md).

  tabwright js <<'EOF'            code from a quoted heredoc (or any stdin)
  tabwright js -e 'CODE'          code from the argument
  tabwright js 'CODE'             the same

A single expression returns its value; longer snippets use \`return\`. Top-level await works.
State kept across calls lives on globalThis. A string prints raw, other values as JSON,
undefined prints nothing; console.* goes to the daemon log (--logs).

Options:
  -e, --eval CODE     the code to run
  --name NAME         which daemon (default "default", or $TABWRIGHT_JS_NAME)
  --timeout MS        deadline of the whole snippet (default 60000, max 600000)
  --version           version of the CLI on disk
  --status            daemon health: version, pid, uptime, browsers, pages; says when it is stale
  --start             start the daemon if needed
  --stop              stop the daemon
  --restart           stop the daemon, confirm it exited, start a new one (globals and pages are gone)
  --logs [--lines N]  print the end of the daemon log (default 200 lines)
  --allow-file-urls   start the daemon with file: URLs allowed (off: refused); a daemon already
                      running without it is not changed: restart it with this flag
  --grid URL          start the daemon with its sessions on this Selenium Grid (TABWRIGHT_GRID_URL);
                      a daemon already running is not changed: restart it with this flag
  -h, --help          this help
`;

interface Args {
  code?: string;
  name: string;
  timeoutMs: number;
  action: 'run' | 'version' | 'status' | 'start' | 'stop' | 'restart' | 'logs' | 'help';
  lines: number;
  allowFileUrls: boolean;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    name: process.env.TABWRIGHT_JS_NAME || 'default',
    timeoutMs: DEFAULT_SNIPPET_TIMEOUT_MS,
    action: 'run',
    lines: 200,
    allowFileUrls: false,
  };
  const positional: string[] = [];
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (positional.length > 0) {
      positional.push(arg);
      continue;
    }
    switch (arg) {
      case '-e':
      case '--eval':
        a.code = value(i, arg);
        i++;
        break;
      case '--name':
        a.name = value(i, arg);
        i++;
        break;
      case '--timeout': {
        const n = Number(value(i, arg));
        if (!Number.isFinite(n) || n <= 0 || n > MAX_SNIPPET_TIMEOUT_MS)
          throw new UsageError(`--timeout must be a number of ms from 1 to ${MAX_SNIPPET_TIMEOUT_MS}`);
        a.timeoutMs = n;
        i++;
        break;
      }
      case '--lines': {
        a.lines = Math.max(1, Number(value(i, arg)) || 200);
        i++;
        break;
      }
      case '-V':
      case '--version':
        a.action = 'version';
        break;
      case '--status':
        a.action = 'status';
        break;
      case '--start':
        a.action = 'start';
        break;
      case '--stop':
        a.action = 'stop';
        break;
      case '--restart':
        a.action = 'restart';
        break;
      case '--logs':
        a.action = 'logs';
        break;
      case '--allow-file-urls':
        a.allowFileUrls = true;
        break;
      case '--grid':
        // The daemon inherits it (TABWRIGHT_GRID_URL, docs/scale-out.md).
        process.env.TABWRIGHT_GRID_URL = value(i, arg);
        i++;
        break;
      case '-h':
      case '--help':
        a.action = 'help';
        break;
      case '--':
        positional.push(...argv.slice(i + 1));
        i = argv.length;
        break;
      default:
        if (arg.startsWith('--') || (arg.startsWith('-') && arg.length === 2))
          throw new UsageError(`unknown option ${arg}`);
        positional.push(arg);
    }
  }
  if (positional.length) {
    if (a.code !== undefined) throw new UsageError('pass the code once: -e CODE or a positional argument');
    a.code = positional.join(' ');
  }
  return a;
}

function out(s: string): void {
  process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
}

function err(s: string): void {
  process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function daemonEntry(): { args: string[] } {
  const js = fileURLToPath(new URL('./js-daemon-main.js', import.meta.url));
  if (existsSync(js)) return { args: [js] };
  // Running from sources (tsx): the .ts entry through tsx.
  const ts = fileURLToPath(new URL('./js-daemon-main.ts', import.meta.url));
  return { args: ['--import', 'tsx', ts] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function logTail(paths: DaemonPaths, lines: number): string {
  if (!existsSync(paths.log)) return '';
  const size = statSync(paths.log).size;
  const text = readFileSync(paths.log, 'utf8').slice(Math.max(0, size - 256 * 1024));
  return text
    .split('\n')
    .slice(-lines - 1)
    .join('\n');
}

/** Starts the daemon unless one answers; returns its pid. The engine options are the new daemon's. */
async function ensureDaemon(paths: DaemonPaths, allowFileUrls = false): Promise<number> {
  const pid = await ping(paths.socket);
  if (pid) return pid;
  const logFd = openSync(paths.log, 'a', 0o600);
  const flags = allowFileUrls ? ['--allow-file-urls'] : [];
  const child = spawn(process.execPath, [...daemonEntry().args, '--name', paths.name, ...flags], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: daemonEnv(),
  });
  closeSync(logFd);
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? 1;
  });
  child.unref();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const p = await ping(paths.socket, 500);
    if (p) return p;
    if (exited !== null) {
      // It may have exited because another daemon won the race for the socket.
      const other = await ping(paths.socket, 500);
      if (other) return other;
      throw new Error(
        `the daemon exited during start-up (code ${exited}); see ${paths.log}:\n${logTail(paths, 20)}`,
      );
    }
    await sleep(50);
  }
  throw new Error(`the daemon did not answer within 30 s; see ${paths.log}`);
}

/** Asks the daemon to stop and confirms the process exited (TERM, then KILL, if it hangs). */
async function stopDaemon(paths: DaemonPaths): Promise<{ stopped: boolean; pid?: number }> {
  let pid = await ping(paths.socket);
  if (!pid && existsSync(paths.pid)) {
    const p = Number(readFileSync(paths.pid, 'utf8').trim());
    if (Number.isInteger(p) && p > 0 && isAlive(p)) pid = p;
  }
  if (!pid) return { stopped: false };
  await request(paths.socket, { op: 'stop' }, 2000).catch(() => {});
  const waitExit = async (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (!isAlive(pid!)) return true;
      await sleep(50);
    }
    return !isAlive(pid!);
  };
  if (!(await waitExit(5000))) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {}
    if (!(await waitExit(2000))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
      if (!(await waitExit(2000))) throw new Error(`the old daemon (pid ${pid}) would not exit`);
    }
  }
  return { stopped: true, pid };
}

async function status(paths: DaemonPaths): Promise<DaemonStatus | null> {
  if (!(await ping(paths.socket))) return null;
  const res = await request(paths.socket, { op: 'status' }, 5000);
  return res.ok && res.op === 'status' ? res.status : null;
}

function statusReport(s: DaemonStatus): Record<string, unknown> {
  const disk = codeStamp(VERSION);
  const stale = s.codeStamp !== disk;
  const report: Record<string, unknown> = { ok: true, running: true, ...s, cliVersion: VERSION, stale };
  if (stale)
    report.note = `the daemon runs older code than this CLI (daemon ${s.codeStamp}, on disk ${disk}); run \`tabwright js --restart\`, then connect and attach again`;
  return report;
}

/** --allow-file-urls against a daemon started without it: say so, never run as if it were allowed. */
async function assertFileUrlsAsAsked(paths: DaemonPaths, asked: boolean): Promise<void> {
  if (!asked) return;
  const s = await status(paths);
  if (s && s.allowFileUrls !== true) {
    throw new Error(
      `the running daemon "${paths.name}" refuses file: URLs (it was started without --allow-file-urls); run \`tabwright js --restart --allow-file-urls\`, then run the snippet again`,
    );
  }
}

/** `tabwright js …`: returns the exit code. */
export async function runJsCli(argv: string[]): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    err(`tabwright js: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.action === 'help') {
    out(HELP);
    return 0;
  }
  if (args.action === 'version') {
    out(VERSION);
    return 0;
  }
  let paths: DaemonPaths;
  try {
    paths = daemonPaths(args.name);
  } catch (e) {
    err(`tabwright js: ${(e as Error).message}`);
    return 2;
  }
  try {
    switch (args.action) {
      case 'status': {
        const s = await status(paths);
        if (!s) {
          out(JSON.stringify({ ok: false, running: false, name: paths.name, socket: paths.socket }));
          return 1;
        }
        const report = statusReport(s);
        out(JSON.stringify(report));
        if (report.note) err(`tabwright js: ${report.note}`);
        return 0;
      }
      case 'start': {
        await ensureDaemon(paths, args.allowFileUrls);
        await assertFileUrlsAsAsked(paths, args.allowFileUrls);
        const s = await status(paths);
        out(JSON.stringify(s ? statusReport(s) : { ok: false }));
        return s ? 0 : 1;
      }
      case 'stop': {
        const r = await stopDaemon(paths);
        out(
          JSON.stringify(
            r.stopped
              ? { ok: true, stopped: true, pid: r.pid }
              : { ok: true, stopped: false, note: 'not running' },
          ),
        );
        return 0;
      }
      case 'restart': {
        const r = await stopDaemon(paths);
        await ensureDaemon(paths, args.allowFileUrls);
        const s = await status(paths);
        if (!s) throw new Error('the new daemon did not answer');
        out(JSON.stringify({ ...statusReport(s), restarted: true, previousPid: r.pid ?? null }));
        return 0;
      }
      case 'logs': {
        const text = logTail(paths, args.lines);
        if (text) out(text);
        return 0;
      }
      default:
        break;
    }
    let code = args.code;
    if (code === undefined) {
      if (process.stdin.isTTY) {
        err(`tabwright js: no code given.\n\n${HELP}`);
        return 2;
      }
      code = await readStdin();
    }
    await ensureDaemon(paths, args.allowFileUrls);
    await assertFileUrlsAsAsked(paths, args.allowFileUrls);
    // The daemon enforces the deadline; the CLI waits a little longer in case the daemon itself is wedged.
    const res = await request(
      paths.socket,
      { op: 'eval', code, timeoutMs: args.timeoutMs },
      args.timeoutMs + 10_000,
    ).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ETIMEDOUT') {
        throw new Error(
          `the daemon did not answer within ${args.timeoutMs + 10_000} ms; it may be wedged: run \`tabwright js --restart\``,
        );
      }
      throw e;
    });
    if (res.ok && res.op === 'eval') {
      if (res.output !== null) out(res.output);
      return 0;
    }
    if ('timedOut' in res) {
      err(
        `tabwright js: the snippet did not finish within ${res.timeoutMs} ms and was abandoned; its pending browser calls were cancelled (input already sent cannot be taken back: check the page before repeating). Allow more time with --timeout.`,
      );
      return 1;
    }
    const e = 'error' in res ? res.error : { name: 'Error', message: 'unknown failure' };
    let text = e.stack?.includes(e.message)
      ? e.stack
      : `${e.name}: ${e.message}${e.stack ? `\n${e.stack}` : ''}`;
    if (e.code) text = `[${e.code}] ${text}`;
    if (e.details !== undefined) text += `\ndetails: ${JSON.stringify(e.details)}`;
    err(text);
    return 1;
  } catch (e) {
    err(`tabwright js: ${(e as Error).message}`);
    return 1;
  }
}
