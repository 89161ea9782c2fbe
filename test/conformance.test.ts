import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { formatReport } from '../src/conformance/report.js';
import { runSuite, type ScenarioSummary, tierOf } from '../src/conformance/runner.js';
import { tempHome } from './helpers/engine.js';
import { BIN, ROOT } from './helpers/provider.js';

const EXAMPLE = [process.execPath, `${ROOT}/examples/incomplete-provider.mjs`];

describe('conformance suite', () => {
  it('certifies our provider, three runs in a row', async () => {
    const home = tempHome();
    try {
      const res = await runSuite({
        command: [process.execPath, BIN, 'provider'],
        runs: 3,
        env: { TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'warn' },
      });
      assert.equal(res.tier, 'Certified', formatReport(res));
      // Each scenario ran in every run, but the capability check (the same in every run) ran once.
      const once = res.summary.filter((x) => x.runs === 1).map((x) => x.id);
      assert.deepEqual(once, ['cert.capabilities_work']);
      assert.equal(res.results.length, 3 * res.summary.length - 2);
      assert.deepEqual(res.to_fix, []);
      assert.ok(res.results.every((r) => r.ok));
      assert.equal(res.provider.id, 'tabwright');
    } finally {
      home.cleanup();
    }
  });

  it('the honest but incomplete example provider is Compatible and the report names what is missing', async () => {
    const res = await runSuite({ command: EXAMPLE, runs: 2, restart: true });
    assert.equal(res.tier, 'Compatible');
    const failing = res.summary.filter((s) => !s.ok).map((s) => s.id);
    for (const id of [
      'core.page_snapshot',
      'core.page_click',
      'core.page_type',
      'core.page_screenshot',
      'cert.stale_ref',
    ])
      assert.ok(failing.includes(id), id);
    for (const id of [
      'core.describe',
      'core.status',
      'core.session_ensure',
      'core.page_open',
      'core.session_close',
      'cert.bad_input',
      'cert.describe_honest',
    ])
      assert.ok(!failing.includes(id), id);
    assert.ok(res.missing.some((m) => m.includes('page.screenshot is not implemented')));
    assert.ok(
      res.missing.some((m) => m.includes('was handed out in an earlier run')),
      'ids recycled across restarts',
    );
    // A Compatible provider gets a list of what to fix: each failing scenario, its reason and the remedy.
    assert.deepEqual(
      res.to_fix.map((f) => f.scenario),
      res.summary.filter((x) => !x.ok).map((x) => x.id),
    );
    const shot = res.to_fix.find((f) => f.scenario === 'core.page_screenshot')!;
    assert.match(shot.reason, /page\.screenshot is not implemented/);
    assert.match(shot.fix, /base64 PNG or JPEG/);
    const text = formatReport(res);
    assert.match(text, /to fix \(\d+\)\n {2}1\. cert\.fresh_ids: Never hand out/);
    assert.match(text, /\n {2}\d+\. core\.page_snapshot: page\.snapshot must return/);
    assert.match(text, /tier {7}Compatible/);
    assert.match(text, /FAIL 0\/2/);
  });

  it('a provider that lists methods it does not implement is Experimental', async () => {
    const res = await runSuite({ command: [...EXAMPLE, '--lie'], runs: 1 });
    assert.equal(res.tier, 'Experimental');
    assert.ok(res.missing.some((m) => m.includes('listed but unsupported_method: page.click')));
  });

  it('a provider that exits at once fails every scenario with the reason', async () => {
    const res = await runSuite({
      command: [process.execPath, '-e', 'process.exit(3)'],
      runs: 1,
      timeoutMs: 3000,
    });
    assert.equal(res.tier, 'Experimental');
    assert.ok(res.summary.every((s) => !s.ok));
  });

  it('tiers: a scenario passing only in some runs is flaky and keeps a provider from Certified', () => {
    const s = (id: string, passed: number): ScenarioSummary => ({
      id,
      title: id,
      kind: 'core',
      passed,
      runs: 3,
      ok: passed === 3,
      flaky: passed > 0 && passed < 3,
      avg_ms: 1,
    });
    const ids = [
      'core.describe',
      'core.status',
      'core.session_ensure',
      'core.page_open',
      'core.session_close',
      'cert.describe_honest',
    ];
    assert.equal(tierOf(ids.map((id) => s(id, 3))).tier, 'Certified');
    const flaky = tierOf([...ids.map((id) => s(id, 3)), s('core.page_click', 2)]);
    assert.equal(flaky.tier, 'Compatible');
    assert.match(flaky.missing[0]!, /passed only 2 of 3 runs/);
    assert.equal(tierOf([s('core.describe', 3), s('core.page_open', 0)]).tier, 'Experimental');
  });

  it('CLI: `tabwright conformance --json` exits 1 for the example provider', () => {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'conformance',
        '--provider',
        `"${process.execPath}" examples/incomplete-provider.mjs`,
        '--runs',
        '1',
        '--json',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 1, r.stderr);
    const res = JSON.parse(r.stdout);
    assert.equal(res.tier, 'Compatible');
    // --json carries each scenario's evidence: the requests and the start of each reply.
    const describe = res.results.find((x: { id: string }) => x.id === 'core.describe');
    assert.match(describe.evidence[0].request, /"method":"provider\.describe"/);
    assert.match(describe.evidence[0].reply, /"ok":true/);
    assert.ok(res.to_fix.length > 0);
    assert.match(r.stderr, /\[ ?1\/19\] run 1 {2}pass {2}core\.describe/);
  });
});
