import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { TabwrightError } from '../../src/engine/errors.js';
import { createEngine, type Engine, type EngineSettings, type Session } from '../../src/index.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';

/** A temporary TABWRIGHT_HOME, removed by the returned cleanup. */
export function tempHome(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tabwright-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function newEngine(home: string, opts: EngineSettings = {}): Engine {
  return createEngine({ home, ...opts });
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

/**
 * The usual test setup, in one call at the top of a test file: a fixture
 * server, an engine in a temporary home and one session, all closed after
 * the file's tests.
 */
export async function engineTestEnv(
  opts: { engine?: EngineSettings } = {},
): Promise<{ server: FixtureServer; engine: Engine; session: Session; home: string }> {
  const home = tempHome();
  const server = await startFixtureServer();
  const engine = newEngine(home.dir, opts.engine);
  const session = await engine.startSession({}, { timeoutMs: 30_000 });
  after(async () => {
    await engine.close();
    await server.close();
    home.cleanup();
  });
  return { server, engine, session, home: home.dir };
}
