import assert from 'node:assert/strict';
import { test } from 'node:test';
import { narrowPolicy } from '../src/engine/policy.js';
import { rejectsWith } from './helpers/engine.js';

/** The one "narrow a ceiling" rule (src/engine/policy.ts) the MCP and HTTP doors share. */

const A = 'http://127.0.0.1:8001';
const B = 'http://127.0.0.1:8002';

test('no ceiling: the request stands, and no request (or an empty one) is unrestricted', () => {
  assert.equal(narrowPolicy(undefined, undefined), undefined);
  assert.deepEqual(narrowPolicy(undefined, { allowed_origins: [] }), { allowed_origins: [] });
  assert.deepEqual(narrowPolicy(undefined, { allowed_origins: [A] }), { allowed_origins: [A] });
});

test('a ceiling with no request, or with empty lists, is the ceiling: never "allow all"', () => {
  const ceiling = { allowed_origins: [A, B] };
  const expected = { allowed_origins: [A, B], allowed_host_patterns: [], subresources: 'block' };
  assert.deepEqual(narrowPolicy(ceiling, undefined), expected);
  assert.deepEqual(narrowPolicy(ceiling, { allowed_origins: [] }), expected);
  assert.deepEqual(narrowPolicy(ceiling, { allowed_origins: [], allowed_host_patterns: [] }), expected);
});

test('a request may narrow the ceiling (origins, patterns inside patterns), never widen it', async () => {
  const ceiling = { allowed_origins: [A, B] };
  assert.deepEqual(narrowPolicy(ceiling, { allowed_origins: [`${B}/`] })?.allowed_origins, [B]);
  const wide = await rejectsWith(
    () => narrowPolicy(ceiling, { allowed_origins: [A, 'https://example.com'] }),
    'permission_denied',
  );
  assert.match(
    wide.message,
    /^This server only allows http:\/\/127\.0\.0\.1:8001, http:\/\/127\.0\.0\.1:8002/,
  );
  assert.deepEqual(wide.details.refused, ['https://example.com']);
  assert.equal(wide.details.reason, 'policy_widening');
  // A host pattern covers every scheme and port: wider than any list of origins.
  await rejectsWith(
    () => narrowPolicy(ceiling, { allowed_host_patterns: ['127.0.0.1'] }),
    'permission_denied',
  );
  await rejectsWith(() => narrowPolicy(ceiling, { subresources: 'allow' }), 'permission_denied');
  await rejectsWith(
    () => narrowPolicy(ceiling, { allowed_origins: [A], subresources: 'allow' }),
    'permission_denied',
  );

  const patterns = { allowed_host_patterns: ['*.example.com'] };
  assert.deepEqual(narrowPolicy(patterns, { allowed_origins: ['https://a.example.com'] })?.allowed_origins, [
    'https://a.example.com',
  ]);
  assert.deepEqual(
    narrowPolicy(patterns, { allowed_host_patterns: ['a.example.com', '*.b.example.com'] })
      ?.allowed_host_patterns,
    ['a.example.com', '*.b.example.com'],
  );
  await rejectsWith(
    () => narrowPolicy(patterns, { allowed_host_patterns: ['example.com'] }),
    'permission_denied',
  );
  await rejectsWith(
    () => narrowPolicy(patterns, { allowed_origins: ['https://example.org'] }),
    'permission_denied',
  );
  // A ceiling that allows subresources passes that on unless the request blocks them.
  const loose = { allowed_origins: [A], subresources: 'allow' as const };
  assert.equal(narrowPolicy(loose, { allowed_origins: [A] })?.subresources, 'allow');
  assert.equal(narrowPolicy(loose, { allowed_origins: [A], subresources: 'block' })?.subresources, 'block');
});

test('bad entries are invalid_request, on either side', async () => {
  await rejectsWith(
    () => narrowPolicy({ allowed_origins: [A] }, { allowed_origins: ['not an origin'] }),
    'invalid_request',
  );
  await rejectsWith(() => narrowPolicy({ allowed_origins: ['ftp://x'] }, undefined), 'invalid_request');
});
