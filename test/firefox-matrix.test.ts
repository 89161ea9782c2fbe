import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { formatReport } from '../src/conformance/report.js';
import { runSuite } from '../src/conformance/runner.js';
import type { Engine, Page } from '../src/index.js';
import { EgressMonitor } from './helpers/egress-monitor.js';
import { newEngine, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { BIN } from './helpers/provider.js';
import { compareKeys, equivalencePages, keysOf } from './helpers/snapshot-equivalence.js';

// The browser matrix of `npm test` (issue 21): Firefox over WebDriver BiDi, with representative
// suites chosen to stay inside the suite's time budget (docs/ARCHITECTURE.md, "Firefox"):
//  - conformance: our provider with --browser firefox comes out Certified (one run: the Chromium suite's three runs cover id reuse);
//  - the door suites that matter, rerun with TABWRIGHT_BROWSER=firefox in one child test runner:
//    the TodoMVC flows, the origin-policy attack fixtures, the secret canaries of the provider door;
//  - snapshot equivalence: Firefox's interactive nodes equal Chromium's on the fixture and corpus pages;
//  - no socket of any process this file starts (Firefox included) reaches beyond 127.0.0.1.
// Run `npm run -s build` first (the provider and door suites spawn the built CLI).

/** The door suites rerun on Firefox, and which of their tests (node's --test-name-pattern). */
const SUITES = ['test/todomvc.test.ts', 'test/policy.test.ts', 'test/equivalence-secrets.test.ts'];
const PATTERNS = [
  // todomvc.test.ts: the whole flow, for each of the three apps.
  'add, complete, edit, filter and clear',
  // policy.test.ts: the attacks (redirect hops, script and meta navigations, popups, frames, forms,
  // subresources, WebSockets).
  'direct navigation to a disallowed origin',
  'a 302 to a disallowed origin',
  'redirect chain that leaves',
  'script navigation',
  'meta refresh',
  'popup to a disallowed origin',
  'form POST to a disallowed origin',
  'disallowed iframe document',
  'iframe redirected',
  'subresources from other origins are blocked',
  'WebSockets: only allowed origins',
  // equivalence-secrets.test.ts: the canaries through jcode's provider door.
  'provider door \\(jcode',
];

const egress = new EgressMonitor();
let server: FixtureServer;
let chromium: Engine;
let firefox: Engine;
const home = tempHome();

before(async () => {
  egress.start();
  server = await startFixtureServer();
  chromium = newEngine(home.dir, { browser: 'chromium' });
  firefox = newEngine(home.dir, { browser: 'firefox' });
});

after(async () => {
  await Promise.all([chromium.close(), firefox.close()]);
  await server.close();
  home.cleanup();
});

function runChild(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    // Without NODE_TEST_CONTEXT the child is a test runner of its own (TAP), not a file of this one.
    const { NODE_TEST_CONTEXT: _, ...parentEnv } = process.env;
    const child = spawn(process.execPath, args, {
      env: { ...parentEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

/**
 * Each failing test of a TAP report with its YAML block (the error and where), innermost first and
 * each cut to 1,500 characters, so a CI log that keeps only the start of a message still shows why.
 */
function failureBlocks(tap: string): string {
  const lines = tap.split('\n');
  const blocks: string[] = [];
  lines.forEach((line, i) => {
    if (!/^\s*not ok/.test(line)) return;
    // Its YAML block ends at the next `...`; a test without one ends at the next test line.
    const end = lines.findIndex((l, j) => j > i && /^\s*(\.\.\.\s*$|ok |not ok )/.test(l));
    blocks.push(
      lines
        .slice(i, end === -1 ? i + 1 : end)
        .join('\n')
        .slice(0, 1500),
    );
  });
  // Subtests are reported before their parents: the innermost (the useful) failure comes first.
  return blocks.join('\n');
}

// First and alone: the provider's first session launches Firefox within the engine's default deadline.
describe('Firefox conformance', () => {
  test('conformance: tabwright provider --browser firefox is Certified', async () => {
    const h = tempHome();
    try {
      const res = await runSuite({
        command: [process.execPath, BIN, 'provider', '--browser', 'firefox'],
        runs: 1,
        env: { TABWRIGHT_HOME: h.dir, TABWRIGHT_LOG: 'warn' },
      });
      assert.equal(res.tier, 'Certified', formatReport(res));
      assert.ok(res.results.every((x) => x.ok));
    } finally {
      h.cleanup();
    }
  });
});

// The door suites (a child runner) and the snapshot comparison run side by side.
describe('Firefox (WebDriver BiDi)', { concurrency: true }, () => {
  test('the door suites that matter pass on Firefox (TodoMVC, attack fixtures, secret canaries)', async () => {
    const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=tap'];
    for (const p of PATTERNS) args.push(`--test-name-pattern=${p}`);
    const r = await runChild([...args, ...SUITES], { TABWRIGHT_BROWSER: 'firefox', TABWRIGHT_LOG: 'warn' });
    assert.equal(r.code, 0, `failing on Firefox:\n${failureBlocks(r.out)}\n\n${r.out.slice(-3000)}`);
    // The patterns chose tests: make sure they did not choose none.
    const passed = Number(/^# pass (\d+)/m.exec(r.out)?.[1] ?? 0);
    assert.ok(passed >= 3 + 12 + 1, `only ${passed} tests ran:\n${r.out.slice(0, 3000)}`);
  });

  test('snapshots: interactive nodes (role, name, state) of Firefox equal Chromium’s on ≥ 95 % of nodes', async () => {
    const policy = { allowed_origins: [server.url], subresources: 'block' as const };
    const [cs, fs] = await Promise.all([
      chromium.startSession({ policy }, { timeoutMs: 60_000 }),
      firefox.startSession({ policy }, { timeoutMs: 60_000 }),
    ]);
    const tabs = async (s: typeof cs) => [s.page(), await s.newPage()];
    const [cTabs, fTabs] = await Promise.all([tabs(cs), tabs(fs)]);
    // Every fourth corpus page (17 of 66) with all fixture pages; `npm run bench:snapshot -- --browser
    // firefox` compares every page (docs/benchmarks.md).
    const queue = equivalencePages(4);
    let matched = 0;
    let total = 0;
    const worst: string[] = [];
    const worker = async (c: Page, f: Page) => {
      for (let path = queue.shift(); path; path = queue.shift()) {
        const url = `${server.url}${path}`;
        const [a, b] = await Promise.all([keysOf(c, url), keysOf(f, url)]);
        const cmp = compareKeys(a, b);
        matched += cmp.matched;
        total += cmp.total;
        if (cmp.total && cmp.matched / cmp.total < 0.95)
          worst.push(
            `${path}: ${cmp.matched}/${cmp.total}; Chromium only ${cmp.onlyA.slice(0, 3).join(' | ')}; Firefox only ${cmp.onlyB.slice(0, 3).join(' | ')}`,
          );
      }
    };
    await Promise.all(cTabs.map((c, i) => worker(c, fTabs[i]!)));
    const share = matched / total;
    assert.ok(total > 300, `compared only ${total} nodes`);
    assert.ok(
      share >= 0.95,
      `${(share * 100).toFixed(1)} % of ${total} nodes equal; below 95 %:\n${worst.join('\n')}`,
    );
  });
});

describe('Firefox calls no one', () => {
  test('no socket of this file’s processes (browsers included) reached beyond 127.0.0.1', () => {
    egress.stop();
    const firefoxes = [...egress.processes.values()].filter((c) => /firefox/.test(c));
    assert.ok(firefoxes.length > 0, 'no Firefox process was watched');
    assert.ok(egress.loopback.size > 0, 'no loopback connection was matched: the socket lookup sees nothing');
    assert.deepEqual(
      [...egress.seen].map((address) => `${address} by ${egress.seenBy.get(address)}`),
      [],
    );
  });
});
