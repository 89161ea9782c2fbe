import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ProviderClient } from '../src/conformance/client.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { BIN, ROOT } from './helpers/provider.js';

// "Calls no one", proved at the system-call level: a provider, its browser and every process they
// start are traced (strace -f, connect() only), while a restricted session opens a corpus page full
// of cross-origin links, preconnect hints and third-party resources. A DNS query or a connection to
// anything but loopback is a browser calling home (or past the origin policy). Polling the socket
// tables (test/helpers/egress-monitor.ts) misses a DNS query that lives for a millisecond; this does
// not: tracing found Chromium resolving accounts.google.com and update.googleapis.com at every start
// (fixed in src/backends/chromium/flags.ts). `npm test`'s setup installs strace (scripts/setup.mjs).

/**
 * Route probes: a UDP socket connected to a public address to learn which local address would be
 * used (Chromium's IPv6 reachability check). Connecting a UDP socket sends no datagram.
 */
const ROUTE_PROBES = new Set(['udp 2001:4860:4860::8888:443', 'udp 8.8.8.8:443']);

/**
 * One connect() of `strace -yy`: the fd is printed with its protocol (`28<UDP:[…]>`), on the call's
 * line even when another thread splits it (`<unfinished ...>`, whose half keeps the address).
 */
const CONNECT =
  /^\d+\s+connect\(\d+<(TCP|TCPv6|UDP|UDPv6|[A-Z][\w-]*):[^>]*>, \{sa_family=(AF_INET6?), sin6?_port=htons\((\d+)\),.*?(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")/;

/**
 * The trace's inet connects: those beyond loopback (and every DNS query) as "tcp|udp address:port",
 * and the loopback ones by port, so a test can show the parser saw the connects it knows of.
 */
function connectsOf(trace: string): { outside: string[]; loopbackPorts: Set<number> } {
  const outside: string[] = [];
  const loopbackPorts = new Set<number>();
  for (const line of trace.split('\n')) {
    const c = CONNECT.exec(line);
    if (!c) continue;
    const address = c[4] ?? c[5] ?? '';
    const port = Number(c[3]);
    const loopback = address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
    // A DNS query is egress even to a loopback resolver (systemd-resolved): every URL here is an IP.
    if (loopback && port !== 53) {
      loopbackPorts.add(port);
      continue;
    }
    const entry = `${c[1]!.startsWith('UDP') ? 'udp' : c[1]!.startsWith('TCP') ? 'tcp' : c[1]} ${address}:${port}`;
    if (!ROUTE_PROBES.has(entry)) outside.push(entry);
  }
  return { outside, loopbackPorts };
}

const straceWorks =
  spawnSync('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', '/dev/null', 'true']).status === 0;

let fx: FixtureServer;
const home = tempHome();
before(async () => {
  fx = await startFixtureServer();
});
after(async () => {
  await fx.close();
  home.cleanup();
});

describe('the browsers call no one (every connect() of the provider and its browser, traced)', {
  concurrency: true,
}, () => {
  for (const browser of ['chromium', 'firefox'] as const) {
    test(`${browser}: no DNS query and no connection beyond loopback`, async () => {
      assert.ok(
        straceWorks,
        'strace is missing or cannot trace here: `npm test` installs it (apt-get install strace)',
      );
      const trace = join(home.dir, `${browser}.trace`);
      const p = ProviderClient.spawn(
        [
          'strace',
          '-f',
          '-qq',
          '--seccomp-bpf',
          '-yy',
          '-e',
          'trace=connect',
          '-o',
          trace,
          process.execPath,
          BIN,
          'provider',
          '--browser',
          browser,
        ],
        { env: { TABWRIGHT_HOME: join(home.dir, browser), TABWRIGHT_LOG: 'warn' }, cwd: ROOT },
      );
      try {
        const { session_id } = (await p.call('session.ensure', {
          timeout_ms: 60_000,
          allowed_origins: [fx.url],
          subresources: 'block',
        })) as { session_id: string };
        // A news front page: links to many hosts, preconnect and dns-prefetch hints, third-party scripts.
        await p.call('page.open', {
          session_id,
          url: `${fx.url}/corpus/pages/lemonde-1/index.html`,
          timeout_ms: 60_000,
        });
        await p.call('page.snapshot', { session_id });
        // Start-up services fire within seconds of the launch: give them time.
        await new Promise((r) => setTimeout(r, 3000));
      } finally {
        await p.close();
      }
      const { outside, loopbackPorts } = connectsOf(readFileSync(trace, 'utf8'));
      // So the test cannot pass by parsing nothing: the browser's connects to the fixture server are seen.
      assert.ok(
        loopbackPorts.has(Number(new URL(fx.url).port)),
        `the trace's connects to the fixture server (${fx.url}) were not parsed: is strace's output format another?`,
      );
      const counted = new Map<string, number>();
      for (const c of outside) counted.set(c, (counted.get(c) ?? 0) + 1);
      assert.deepEqual(
        [...counted].map(([c, n]) => `${c} ×${n}`),
        [],
        `${browser} connected beyond loopback or sent a DNS query`,
      );
    });
  }
});
