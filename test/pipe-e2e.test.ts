import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { type PipeRun, pipeHarness } from './helpers/pipe-run.js';

// End-to-end: the built `tabwright pipe` (npm test builds first) with real agents as child processes.

// The example agent, bundled once into plain JavaScript (tsx would compile it at every start).
let EXAMPLE = 'node --import tsx examples/pipe-agent.ts';
let fx: FixtureServer;
const home = tempHome();

before(async () => {
  fx = await startFixtureServer();
  const outfile = join(home.dir, 'pipe-agent.mjs');
  await build({
    entryPoints: ['examples/pipe-agent.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
  EXAMPLE = `node ${outfile}`;
});
after(async () => {
  await fx.close();
  home.cleanup();
});

const { writeJson, rules, runPipe } = pipeHarness(home.dir, 110_000);

// biome-ignore lint/suspicious/noExplicitAny: the example agent's free-form JSON report lines
const steps = (r: PipeRun) => r.agent.filter((l) => typeof l.step === 'number') as Record<string, any>[];

function assertLogsOnlyOnStderr(r: PipeRun): void {
  assert.equal(r.stdout, '', 'the host writes nothing to its stdout');
  for (const l of r.hostLines) {
    assert.doesNotThrow(() => JSON.parse(l), `host stderr line is structured JSON: ${l}`);
  }
  // A log line on the agent's stdout would have reached the host as a bad message.
  assert.ok(!r.stderr.includes('invalid_message'), 'no stray line on the agent stdout');
}

describe('tabwright pipe with the example agent', () => {
  test('all 14 actions against the fixture pages', async () => {
    const page = `${fx.url}/fixtures/pipe/form.html`;
    const plan = [
      { action: 'navigate', params: { url: page } },
      { action: 'getAomSnapshot', params: {} },
      { action: 'type', params: { selector: '#user', text: 'alice' } },
      { action: 'select', params: { selector: '#role', label: 'Editor' } },
      { action: 'click', params: { selector: '#submit' } },
      { action: 'getText', params: { selector: '#status' } },
      { action: 'getHtml', params: { selector: '#intro' } },
      { action: 'click', params: { selector: '#reveal' } },
      { action: 'waitForSelector', params: { selector: '#late', state: 'visible', timeout_ms: 5000 } },
      { action: 'pageScreenshot', params: {} },
      { action: 'scrollTo', params: { selector: '#bottom' } },
      { action: 'scrollTo', params: { x: 0, y: 200 } },
      { action: 'storageSet', params: { key: 'sgclaw_token', value: 'abc' } },
      { action: 'storageGet', params: { key: 'sgclaw_token' } },
      { action: 'zombieSpawn', params: { url: `${fx.url}/fixtures/pipe/bg.html` } },
      { action: 'getText', params: { zombie_id: 'zombie_1' } },
      { action: 'zombieKill', params: { zombie_id: 'zombie_1' } },
      {
        action: 'getText',
        params: { zombie_id: 'zombie_1' },
        expect_error: 'invalid_params',
        expected_domain: '127.0.0.1',
      },
      { action: 'select', params: { selector: '#role', index: 2 } },
      { action: 'getAomSnapshot', params: { interactive_only: true } },
      { action: 'getText', params: {} },
    ];
    const r = await runPipe([
      '--rules',
      rules(),
      '--agent',
      `${EXAMPLE} --steps ${writeJson('all.json', plan)}`,
    ]);
    const s = steps(r);
    assert.equal(r.code, 0, JSON.stringify(s.filter((x) => !x.ok)) + r.stderr.slice(-2000));
    assert.equal(s.length, plan.length);
    assert.ok(s.every((x) => x.ok));
    const by = (i: number) => s[i]!;
    assert.equal(by(0).data.title, 'Pipe form');
    assert.equal(by(0).data.status, 200);
    const aom = by(1).aom_snapshot as { ref: string | null; role: string; name: string }[];
    assert.ok(aom.some((n) => n.role === 'textbox' && n.name === 'User' && /^e\d+$/.test(String(n.ref))));
    assert.ok(aom.some((n) => n.role === 'button' && n.name === 'Sign in'));
    assert.ok(aom.some((n) => n.role === 'heading' && n.name === 'Login'));
    assert.equal(by(5).data.text, 'signed in as alice (editor)');
    assert.equal(by(6).data.html, '<p id="intro">Welcome to the <b>pipe</b> fixture.</p>');
    assert.equal(by(8).data.state, 'visible');
    assert.equal(by(9).data.media_type, 'image/png');
    assert.ok(Number(by(9).data.width) > 0 && Number(by(9).data.height) > 0);
    assert.match(String(by(9).data.image), /^<\d+ base64 chars>$/);
    assert.deepEqual(by(11).data, { x: 0, y: 200 });
    assert.equal(by(13).data.value, 'abc');
    assert.equal(by(14).data.zombie_id, 'zombie_1');
    assert.equal(by(15).data.text, 'Background worker page');
    assert.equal(by(16).data.killed, true);
    assert.equal(by(18).data.verified, true);
    const interactive = by(19).aom_snapshot as { ref: string | null; role: string }[];
    assert.ok(interactive.length >= 5 && interactive.every((n) => n.ref !== null));
    assert.ok(!interactive.some((n) => n.role === 'heading'));
    assert.match(String(by(20).data.text), /signed in as alice/);
    // Every response carries timing; seqs run 1..n without gaps over what was sent.
    const sent = s.filter((x) => x.seq !== null);
    assert.deepEqual(
      sent.map((x) => x.seq),
      sent.map((_, i) => i + 1),
    );
    for (const x of s.filter((y) => y.timing)) {
      assert.ok(Number.isInteger(x.timing.queue_ms) && Number.isInteger(x.timing.exec_ms));
    }
    assertLogsOnlyOnStderr(r);
  });

  test("the seed's integration order: init, navigate, type, click, getText, then the failure cases", async () => {
    const page = `${fx.url}/fixtures/pipe/form.html`;
    const plan = [
      { action: 'navigate', params: { url: page } },
      { action: 'type', params: { selector: '#user', text: 'bob' } },
      { action: 'click', params: { selector: '#submit' } },
      { action: 'getText', params: { selector: '#status' } },
      {
        action: 'navigate',
        params: { url: `${fx.altUrl}/fixtures/pipe/next.html` },
        expect_error: 'domain_not_allowed',
      },
      { action: 'eval', params: { code: 'document.cookie' }, expect_error: 'action_not_allowed' },
      {
        action: 'waitForSelector',
        params: { selector: '#never', state: 'attached', timeout_ms: 300 },
        expect_error: 'timeout',
      },
      { action: 'getText', params: { selector: '#status' } },
    ];
    const r = await runPipe([
      '--rules',
      rules(),
      '--agent',
      `${EXAMPLE} --steps ${writeJson('order.json', plan)}`,
    ]);
    const s = steps(r);
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    const hs = r.hostLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'pipe: handshake complete');
    assert.ok(hs?.agent_id, 'init → init_ack first');
    assert.deepEqual(
      s.map((x) => [x.action, x.seq, x.code ?? 'ok']),
      [
        ['navigate', 1, 'ok'],
        ['type', 2, 'ok'],
        ['click', 3, 'ok'],
        ['getText', 4, 'ok'],
        ['navigate', null, 'domain_not_allowed'],
        ['eval', null, 'action_not_allowed'],
        ['waitForSelector', 5, 'timeout'],
        ['getText', 6, 'ok'],
      ],
    );
    assert.equal(s[3]!.data.text, 'signed in as bob (viewer)');
    assert.equal(s[4]!.local, true, 'the SDK refused the domain before sending');
    assert.equal(s[6]!.local, false, 'the browser answered with timeout');
    assertLogsOnlyOnStderr(r);
    const cmdLog = r.hostLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'pipe: command');
    for (const f of ['agent_id', 'seq', 'action', 'success', 'queue_ms', 'exec_ms'])
      assert.ok(f in cmdLog, f);
  });
});
