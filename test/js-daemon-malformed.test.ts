import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type JsCli, jsCli, rawDaemonRequest } from './helpers/js-cli.js';

// Whatever arrives on the daemon's socket gets one structured answer, and the daemon keeps serving.
describe('tabwright js daemon: malformed requests', () => {
  let js: JsCli;
  before(async () => {
    js = jsCli(`malformed-${process.pid}`);
    assert.equal((await js.cli(['--start'])).code, 0);
  });
  after(async () => {
    await js.stop();
  });

  const deep = (n: number) => `${'{"op":'.repeat(n)}"ping"${'}'.repeat(n)}`;
  const cases: [string, string, RegExp][] = [
    ['null', 'null', /not a JSON object \(null\)/],
    ['a number', '42', /not a JSON object \(number\)/],
    ['an array', '[{"op":"ping"}]', /not a JSON object \(an array\)/],
    ['not JSON', '{"op":', /not valid JSON/],
    ['no op', '{"code":"1"}', /without a string "op"/],
    ['an op nested 10,000 deep', deep(10_000), /without a string "op"/],
    ['an unknown op', '{"op":"explode"}', /unknown op "explode"/],
    ['eval without code', '{"op":"eval"}', /eval without a string "code"/],
    ['eval with code not a string', '{"op":"eval","code":{"a":1}}', /eval without a string "code"/],
  ];

  test('each malformed line gets one error answer naming the problem and the request shapes', async () => {
    for (const [what, line, message] of cases) {
      const out = await rawDaemonRequest(js.socket, `${line}\n`);
      assert.ok(out, `${what}: no answer`);
      const lines = out.split('\n').filter(Boolean);
      assert.equal(lines.length, 1, `${what}: ${out.slice(0, 300)}`);
      const res = JSON.parse(lines[0]!);
      assert.equal(res.ok, false, what);
      assert.equal(res.error.code, 'invalid_request', what);
      assert.match(res.error.message, message, what);
      assert.match(res.error.message, /\{"op":"ping"\}/, `${what}: says what to send`);
      assert.ok(typeof res.op === 'string' && res.op.length <= 40, what);
    }
  });

  test('a request without its newline is answered at end of input; an oversized one is refused', async () => {
    const ping = JSON.parse((await rawDaemonRequest(js.socket, '{"op":"ping"}', 10_000, true))!);
    assert.equal(ping.ok, true);
    const big = await rawDaemonRequest(js.socket, `{"op":"eval","code":"${'x'.repeat(9 * 1024 * 1024)}"}\n`);
    assert.ok(big, 'no answer to an oversized request');
    assert.match(JSON.parse(big.split('\n')[0]!).error.message, /over 8388608 bytes/);
  });

  test('the daemon still serves snippets afterwards', async () => {
    const r = await js.run('1 + 1');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), '2');
  });
});
