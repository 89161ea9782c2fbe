#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's own test runner (TypeScript via tsx).
// Node 20's --test does not expand globs, so we list the files here.
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'fixtures' ? [] : walk(p);
    return d.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2);
const files = walk('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    // Each file gets a TMPDIR of its own and fails when it leaves anything in it (test/helpers/tmp-guard.ts).
    '--import',
    './test/helpers/tmp-guard.ts',
    '--test',
    '--test-concurrency=2',
    '--test-timeout=300000',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, TABWRIGHT_LOG: process.env.TABWRIGHT_LOG ?? 'warn' } },
);
process.exit(r.status ?? 1);
