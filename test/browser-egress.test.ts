import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ProviderClient } from '../src/conformance/client.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { BIN, ROOT } from './helpers/provider.js';
import { netOf, STRACE_NET_ARGS } from './helpers/strace-net.js';

// "Calls no one", proved at the system-call level: a provider, its browser and every process they
// start are traced (strace -f: connect() and the sends, test/helpers/strace-net.ts), while a
// restricted session opens a corpus page full of cross-origin links, preconnect hints and
// third-party resources. A DNS query or a connection to anything but loopback is a browser calling
// home (or past the origin policy), and the failure names the host looked up (decoded from the
// query's bytes). Polling the socket tables (test/helpers/egress-monitor.ts) misses a DNS query
// that lives for a millisecond; this does not: tracing found Chromium resolving accounts.google.com
// and update.googleapis.com at every start (fixed in src/backends/chromium/flags.ts), and Firefox
// resolving update.googleapis.com (Widevine's update check, fixed in src/backends/firefox/prefs.ts).
// `npm test`'s setup installs strace (scripts/setup.mjs).

const straceWorks =
  spawnSync('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', '/dev/null', 'true']).status === 0;

/**
 * Lines of real traces (strace 6.1 on Debian 12, glibc 2.36 resolving made-up .invalid names):
 * glibc connects a UDP socket to the resolver and sends A and AAAA with one sendmmsg, whose
 * messages strace prints on the `resumed` half when another thread interrupts the call; over TCP
 * (`options use-vc`) it sends both with one writev, each after its two-byte length.
 */
const GLIBC_LINES = [
  '22064 connect(19<UDP:[106501]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("\\x31\\x30\\x2e\\x32\\x35\\x35\\x2e\\x32\\x35\\x35\\x2e\\x35\\x33")}, 16) = 0',
  '22064 sendmmsg(19<UDP:[192.0.2.2:49237->10.255.255.53:53]>,  <unfinished ...>',
  '22066 <... poll resumed>)               = 1 ([{fd=18, revents=POLLIN}])',
  '22064 <... sendmmsg resumed>[{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\\x4e\\x48\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x11\\x74\\x61\\x62\\x77\\x72\\x69\\x67\\x68\\x74\\x2d\\x70\\x72\\x6f\\x62\\x65\\x2d\\x36\\x07\\x69\\x6e\\x76\\x61\\x6c\\x69\\x64\\x00\\x00\\x01\\x00\\x01", iov_len=43}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=43}, {msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\\x23\\x49\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x11\\x74\\x61\\x62\\x77\\x72\\x69\\x67\\x68\\x74\\x2d\\x70\\x72\\x6f\\x62\\x65\\x2d\\x36\\x07\\x69\\x6e\\x76\\x61\\x6c\\x69\\x64\\x00\\x00\\x1c\\x00\\x01", iov_len=43}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=43}], 2, MSG_NOSIGNAL) = 2',
  '22070 connect(3<TCP:[21426]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("\\x31\\x30\\x2e\\x32\\x35\\x35\\x2e\\x32\\x35\\x35\\x2e\\x35\\x33")}, 16) = 0',
  '22070 writev(3<TCP:[192.0.2.2:38298->10.255.255.53:53]>, [{iov_base="\\x00\\x2d", iov_len=2}, {iov_base="\\x47\\xb9\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x13\\x74\\x61\\x62\\x77\\x72\\x69\\x67\\x68\\x74\\x2d\\x70\\x72\\x6f\\x62\\x65\\x2d\\x74\\x63\\x70\\x07\\x69\\x6e\\x76\\x61\\x6c\\x69\\x64\\x00\\x00\\x01\\x00\\x01", iov_len=45}, {iov_base="\\x00\\x2d", iov_len=2}, {iov_base="\\xed\\xb5\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x13\\x74\\x61\\x62\\x77\\x72\\x69\\x67\\x68\\x74\\x2d\\x70\\x72\\x6f\\x62\\x65\\x2d\\x74\\x63\\x70\\x07\\x69\\x6e\\x76\\x61\\x6c\\x69\\x64\\x00\\x00\\x1c\\x00\\x01", iov_len=45}], 4) = 94',
  // A loopback connect (127.0.0.1:8080), which is not egress.
  '22071 connect(5<TCP:[21500]>, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("\\x31\\x32\\x37\\x2e\\x30\\x2e\\x30\\x2e\\x31")}, 16) = -1 EINPROGRESS (Operation now in progress)',
];

test('the trace reader names the host of each DNS query (glibc over UDP and TCP, as strace prints it)', () => {
  const net = netOf(GLIBC_LINES.join('\n'));
  assert.deepEqual(net.outside, ['udp 10.255.255.53:53', 'tcp 10.255.255.53:53']);
  assert.deepEqual(net.dnsQuestions, [
    'tabwright-probe-6.invalid A',
    'tabwright-probe-6.invalid AAAA',
    'tabwright-probe-tcp.invalid A',
    'tabwright-probe-tcp.invalid AAAA',
  ]);
  assert.deepEqual([...net.loopbackPorts], [8080]);
});

/**
 * Whether Firefox has run its best-effort idle tasks (BrowserGlue, once the user has been idle for
 * 20 s: the GMP plugins' update check, remote settings, search checks). Some of them call home, and
 * only a browser that lives that long shows it (the Widevine check went to update.googleapis.com
 * only in the runs that a loaded machine made slow). The GMP check records
 * media.gmp-manager.lastCheck, which Firefox saves to the profile's prefs.js soon after.
 */
function firefoxIdleTasksRan(homeDir: string): boolean {
  // The launch record (src/engine/launch-records.ts) names the temporary profile.
  const run = join(homeDir, 'run');
  const profiles = readdirSync(run)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      try {
        return (JSON.parse(readFileSync(join(run, f), 'utf8')) as { temporary_profile?: string })
          .temporary_profile;
      } catch {
        return undefined;
      }
    });
  return profiles.some((p) => {
    try {
      return !!p && readFileSync(join(p, 'prefs.js'), 'utf8').includes('"media.gmp-manager.lastCheck"');
    } catch {
      return false;
    }
  });
}

let fx: FixtureServer;
const home = tempHome();
before(async () => {
  fx = await startFixtureServer();
});
after(async () => {
  await fx.close();
  home.cleanup();
});

describe('the browsers call no one (every connect() and send of the provider and its browser, traced)', {
  concurrency: true,
}, () => {
  for (const browser of ['chromium', 'firefox'] as const) {
    test(`${browser}: no DNS query and no connection beyond loopback`, async () => {
      assert.ok(
        straceWorks,
        'strace is missing or cannot trace here: `npm test` installs it (apt-get install strace)',
      );
      const trace = join(home.dir, `${browser}.trace`);
      const browserHome = join(home.dir, browser);
      const p = ProviderClient.spawn(
        [
          'strace',
          '-f',
          '-qq',
          '--seccomp-bpf',
          ...STRACE_NET_ARGS,
          '-o',
          trace,
          process.execPath,
          BIN,
          'provider',
          '--browser',
          browser,
        ],
        { env: { TABWRIGHT_HOME: browserHome, TABWRIGHT_LOG: 'warn' }, cwd: ROOT },
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
        // Text typed into a field: Chromium's spellchecker then downloads its dictionary from
        // redirector.gvt1.com (within about 4 s here) unless that name is kept from its resolver.
        await p.call('page.open', {
          session_id,
          url: `${fx.url}/fixtures/actions/form.html`,
          timeout_ms: 60_000,
        });
        await p.call('page.type', { session_id, selector: '#notes', text: 'Teh quick brwon fox' });
        await p.call('page.click', { session_id, selector: '#name' });
        if (browser === 'firefox') {
          const until = Date.now() + 120_000;
          while (!firefoxIdleTasksRan(browserHome) && Date.now() < until) {
            await new Promise((r) => setTimeout(r, 500));
          }
          assert.ok(
            firefoxIdleTasksRan(browserHome),
            "Firefox's best-effort idle tasks did not run within 120 s (no media.gmp-manager.lastCheck in the profile's prefs.js): the trace cannot show whether they call home",
          );
        }
        // Start-up services fire within seconds of the launch (and the idle tasks' fetches follow them).
        await new Promise((r) => setTimeout(r, 8000));
      } finally {
        await p.close();
      }
      const { outside, loopbackPorts, dnsQuestions, inetSends } = netOf(readFileSync(trace, 'utf8'));
      // So the test cannot pass by parsing nothing: the browser's connects to the fixture server are
      // seen, and the bytes of its sends are read.
      assert.ok(
        loopbackPorts.has(Number(new URL(fx.url).port)),
        `the trace's connects to the fixture server (${fx.url}) were not parsed: is strace's output format another?`,
      );
      const page = '/corpus/pages/lemonde-1/index.html';
      assert.ok(
        inetSends.some((b) => b.includes(page)),
        `no send of the trace carried the request for ${page}: are strace's strings (-xx) printed another way?`,
      );
      // Each DNS question is listed with the connects: its host tells which service called home.
      const counted = new Map<string, number>();
      for (const c of [...outside, ...dnsQuestions.map((q) => `dns query for ${q}`)]) {
        counted.set(c, (counted.get(c) ?? 0) + 1);
      }
      const hosts = [...new Set(dnsQuestions.map((q) => q.split(' ')[0]))];
      assert.deepEqual(
        [...counted].map(([c, n]) => `${c} ×${n}`),
        [],
        `${browser} connected beyond loopback or sent a DNS query${hosts.length ? ` (looked up: ${hosts.join(', ')})` : ''}`,
      );
    });
  }
});
