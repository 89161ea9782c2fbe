import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isAlive } from '../src/backends/process-tree.js';
import { until } from './helpers/until.js';

// The one liveness rule (browsers, the JS daemon, an MCP door's parent): a process that exited but
// was never reaped still answers signal 0, yet it is gone.

test('a running process is alive, an exited one is not, and a zombie is not', async () => {
  assert.equal(isAlive(process.pid), true);

  // `sleep 0.2` is started in the background by a shell that then becomes `sleep 30` (exec): its
  // new parent never waits for it, so once it exits it stays a zombie until that parent goes.
  const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 30'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const zombie = Number(line.toString().trim());
    assert.ok(zombie > 0);
    const state = () => {
      const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2];
    };
    assert.equal(isAlive(zombie), true, 'the background sleep runs');
    await until(() => state() === 'Z', 5000);
    process.kill(zombie, 0); // signal 0 still succeeds: only the state says it is gone
    assert.equal(isAlive(zombie), false, 'a zombie counts as gone');
  } finally {
    parent.kill('SIGKILL');
    await once(parent, 'exit').catch(() => {});
  }
  assert.equal(isAlive(parent.pid!), false, 'an exited and reaped process is gone');
});
