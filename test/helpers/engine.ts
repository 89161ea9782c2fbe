import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TabwrightError } from '../../src/engine/errors.js';
import { Engine, type EngineOptions } from '../../src/index.js';

/** A temporary TABWRIGHT_HOME, removed by the returned cleanup. */
export function tempHome(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function newEngine(home: string, opts: EngineOptions = {}): Engine {
  return new Engine({ home, ...opts });
}

/** Asserts that `p` rejects with a TabwrightError of `code`, and returns it for further checks. */
export async function rejectsWith(
  p: Promise<unknown> | (() => unknown),
  code: string,
): Promise<TabwrightError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.ok(err instanceof TabwrightError, `expected TabwrightError, got ${String(err)}`);
    assert.equal(err.code, code, `expected ${code}, got ${err.code}: ${err.message}`);
    return err;
  }
  assert.fail(`expected rejection with ${code}, but it resolved`);
}
