import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISABLED_FEATURES } from '../src/backends/chromium/flags.js';
import { gridFamily } from '../src/backends/grid/families.js';

// A Grid node's chromedriver adds no --disable-features of its own, so the capabilities we send must
// carry ours (services that call home: autofill, network time, optimization hints), merged with the
// caller's into one switch, since Chromium keeps only the last of a switch given twice.
test('Grid Chromium capabilities disable the calling-home features in one --disable-features', () => {
  const caps = gridFamily('chromium').capabilities(
    { headless: true, args: ['--disable-features=Translate'] } as never,
    { 'goog:chromeOptions': { args: ['--disable-features=MediaRouter', '--lang=en'] } },
    true,
  ) as { 'goog:chromeOptions': { args: string[] } };
  const args = caps['goog:chromeOptions'].args;
  const switches = args.filter((a) => a.startsWith('--disable-features='));
  assert.equal(switches.length, 1, args.join(' '));
  const names = (switches[0] ?? '').slice('--disable-features='.length).split(',');
  for (const f of [...DISABLED_FEATURES, 'Translate', 'MediaRouter'])
    assert.ok(names.includes(f), `${f} missing`);
  assert.ok(DISABLED_FEATURES.includes('NetworkTimeServiceQuerying'));
  assert.ok(args.includes('--lang=en') && args.includes('--gaia-url=http://127.0.0.1:9'));
});
