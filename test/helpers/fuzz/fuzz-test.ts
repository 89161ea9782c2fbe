import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FUZZ_DOORS } from './doors/index.js';
import { clean, formatReports, runFuzz } from './runner.js';

/**
 * The bounded fuzz test of one door in `npm test`: a fixed seed (failures repeat; `npm run fuzz --
 * --door <door> --seed <seed>` reruns it at length), a few seconds of inputs through the real transport.
 */
export function fuzzTest(door: keyof typeof FUZZ_DOORS, count: number, seed: number): void {
  test(`fuzz ${door}: ${count} inputs (seed ${seed}) each get a structured reply (none for notifications), no crash, no hang, and a valid request works afterwards`, async () => {
    const report = await runFuzz(FUZZ_DOORS[door]!(), { seed, count });
    assert.equal(report.inputs, count);
    assert.ok(clean(report), formatReports([report]));
  });
}
