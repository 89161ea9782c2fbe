import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LaunchRecords } from '../src/engine/launch-records.js';
import { tempHome } from './helpers/engine.js';

// Launch records are how an engine cleans up after another tabwright process that died. A record is
// written aside and renamed into place, so a sweep never sees half of one; and a sweep never drops
// the record of an owner that still runs, even one it cannot read.

test("a sweep drops only records whose owner is gone, and never a live owner's", () => {
  const home = tempHome();
  try {
    const run = join(home.dir, 'run');
    mkdirSync(run, { recursive: true });
    // A pid that ran and is gone: a process that exited and was reaped.
    const gone = spawnSync('true').pid!;
    const files = {
      liveCut: `${process.pid}-111.json`, // a live owner's record, unreadable (cut)
      livePartial: `${process.pid}-112.json.partial`, // a live owner still writing
      goneCut: `${gone}-113.json`,
      gonePartial: `${gone}-114.json.partial`,
    };
    for (const f of Object.values(files)) writeFileSync(join(run, f), '{"owner_pid":');
    new LaunchRecords(home.dir).sweep();
    const left = (f: string) => existsSync(join(run, f));
    assert.equal(left(files.liveCut), true, "a live owner's record is kept even when it cannot be read");
    assert.equal(left(files.livePartial), true, "a live owner's record being written is left alone");
    assert.equal(left(files.goneCut), false, "a gone owner's unreadable record is removed");
    assert.equal(left(files.gonePartial), false, "a gone owner's half-written record is removed");
  } finally {
    home.cleanup();
  }
});
