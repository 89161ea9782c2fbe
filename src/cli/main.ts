import { Command, InvalidArgumentError } from 'commander';
import { VERSION } from '../version.js';
import { exportGridOptions, withGridOptions } from './grid-options.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be an integer of at least 1');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be an integer of at least 0');
  return n;
}

const program = new Command()
  .name('tabwright')
  .description('Browser-control engine for AI agents: one engine, many protocol doors.')
  .version(VERSION)
  .hook('preAction', (_program, action) => exportGridOptions(action.opts()));

withGridOptions(program.command('serve'))
  .description('serve the HTTP command API (deepseek-browser-use compatible) on loopback')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0 = any free port)', port, 10049)
  .option(
    '--browser <family>',
    'browser family: chromium or firefox (default: $TABWRIGHT_BROWSER, else chromium)',
  )
  .option('--headed', 'show browser windows instead of running headless')
  .option(
    '--token <token>',
    'bearer token clients must send (Authorization: Bearer …); required for a non-loopback --host (default: $TABWRIGHT_TOKEN)',
  )
  .option(
    '--allow-origin <origin...>',
    'only these origins (e.g. https://example.com) for every task and /mcp session; start may narrow, never widen',
  )
  .option(
    '--allow-file-urls',
    'let the agent open and fetch file: URLs (off: refused, local files stay local)',
  )
  .option(
    '--max-sessions <n>',
    'refuse a new session (retryable) while this many are open (default: $TABWRIGHT_MAX_SESSIONS, no limit)',
    positiveInt,
  )
  .option(
    '--min-free-mb <mib>',
    'refuse a new session (retryable) while the machine has less memory available (default: $TABWRIGHT_MIN_FREE_MB, 256; 0 = never)',
    nonNegativeInt,
  )
  .action(async (opts: Parameters<typeof import('./serve.js').runServe>[0]) => {
    const { runServe } = await import('./serve.js');
    await runServe(opts);
  });

withGridOptions(program.command('mcp'))
  .description('serve MCP on stdio for one client (Claude Code, Cursor, VS Code, …)')
  .option(
    '--tools <set>',
    '"all", "core" (ten everyday tools), or a comma-separated list of tool names',
    'all',
  )
  .option('--allow-origin <origin...>', 'only these origins (e.g. https://example.com); others are blocked')
  .option('--upload-dir <dir...>', 'directories upload may take files from (default: cwd and the temp dir)')
  .option(
    '--browser <family>',
    'browser family: chromium or firefox (default: $TABWRIGHT_BROWSER, else chromium)',
  )
  .option('--headed', 'show browser windows instead of running headless')
  .option(
    '--allow-file-urls',
    'let the agent open and fetch file: URLs (off: refused, local files stay local)',
  )
  .action(async (opts: Parameters<typeof import('./mcp.js').runMcp>[0]) => {
    const { runMcp } = await import('./mcp.js');
    await runMcp(opts);
  });

withGridOptions(program.command('provider'))
  .description('serve the Browser Provider Protocol v0.1 (JSON lines on stdio, or --socket PATH)')
  .option(
    '--browser <family>',
    'browser family: chromium or firefox (default: $TABWRIGHT_BROWSER, else chromium)',
  )
  .option('--headed', 'show browser windows instead of running headless')
  .option('--profile-root <dir>', 'where persistent profiles, downloads and screenshot files live')
  .option('--allow-raw-cdp', 'offer cdp.send (experimental, raw Chrome DevTools Protocol)')
  .option('--socket <path>', 'serve on this Unix domain socket (mode 0600, several clients) instead of stdio')
  .option(
    '--allow-file-urls',
    'let the agent open and fetch file: URLs (off: refused, local files stay local)',
  )
  .action(async (opts) => {
    const { runProvider } = await import('./provider.js');
    await runProvider(opts);
  });

withGridOptions(program.command('pipe'))
  .description('the browser side of the sgClaw JSON-Lines pipe: spawn an agent and serve its signed commands')
  .requiredOption('--agent <command>', 'agent command line (no shell; its stdin/stdout carry the protocol)')
  .option('--rules <file>', 'MAC policy rules.json (default: loopback hosts only, all 14 actions)')
  .option(
    '--browser <family>',
    'browser family: chromium or firefox (default: $TABWRIGHT_BROWSER, else chromium)',
  )
  .option('--headed', 'show browser windows instead of running headless')
  .option(
    '--handshake-timeout <ms>',
    'how long to wait for init_ack after spawning the agent',
    Number,
    15_000,
  )
  .option('--action-timeout <ms>', 'engine deadline of one command', Number, 25_000)
  .option('--allow-file-urls', 'accepted for symmetry: the pipe protocol only carries http(s) URLs')
  .action(async (opts: Parameters<typeof import('./pipe.js').runPipe>[0]) => {
    const { runPipe } = await import('./pipe.js');
    await runPipe(opts);
  });

program
  .command('conformance')
  .description('certify a Browser Provider Protocol provider (default: our own) on its own test pages')
  .option('--provider <command>', 'the provider command line (stdio); default: tabwright provider')
  .option('--runs <n>', 'repeated runs (identifiers and results must hold in every run)', (v) => Number(v), 3)
  .option('--timeout-ms <ms>', 'per-request timeout', (v) => Number(v), 30_000)
  .option('--restart', 'start a new provider process for every run')
  .option('--json', 'print the result as JSON (progress still goes to stderr)')
  .action(async (opts) => {
    const { runConformance } = await import('./conformance.js');
    process.exitCode = await runConformance(opts);
  });

withGridOptions(program.command('doctor'))
  .description('report browsers, versions, the profile root and writable directories')
  .option('--json', 'print JSON instead of text')
  .action(async (opts: { json?: boolean }) => {
    const { runDoctor } = await import('./doctor.js');
    process.exitCode = await runDoctor(opts);
  });

program
  .command('js')
  .description('run JavaScript in a persistent daemon with a guarded Browser / Page / Locator API')
  .helpOption(false)
  .allowUnknownOption()
  .allowExcessArguments()
  .argument('[args...]');

if (process.argv[2] === 'js') {
  // The JS harness parses its own argv (-e CODE, heredocs on stdin, --status …): commander must not touch it.
  const { runJsCli } = await import('./js.js');
  process.exitCode = await runJsCli(process.argv.slice(3));
} else {
  program.parseAsync(process.argv).catch((err: unknown) => {
    process.stderr.write(`tabwright: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
