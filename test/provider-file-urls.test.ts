import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { spawnProvider } from './helpers/provider.js';

// `tabwright provider` over its real transport (stdio JSON lines): file: refused unless --allow-file-urls.
const home = tempHome();
after(() => home.cleanup());

test('page.open file: is permission_denied by default and opens with --allow-file-urls', async () => {
  for (const allow of [false, true]) {
    const p = spawnProvider(home.dir, allow ? ['--allow-file-urls'] : []);
    try {
      const s = await p.call('session.ensure', {});
      const r = await p.request('page.open', { session_id: s.session_id, url: 'file:///etc/hostname' });
      if (allow) assert.equal(r.ok, true, JSON.stringify(r));
      else {
        assert.ok(!r.ok, JSON.stringify(r));
        assert.equal(r.error.code, 'permission_denied');
        assert.equal(r.error.details.reason, 'file_url_refused');
        assert.match(r.error.message, /--allow-file-urls/);
      }
      await p.call('session.close', { session_id: s.session_id });
    } finally {
      await p.close();
    }
  }
});
