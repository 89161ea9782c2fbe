import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { pipeHarness } from './helpers/pipe-run.js';

// The built `tabwright pipe` when the agent's side of the handshake goes wrong.

let fx: FixtureServer;
const home = tempHome();

before(async () => {
  fx = await startFixtureServer();
});
after(async () => {
  await fx.close();
  home.cleanup();
});

const { writeJson, rules, runPipe, handAgent } = pipeHarness(home.dir);

describe('tabwright pipe: handshake failures', () => {
  test('handshake failures: a wrong init_ack version, no init_ack at all', async () => {
    const bad = await runPipe(['--rules', rules(), '--agent', handAgent([], 'badversion')]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /handshake failed \(version_mismatch\)/);
    const silent = await runPipe([
      '--rules',
      rules(),
      '--handshake-timeout',
      '1500',
      '--agent',
      handAgent([], 'silent'),
    ]);
    assert.equal(silent.code, 1);
    assert.match(silent.stderr, /handshake failed \(timeout\): The agent sent no init_ack within 1500 ms/);
    const missing = await runPipe(['--rules', rules(), '--agent', 'definitely-not-a-command-xyz']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot start the agent "definitely-not-a-command-xyz": not found/);
    assert.ok(!missing.stderr.includes('shared browser launched'), 'checked before launching a browser');
  });
});
