/**
 * Loaded into every test file's process by scripts/run-tests.mjs (`--import`): the file, and every
 * process it starts (browsers, door commands, the Grid), gets a temporary folder of its own as
 * TMPDIR. When the file's process exits, whatever is still in that folder was left behind by the
 * file (a browser profile, playwright-core's artifacts folder, a socket): the names are printed and
 * the file fails. The folder is removed either way, so a run never fills the machine's /tmp.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** tsx's compile cache is shared by the run on purpose (it is made before this module runs). */
const SHARED = /^tsx-/;

// Only in a file's own process (the runner itself starts no browser).
if (process.env.NODE_TEST_CONTEXT && !process.env.TABWRIGHT_TEST_TMPDIR) {
  const dir = mkdtempSync(join(tmpdir(), 'twt-'));
  process.env.TMPDIR = dir;
  // A test runner started by a test (the Firefox matrix reruns door suites) shares its parent's folder.
  process.env.TABWRIGHT_TEST_TMPDIR = dir;
  process.on('exit', () => {
    let left: string[] = [];
    try {
      left = readdirSync(dir).filter((n) => !SHARED.test(n));
    } catch {
      return;
    }
    if (left.length > 0) {
      const file = relative(process.cwd(), process.argv[1] ?? '?');
      process.stderr.write(
        `${file} left ${left.length} item(s) in its temporary folder: ${left.join(', ')}. ` +
          'A browser or process it started was not closed (or did not clean up): close it in the test.\n',
      );
      process.exitCode = 1;
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
}
