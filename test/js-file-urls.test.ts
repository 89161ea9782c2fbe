import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type JsCli, jsCli } from './helpers/js-cli.js';

// `tabwright js --allow-file-urls` reaches the daemon's engine, is reported by --status, and is never
// assumed: a daemon started without it says so instead of running as if file: were allowed.
let js: JsCli;
before(() => {
  js = jsCli(`fileurls-${process.pid}`);
});
after(async () => {
  await js.stop();
});

test('the daemon keeps the setting it started with; asking for more says how to restart', async () => {
  const status = async () => JSON.parse((await js.cli(['--status'])).stdout) as { allowFileUrls: boolean };
  assert.equal((await js.cli(['-e', '1'])).code, 0);
  assert.equal((await status()).allowFileUrls, false);
  const refused = await js.cli(['--allow-file-urls', '-e', '1']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /refuses file: URLs .*tabwright js --restart --allow-file-urls/);
  const restarted = await js.cli(['--restart', '--allow-file-urls']);
  assert.equal(restarted.code, 0, restarted.stderr);
  assert.equal((await status()).allowFileUrls, true);
  assert.equal((await js.cli(['--allow-file-urls', '-e', '2'])).stdout.trim(), '2');
  // A plain --restart goes back to the default.
  await js.cli(['--restart']);
  assert.equal((await status()).allowFileUrls, false);
});
