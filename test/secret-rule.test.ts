import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { SecretRegistry, scrubEverywhere } from '../src/engine/semantics/secret-registry.js';
import {
  COLLECT_SECRETS_SOURCE,
  SECRET_FREE_COPY_SOURCE,
  SECRET_REASON_SOURCE,
} from '../src/engine/semantics/secret-sources.js';
import { isSecretParam, maskUrl, maskUrlsIn } from '../src/engine/semantics/secrets.js';

// The secret rule's Node half and the self-containedness of its page sources (the browser half is
// exercised through every door by equivalence-secrets.test.ts and by snapshot / actions tests).

/** A minimal element: enough of the DOM for secretReason. */
function el(tag: string, attrs: Record<string, string> = {}, parent: unknown = null) {
  return {
    localName: tag,
    isContentEditable: 'contenteditable' in attrs,
    parentElement: parent,
    getAttribute: (n: string) => attrs[n] ?? null,
    hasAttribute: (n: string) => n in attrs,
    getRootNode: () => ({}),
  };
}

describe('the secret rule', () => {
  test('the page sources run on their own (no module scope, no helpers)', () => {
    const reason = runInNewContext(`(${SECRET_REASON_SOURCE})`) as (e: unknown) => string | null;
    assert.equal(reason(el('input', { type: 'Password' })), 'password');
    assert.equal(reason(el('input', { autocomplete: 'section-a billing cc-number' })), 'card');
    assert.equal(reason(el('textarea', { autocomplete: 'one-time-code' })), 'one-time-code');
    assert.equal(reason(el('input', { autocomplete: 'shipping new-password' })), 'credential');
    const region = el('div', { 'data-private': '' });
    assert.equal(reason(el('div', { contenteditable: 'true' }, region)), 'data-private');
    assert.equal(reason(el('input', {}, el('section', { 'data-sensitive': '' }))), 'data-private');
    assert.equal(reason(el('input', { autocomplete: 'username' })), null);
    assert.equal(reason(el('button', {}, region)), null, 'only fields hold secret values');
    for (const src of [COLLECT_SECRETS_SOURCE, SECRET_FREE_COPY_SOURCE])
      assert.equal(typeof runInNewContext(src), 'function');
  });

  test('secret parameter names: words, not substrings', () => {
    for (const n of [
      'token',
      'access_token',
      'api_key',
      'apiKey',
      'X-Amz-Signature',
      'code',
      'auth_code',
      'session',
      'sid',
      'password',
      'otp',
      'cvc',
    ])
      assert.ok(isSecretParam(n), n);
    for (const n of ['keyword', 'author', 'authuser', 'barcode', 'q', 'page', 'signup', 'monkey'])
      assert.ok(!isSecretParam(n), n);
  });

  test('maskUrl masks only the secret parts, byte for byte elsewhere', () => {
    assert.equal(
      maskUrl('https://u:pw@x.test/a%20b?q=shoes&token=abc&sig=1#access_token=t&state=s'),
      'https://u:[redacted]@x.test/a%20b?q=shoes&token=[redacted]&sig=[redacted]#access_token=[redacted]&state=s',
    );
    assert.equal(
      maskUrl('https://x.test/p?keyword=a+b&page=2#top'),
      'https://x.test/p?keyword=a+b&page=2#top',
    );
    assert.equal(maskUrl('not a url'), 'not a url');
    assert.equal(maskUrlsIn('go to http://x.test/?code=9 now'), 'go to http://x.test/?code=[redacted] now');
  });

  test('the registry scrubs a page output however deep its strings sit (a snapshot model of a deeply nested page)', () => {
    const r = new SecretRegistry();
    try {
      r.add('hunter2-secret');
      type N = { role: string; text?: string; children: N[] };
      let model: N = { role: 'text', text: 'echo hunter2-secret', children: [] };
      for (let i = 0; i < 200; i++) model = { role: 'generic', children: [model] };
      let deepest = r.scrub(model);
      while (deepest.children.length) deepest = deepest.children[0]!;
      assert.equal(deepest.text, 'echo [redacted]');
    } finally {
      r.dispose();
    }
  });

  test('the registry scrubs values in every encoding, bodies by field name, records by URL', () => {
    const r = new SecretRegistry();
    try {
      r.add('p@ss word"1', 'pin');
      r.add('123'); // too short for free text
      assert.equal(r.scrubText('x p@ss word"1 y'), 'x [redacted] y');
      assert.equal(r.scrubText(JSON.stringify({ v: 'p@ss word"1' })), '{"v":"[redacted]"}');
      assert.equal(r.scrubText('a=p%40ss%20word%221'), 'a=[redacted]');
      assert.equal(r.scrubText('a=p%40ss+word%221'), 'a=[redacted]');
      assert.equal(r.scrubText('call 123 now'), 'call 123 now');
      assert.equal(
        r.scrubBody('user=ann&pin=123&cvc=999&q=ok'),
        'user=ann&pin=[redacted]&cvc=[redacted]&q=ok',
      );
      assert.equal(
        r.scrubBody('{"user":"ann","password":"x","pin":123}'),
        '{"user":"ann","password":"[redacted]","pin":"[redacted]"}',
      );
      assert.match(
        r.scrubBody('--b\r\nContent-Disposition: form-data; name="pin"\r\n\r\n123\r\n--b--'),
        /name="pin"\r\n\r\n\[redacted\]\r\n--b--/,
      );
      const rec = { url: 'http://x.test/?token=t1', nested: [{ text: 'see http://y.test/?q=1&key=k' }] };
      assert.deepEqual(r.scrubRecord(rec), {
        url: 'http://x.test/?token=[redacted]',
        nested: [{ text: 'see http://y.test/?q=1&key=[redacted]' }],
      });
      const untouched = { a: 'nothing secret' };
      assert.equal(r.scrub(untouched), untouched, 'unchanged values keep their identity');
      assert.equal(scrubEverywhere('log p@ss word"1'), 'log [redacted]');
    } finally {
      r.dispose();
    }
    assert.equal(
      scrubEverywhere('log p@ss word"1'),
      'log p@ss word"1',
      'a closed session takes part no more',
    );
  });
});
