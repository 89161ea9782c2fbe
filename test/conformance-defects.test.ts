import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatReport } from '../src/conformance/report.js';
import { runSuite, type SuiteResult } from '../src/conformance/runner.js';
import { capabilitiesScenario, SCENARIOS, type Scenario } from '../src/conformance/scenarios.js';
import { tempHome } from './helpers/engine.js';
import { BIN, ROOT, waitForSocket } from './helpers/provider.js';

// The suite against deliberately broken providers: a relay (test/fixtures/conformance-relay.mjs) in
// front of one real `tabwright provider --socket` injects one defect per mode. Each must keep the
// provider from Certified, for the right reason, with evidence and a what-to-fix entry. The same
// relay without a defect is Certified, so the refusals come from the defects, not from the relay.

const RELAY = fileURLToPath(new URL('./fixtures/conformance-relay.mjs', import.meta.url));
const home = tempHome();
const sock = join(home.dir, 'provider.sock');
let provider: ChildProcess;

before(async () => {
  provider = spawn(process.execPath, [BIN, 'provider', '--socket', sock], {
    cwd: ROOT,
    env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForSocket(sock);
});
after(async () => {
  provider.kill('SIGTERM');
  await new Promise((r) => provider.once('exit', r));
  home.cleanup();
});

/** The scenarios with these ids, in the suite's order (what each defect needs, not a full run). */
const only = (...ids: string[]) => SCENARIOS.filter((s) => ids.includes(s.id));
const SETUP = ['core.describe', 'core.session_ensure', 'core.page_open'];

async function through(mode: string, ids: string[], extra: Scenario[] = []): Promise<SuiteResult> {
  return runSuite({
    command: [process.execPath, RELAY, sock, mode],
    runs: 1,
    timeoutMs: 15_000,
    scenarios: [...only(...SETUP, ...ids), ...extra],
  });
}

/** The run is not Certified, `id` failed for `reason`, with evidence, and the fix list names it. */
function refused(res: SuiteResult, id: string, reason: RegExp): void {
  const report = formatReport(res);
  assert.notEqual(res.tier, 'Certified', report);
  const failed = res.results.find((r) => r.id === id && !r.ok);
  assert.ok(failed, `${id} should fail:\n${report}`);
  assert.match(failed.reason ?? '', reason, report);
  assert.ok(failed.evidence.length > 0, 'the failure comes with its requests and replies');
  const fix = res.to_fix.find((f) => f.scenario === id);
  assert.ok(fix && fix.fix.length > 20 && fix.reason === failed.reason, 'the fix list names it');
  assert.match(report, new RegExp(`to fix \\(\\d+\\)\\n(.|\\n)*${id.replace('.', '\\.')}: `));
}

describe('conformance: a relay with one injected defect is never Certified', () => {
  it('the relay without a defect is Certified (the scenarios the defects use)', async () => {
    const res = await through(
      'none',
      [
        'core.page_snapshot',
        'core.page_screenshot',
        'cert.stale_ref',
        'cert.refs_follow_elements',
        'cert.id_echo',
        'cert.envelopes',
      ],
      [capabilitiesScenario(['file_upload', 'upload.set_files'])],
    );
    assert.equal(res.tier, 'Certified', formatReport(res));
    assert.deepEqual(res.to_fix, []);
    // Evidence is recorded for passing scenarios too: the request and the start of its reply.
    const shot = res.results.find((r) => r.id === 'core.page_screenshot')!;
    assert.ok(
      shot.evidence.some((e) => e.request.includes('"page.screenshot"') && e.reply?.includes('"ok":true')),
    );
    assert.ok(shot.evidence.every((e) => e.request.length <= 601 && (e.reply ?? '').length <= 601));
  });

  it('recycled refs (renumbered from r1 on every snapshot): re-aimed refs are caught', async () => {
    const res = await through('recycled_refs', ['cert.stale_ref', 'cert.refs_follow_elements']);
    refused(res, 'cert.refs_follow_elements', /re-issued for another element|clicked another element/);
    refused(res, 'cert.stale_ref', /removed element succeeded|old ref|previous document/);
  });

  it('lying describe (file_upload listed, upload.set_files unsupported and unlisted)', async () => {
    const res = await through('lying_describe', ['cert.describe_honest']);
    refused(res, 'cert.describe_honest', /feature file_upload is listed without upload\.set_files/);
  });

  it('a feature that answers ok but does nothing (upload.set_files)', async () => {
    const res = await through('fake_upload', [], [capabilitiesScenario(['file_upload', 'upload.set_files'])]);
    refused(res, 'cert.capabilities_work', /upload\.set_files answered ok but the page does not show/);
  });

  it('wrong screenshot size (+123 x +77 px)', async () => {
    const res = await through('screenshot_size', ['core.page_screenshot']);
    refused(res, 'core.page_screenshot', /says \d+x\d+ but the png is \d+x\d+/);
  });

  it('integer ids echoed as strings', async () => {
    const res = await through('id_echo', ['cert.id_echo']);
    refused(res, 'cert.id_echo', /7 came back as "7"/);
  });

  it('a listed core method that answers unsupported_method (page.wait)', async () => {
    const res = await through('missing_method', ['core.page_wait', 'cert.describe_honest']);
    refused(res, 'core.page_wait', /page\.wait failed: unsupported_method/);
    refused(res, 'cert.describe_honest', /listed but unsupported_method: page\.wait/);
  });

  it('weak snapshot (a ref for the first element only)', async () => {
    const res = await through('weak_snapshot', ['core.page_snapshot']);
    refused(res, 'core.page_snapshot', /weak snapshot: no element_ref for "Your name"/);
  });

  it('a non-JSON line on stdout, after the envelope scenario ran', async () => {
    const res = await through('non_json_line', ['core.page_snapshot', 'cert.envelopes']);
    refused(
      res,
      'cert.envelopes',
      /after the scenario passed: stdout carried non-envelope lines: debug: closing/,
    );
  });
});
