import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rejectsWith } from './helpers/engine.js';
import { type DoorHarness, doorHarness } from './helpers/http.js';

/** set_credentials: HTTP basic auth on the task's live context, scoped, the password never echoed. */

let h: DoorHarness;
let id: string;
const auth = () => `${h.fixtures.url}/basic-auth`;

/** The browser gives up on a 401 challenge it has no (right) answer for: the load fails, naming why. */
async function refused(task: string, url: string): Promise<void> {
  const r = await h.fails(task, 'go_to_url', { url });
  assert.equal(r.json.data.netError, 'ERR_INVALID_AUTH_CREDENTIALS', JSON.stringify(r.json));
  assert.match(r.json.msg, /HTTP 认证.*set_credentials/);
  assert.equal(r.json.data.retryable, false);
}

before(async () => {
  h = await doorHarness();
  id = await h.start();
});
after(async () => h?.close());

test('without credentials the auth page fails to load; with them it loads, and the open tabs stay', async () => {
  await refused(id, auth());
  await h.ok(id, 'new_tab', { url: h.page('form.html') });
  await h.ok(id, 'switch_tab', { pageIndex: 0 });
  const set = await h.ok(id, 'set_credentials', { username: 'tw', password: 's3cret' });
  assert.equal(set.username, 'tw');
  assert.equal(set.origins, 'any');
  assert.equal(JSON.stringify(set).includes('s3cret'), false);
  const after = await h.ok(id, 'go_to_url', { url: auth() });
  assert.equal(after.status, 200, JSON.stringify(after));
  assert.equal(after.title, 'authorized');
  assert.equal((await h.ok(id, 'get_tabs')).tabs.length, 2);
});

test('a wrong password is tried once (the 401 page shows); an empty username clears', async () => {
  const other = await h.start();
  await h.ok(other, 'set_credentials', { username: 'tw', password: 'wrong' });
  // Answered once; the server's second 401 is then shown as the page.
  assert.equal((await h.ok(other, 'go_to_url', { url: auth() })).status, 401);
  await h.ok(other, 'set_credentials', { username: 'tw', password: 's3cret' });
  assert.equal((await h.ok(other, 'go_to_url', { url: `${auth()}?again` })).status, 200);
  assert.equal((await h.ok(other, 'set_credentials', { username: '', password: '' })).cleared, true);
  await h.ok(other, 'close');
});

test('origins scope the credentials: another origin that asks gets nothing', async () => {
  const other = await h.start();
  const set = await h.ok(other, 'set_credentials', {
    username: 'tw',
    password: 's3cret',
    origins: [h.fixtures.url],
  });
  assert.deepEqual(set.origins, [h.fixtures.url]);
  // Same server, other origin (localhost): the challenge is not answered.
  await refused(other, `${h.fixtures.altUrl}/basic-auth`);
  // The refused load's late error page must not cut off the next navigation.
  assert.equal((await h.ok(other, 'go_to_url', { url: auth() })).status, 200);
  const bad = await h.fails(other, 'set_credentials', { username: 'tw', password: 'x', origins: ['nope'] });
  assert.equal(bad.json.data.field, 'origins');
  await h.ok(other, 'close');
});

test('engine: a session with an allowlist gives credentials to its allowed origins only', async () => {
  const s = await h.engine.startSession({ policy: { allowed_origins: [h.fixtures.url] } });
  try {
    const scope = await s.setHttpCredentials({ username: 'tw', password: 's3cret' });
    assert.deepEqual(scope.origins, [h.fixtures.url]);
    await rejectsWith(
      s.setHttpCredentials({ username: 'tw', password: 's3cret', origins: [h.fixtures.altUrl] }),
      'permission_denied',
    );
    const r = await s.page().open(auth());
    assert.equal(r.status, 200);
    const patterns = await h.engine.startSession({ policy: { allowed_host_patterns: ['127.0.0.1'] } });
    await rejectsWith(patterns.setHttpCredentials({ username: 'tw', password: 'x' }), 'invalid_request');
    await patterns.close();
  } finally {
    await s.close();
  }
});
