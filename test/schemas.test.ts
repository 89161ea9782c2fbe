import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TabwrightError } from '../src/engine/errors.js';
import {
  ActionFields,
  ActionOptions,
  parseParams,
  Target,
  toJsonSchema,
  WaitConditions,
} from '../src/engine/schemas.js';
import { seededRandom } from './helpers/random.js';

describe('shared schemas', () => {
  test('targets: exactly one kind, each validated', () => {
    assert.deepEqual(parseParams(Target, { element_ref: 'e3' }, 't'), { element_ref: 'e3' });
    assert.deepEqual(parseParams(Target, { x: 1, y: 2 }, 't'), { x: 1, y: 2 });
    for (const bad of [
      {},
      { element_ref: 'x3' },
      { element_ref: 'e1', selector: 'a' },
      { x: 1 },
      null,
      'e1',
      [1],
    ]) {
      assert.throws(
        () => parseParams(Target, bad, 't'),
        (e: unknown) => e instanceof TabwrightError && e.code === 'invalid_request',
      );
    }
  });

  test('errors name the offending field', () => {
    try {
      parseParams(ActionOptions, { timeout_ms: 70_000 }, 'page.click');
      assert.fail('should throw');
    } catch (e) {
      assert.ok(e instanceof TabwrightError);
      assert.equal(e.details.field, 'timeout_ms');
      assert.match(e.message, /page\.click: invalid timeout_ms/);
    }
    assert.throws(() => parseParams(ActionFields.click, { click_count: 9 }, 'c'), /click_count/);
    assert.throws(() => parseParams(WaitConditions, { text_presnt: 'x' }, 'w'), /unknown field/);
  });

  test('fuzz-ish: random values never crash the parser, only invalid_request', () => {
    const values: unknown[] = [
      undefined,
      null,
      0,
      -1,
      1e308,
      Number.NaN,
      '',
      'x'.repeat(10_000),
      [],
      {},
      { a: { b: [] } },
      true,
    ];
    const rnd = seededRandom(7);
    const keys = [
      'element_ref',
      'selector',
      'role',
      'name',
      'text',
      'x',
      'y',
      'timeout_ms',
      'verify',
      'exact',
    ];
    for (let i = 0; i < 500; i++) {
      const obj: Record<string, unknown> = {};
      for (const k of keys) if (rnd() < 0.3) obj[k] = values[Math.floor(rnd() * values.length)];
      for (const schema of [Target, ActionOptions, WaitConditions]) {
        try {
          parseParams(schema, obj, 'fuzz');
        } catch (e) {
          assert.ok(e instanceof TabwrightError && e.code === 'invalid_request', String(e));
        }
      }
    }
  });

  test('JSON Schema generation', () => {
    const js = toJsonSchema(Target) as { anyOf: unknown[] };
    assert.equal(js.anyOf.length, 5);
    assert.equal((toJsonSchema(ActionOptions) as { type: string }).type, 'object');
  });
});
