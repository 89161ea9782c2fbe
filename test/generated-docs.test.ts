import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generated, SECTIONS } from '../scripts/gen-reference.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('generated references', () => {
  test('the docs hold the references generated from the tables (npm run gen:reference)', () => {
    const stale = [...generated()].filter(([doc, text]) => readFileSync(join(root, doc), 'utf8') !== text);
    assert.deepEqual(
      stale.map(([doc]) => doc),
      [],
      'stale generated sections: run npm run gen:reference and commit the docs',
    );
  });

  test('every door table and the operations are covered', () => {
    const ids = SECTIONS.map((s) => s.id);
    for (const id of ['operations', 'mcp-tools', 'http-methods', 'provider-methods'])
      assert.ok(ids.includes(id), `section ${id}`);
  });
});
